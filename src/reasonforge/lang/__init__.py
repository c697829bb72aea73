"""The claim languages shared by translators and checkers: first-order logic (`logic/`) and the maths
readers (`math/`). This room imports neither `translate/` nor `verify/`."""

__all__: list[str] = []

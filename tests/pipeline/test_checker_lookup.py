"""verify_chain builds each checker once (per step; a chain checker once per language) and records specs as JSON."""

from reasonforge import StepTranslation, VerifyRequest, verify_chain
from reasonforge.registry import CheckerRegistry
from reasonforge.types import ArtifactLanguage, CheckOutcome, ErrorKind, Spec, StepStatus


def request(n):
    return VerifyRequest.model_validate({
        "domain": "mathematics", "proof_level": "formal",
        "reasoning_chain": [{"step_id": i + 1, "content": f"step {i + 1}"} for i in range(n)],
    })


def counting_registry():
    """A registry with a per-step sympy checker and a chain coq checker that count their constructions."""
    registry = CheckerRegistry(modules={})
    built = {"sympy": 0, "coq": 0}

    @registry.checker(ArtifactLanguage.SYMPY)
    class PerStep:
        spec = Spec(name="per-step", version="1", args={"k": "v"})

        def __init__(self):
            built["sympy"] += 1

        def check(self, artifact, *, level, limits, context=None):
            return CheckOutcome(status=StepStatus.VERIFIED)

    @registry.checker(ArtifactLanguage.COQ)
    class Chain:
        spec = Spec(name="chain", version="2")

        def __init__(self):
            built["coq"] += 1

        def check_chain(self, steps, *, context, level, limits):
            return {s.step_id: CheckOutcome(status=StepStatus.VERIFIED) for s in steps}

    return registry, built


def test_each_step_builds_its_checker_once():
    registry, built = counting_registry()
    translations = [StepTranslation(step_id=1, language="sympy", formal_representation="claim 1 = 1"),
                    StepTranslation(step_id=2, language="coq", formal_representation="A"),
                    StepTranslation(step_id=3, language="sympy", formal_representation="claim 2 = 2"),
                    StepTranslation(step_id=4, language="coq", formal_representation="B")]
    verdict = verify_chain(request(4), translations=translations, registry=registry)
    # The fakes prove nothing about "step N", so the soundness gate leaves them unverified; what counts here is
    # that every step was checked and each checker built once.
    assert all(sv.details.get("checker_status") == "verified" for sv in verdict.step_verdicts)
    assert built == {"sympy": 2, "coq": 1}


def test_specs_are_typed_fields_of_the_step():
    registry, _ = counting_registry()
    translations = [StepTranslation(step_id=1, language="sympy", formal_representation="claim 1 = 1"),
                    StepTranslation(step_id=2, language="coq", formal_representation="A")]
    first, second = verify_chain(request(2), translations=translations, registry=registry).step_verdicts
    assert first.checker_spec == Spec(name="per-step", version="1", args={"k": "v"})
    assert second.checker_spec == Spec(name="chain", version="2")
    assert first.translator_spec is None  # translations were supplied


def test_translator_spec_travels_to_every_step():
    registry, _ = counting_registry()

    class Translator:
        spec = Spec(name="fake-translator", version="3", args={"model": "m"})

        def translate_chain(self, request, ancestors):
            return [StepTranslation(step_id=1, language="sympy", formal_representation="claim 1 = 1"),
                    StepTranslation(step_id=2, language="sympy", formal_representation="")]

    verdict = verify_chain(request(2), translator=Translator(), registry=registry)
    for sv in verdict.step_verdicts:
        assert sv.translator_spec == Translator.spec
    assert verdict.step_verdicts[1].error_kind is ErrorKind.UNTRANSLATABLE


def test_missing_checker_is_reported_on_the_step():
    registry, _ = counting_registry()
    translations = [StepTranslation(step_id=1, language="lean4", formal_representation="theorem t : True := trivial")]
    [sv] = verify_chain(request(1), translations=translations, registry=registry).step_verdicts
    assert sv.status is StepStatus.ERROR and "no checker is available for artifact language 'lean4'" in sv.error_message
    assert sv.checker_spec is None and "spec" not in sv.details


def test_a_family_says_whether_its_aligner_accepts_only_its_readers_own_translation():
    from reasonforge.registry import checkers

    # maths aligns an artifact only with the plan its reader wrote; logic and code align what another writer wrote
    assert checkers.restates_reading(ArtifactLanguage.SYMPY)
    assert not checkers.restates_reading(ArtifactLanguage.FOL) and not checkers.restates_reading(ArtifactLanguage.PYTHON)
    registry = CheckerRegistry(modules={})
    assert not registry.restates_reading(ArtifactLanguage.SYMPY)  # no aligner: nothing is restated

    @registry.aligner(ArtifactLanguage.SYMPY, restating=True)
    def align(context, translation, outcome, limits):
        return outcome

    assert registry.restates_reading(ArtifactLanguage.SYMPY) and not registry.restates_reading(ArtifactLanguage.COQ)

"""The translator a request gets when it brings no translations and names none."""

from __future__ import annotations

from reasonforge.errors import ReasonForgeError
from reasonforge.translate.logic import LogicTranslator
from reasonforge.translate.protocol import Translator
from reasonforge.translate.targets import resolve_prover
from reasonforge.types import ArtifactLanguage, Domain, ProofLevel, Prover


def default_translator(
    domain: Domain, *, level: ProofLevel = ProofLevel.STANDARD, prover: Prover = Prover.AUTO
) -> Translator:
    """The offline rule-based translator for `domain` at `level` (formal mathematics: for `prover`)."""
    domain = Domain(domain)
    if domain is Domain.LOGIC:
        return LogicTranslator()
    if domain is Domain.CODE:
        from reasonforge.translate.code_blocks import CodeBlockTranslator

        return CodeBlockTranslator()
    if ProofLevel(level) is not ProofLevel.FORMAL:
        from reasonforge.translate.math_quick import MathTranslator

        return MathTranslator()
    if resolve_prover(prover) is ArtifactLanguage.COQ:
        from reasonforge.translate.math_coq import CoqMathTranslator

        return CoqMathTranslator()
    raise ReasonForgeError(
        "no offline translator emits Lean 4; send lean4 `translations` with the request, "
        "or set prover to 'coq' to use the offline Coq translator",
        field="prover",
    )

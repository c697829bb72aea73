"""The translator a request gets when it brings no translations and names none."""

from __future__ import annotations

from reasonforge.errors import ReasonForgeError
from reasonforge.translate.logic import LogicTranslator
from reasonforge.translate.protocol import TRANSLATION_TIME_LIMIT_S, Translator, time_limited
from reasonforge.translate.targets import resolve_prover
from reasonforge.types import ArtifactLanguage, Domain, ProofLevel, Prover


def default_translator(
    domain: Domain, *, level: ProofLevel = ProofLevel.STANDARD, prover: Prover = Prover.AUTO,
    time_limit_s: float = TRANSLATION_TIME_LIMIT_S,
) -> Translator:
    """The offline rule-based translator for `domain` at `level` (formal mathematics: for `prover`), each chain
    translated within `time_limit_s` (past it, or too deeply nested, the steps are unsupported, with the reason)."""
    domain = Domain(domain)
    if domain is Domain.LOGIC:
        return time_limited(LogicTranslator(), ArtifactLanguage.FOL, time_limit_s)
    if domain is Domain.CODE:
        from reasonforge.translate.code_blocks import CodeBlockTranslator

        return time_limited(CodeBlockTranslator(), ArtifactLanguage.PYTHON, time_limit_s)
    if ProofLevel(level) is not ProofLevel.FORMAL:
        from reasonforge.translate.math_quick import MathTranslator

        return time_limited(MathTranslator(), ArtifactLanguage.SYMPY, time_limit_s)
    if resolve_prover(prover) is ArtifactLanguage.COQ:
        from reasonforge.translate.math_coq import CoqMathTranslator

        return time_limited(CoqMathTranslator(), ArtifactLanguage.COQ, time_limit_s)
    raise ReasonForgeError(
        "no offline translator emits Lean 4; send lean4 `translations` with the request, "
        "or set prover to 'coq' to use the offline Coq translator",
        field="prover",
    )

"""Independent translations of one chain, each checked on its own, combined per step (the plan's consensus,
inside one validator).

A step is `verified` only when at least `min_agree` of its translations prove it and none refutes it; when some
prove it and others refute it, the translations read the step differently, so no verdict is drawn from them:
`unsupported` (DISAGREEMENT). Refuted by some and proven by none: `failed` when the rules' reading refutes it, or
when at least max(2, `min_agree`) of a model's independent translations do. A model never refutes alone: its
artifact passed the gate, but a small model's reading of a correct step can still be wrong in ways the gate cannot
see (a misread quantity in a `let` line), so one model translation that refutes, with nothing to confirm it, leaves
the step `unsupported` (TOO_FEW_AGREE).
Every combined verdict records the figures in `details["agreement"]`. Each translation went through the
soundness gate on its own, so an ensemble can only be as permissive as its most careful member is sound.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from reasonforge.types import ErrorKind, Spec, StepStatus, StepVerdict, TranslatorMode

__all__ = ["agree"]

_SHOWN_ARTIFACT = 2_000  # characters of each translation's artifact kept in the figures


def agree(runs: Sequence[Mapping[int, StepVerdict]], specs: Sequence[Spec | None], min_agree: int = 1,
          writers: Sequence[TranslatorMode] | None = None) -> dict[int, StepVerdict]:
    """One verdict per step from the verdicts of each translation set (`runs`, made by translators `specs`, each
    written by the rules or a model: `writers`, default the rules)."""
    if not runs:
        raise ValueError("agreement needs at least one run")
    if len(specs) != len(runs):
        raise ValueError("one translator spec per run")
    if not 1 <= min_agree <= len(runs):
        raise ValueError(f"min_agree must be between 1 and {len(runs)}, not {min_agree}")
    if writers is not None and len(writers) != len(runs):
        raise ValueError("one writer per run")
    names = [spec.name if spec is not None else "?" for spec in specs]
    models = {i for i, w in enumerate(writers or ()) if w is TranslatorMode.MODEL}
    return {sid: _combine([run[sid] for run in runs], names, min_agree, models) for sid in runs[0]}


def _combine(verdicts: list[StepVerdict], names: list[str], min_agree: int, models: set[int]) -> StepVerdict:
    proved = [i for i, v in enumerate(verdicts) if v.status is StepStatus.VERIFIED]
    refuted = [i for i, v in enumerate(verdicts) if v.status is StepStatus.FAILED]
    figures = {
        "translations": len(verdicts),
        "verified": len(proved),
        "failed": len(refuted),
        "required": min_agree,
        "by": [{"translator": names[i], "status": v.status.value, "message": (v.error_message or "")[:300],
                "artifact": v.formal_representation[:_SHOWN_ARTIFACT]} for i, v in enumerate(verdicts)],
    }
    if proved and refuted:
        return _unsupported(verdicts[refuted[0]], figures, ErrorKind.DISAGREEMENT, (
            f"independent translations disagree: {_list(proved, names)} {_verb(proved, 'prove')} the step, "
            f"{_list(refuted, names)} {_verb(refuted, 'refute')} it ({verdicts[refuted[0]].error_message}); no "
            "verdict is drawn from translations that read the step differently"))
    if len(proved) >= min_agree:
        return _with(verdicts[proved[0]], figures)
    needed = max(2, min_agree)
    if refuted and any(i not in models for i in refuted) or len(refuted) >= needed:
        return _with(verdicts[refuted[0]], figures)
    if refuted:
        return _unsupported(verdicts[refuted[0]], figures, ErrorKind.TOO_FEW_AGREE, (
            f"only a model's translation refutes the step ({_list(refuted, names)}: "
            f"{verdicts[refuted[0]].error_message}); a model's refutation counts when the rules' reading or "
            f"{needed} of its independent translations confirm it"))
    if proved:
        return _unsupported(verdicts[proved[0]], figures, ErrorKind.TOO_FEW_AGREE, (
            f"only {len(proved)} of {len(verdicts)} independent translations prove the step "
            f"({_list(proved, names)}); the ensemble requires {min_agree}"))
    # Nothing proved or refuted it. Beside a model, the rules' reading decides what the step is (unread,
    # undecided, ...), so the page says what the reader saw; each model's artifact stays in the figures.
    # Otherwise the most informative account is a translation that produced an artifact.
    rules = [v for i, v in enumerate(verdicts) if i not in models] if models else []
    chosen = rules[0] if rules else next((v for v in verdicts if v.formal_representation.strip()), verdicts[0])
    return _with(chosen, figures)


def _list(indices: list[int], names: list[str]) -> str:
    return ", ".join(names[i] for i in indices)


def _verb(indices: list[int], verb: str) -> str:
    return verb + "s" if len(indices) == 1 else verb


def _with(verdict: StepVerdict, figures: dict[str, object]) -> StepVerdict:
    return verdict.model_copy(update={"details": {**verdict.details, "agreement": figures}})


def _unsupported(base: StepVerdict, figures: dict[str, object], kind: ErrorKind, message: str) -> StepVerdict:
    return base.model_copy(update={
        "verified": False, "status": StepStatus.UNSUPPORTED, "error_message": message, "error_kind": kind,
        "evidence": None, "details": {**base.details, "agreement": figures}})

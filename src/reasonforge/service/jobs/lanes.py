"""Lanes: a quick job (maths or logic at the quick or standard level, translated by the rules: milliseconds) is
never queued behind slow ones (code run in the sandbox, formal proofs, a model translating: seconds to minutes).

Each job is filed in its lane when it is submitted (`JobRow.lane`). The embedded queue runs the heavy lane's
workers, which take the oldest job of either lane, beside a quick lane of its own job process whose workers take
only quick jobs; so however many slow jobs hold the heavy workers, a quick one starts at once. With Celery there
is one queue, and its workers (as many as the operator starts) take jobs of both lanes.
"""

from __future__ import annotations

from enum import StrEnum

from reasonforge.types import Domain, ProofLevel, TranslatorMode, VerifyRequest

__all__ = ["Lane", "lane_of"]


class Lane(StrEnum):
    """Where a job waits: QUICK jobs have workers of their own."""

    QUICK = "quick"
    HEAVY = "heavy"


def lane_of(request: VerifyRequest, translator: TranslatorMode) -> Lane:
    """The lane of `request` when `translator` (the mode it will run with) translates it."""
    if request.domain is Domain.CODE or request.proof_level is ProofLevel.FORMAL:
        return Lane.HEAVY
    if translator is not TranslatorMode.RULES and request.translations is None:
        return Lane.HEAVY  # a model translates it
    return Lane.QUICK

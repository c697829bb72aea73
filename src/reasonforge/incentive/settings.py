"""Every constant of the incentive maths in one frozen model, each default justified where it is set."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator

MAX_DIFFICULTY = 10
"""Task difficulty runs 1..10 (the plan's `TranslationTask.difficulty`)."""


def _linear_difficulty() -> tuple[float, ...]:
    # D(d) = 1 + (d − 1)/9: 1.0 at difficulty 1 rising evenly to 2.0 at difficulty 10.
    return tuple(1.0 + (d - 1) / (MAX_DIFFICULTY - 1) for d in range(1, MAX_DIFFICULTY + 1))


class IncentiveSettings(BaseModel, frozen=True):
    """Weights and thresholds of CTS, S_epoch, PEB, emissions, traps and slashing (plan Eq. 2–10)."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    # ── CTS (plan §19): weights sum to 1 so CTS stays in [0, 1] ──
    w_compilation: float = Field(default=0.45, ge=0.0, le=1.0, description="Weight of the compiled fraction.")
    w_correctness: float = Field(default=0.30, ge=0.0, le=1.0, description="Weight of agreement with consensus.")
    w_completeness: float = Field(default=0.15, ge=0.0, le=1.0, description="Weight of the translated fraction.")
    w_efficiency: float = Field(default=0.10, ge=0.0, le=1.0, description="Weight of the time score.")
    suspicious_ratio: float = Field(
        default=0.02, gt=0.0, lt=1.0,
        description="Answers faster than this fraction of the timeout look cached or precomputed (plan: 2 %).",
    )
    suspicious_efficiency: float = Field(
        default=0.1, ge=0.0, le=1.0, description="Efficiency given to suspiciously fast answers (plan: 0.1)."
    )
    efficiency_slope: float = Field(
        default=0.4, ge=0.0, le=1.0,
        description="Efficiency = 1 − slope·(time/timeout) inside the window; 0.4 leaves 0.6 at the deadline.",
    )

    # ── PEB (Eq. 4): α·(1/rank)·√streak for the top K ──
    alpha: float = Field(
        default=0.2, ge=0.0,
        description="PEB scale. With the streak cap below the largest bonus is 0.2·1·√16 = 0.8 (rank 1 after "
        "16 straight top-K epochs), so consistency can nearly double a reward but never outweighs a "
        "better score for long: rank 2 tops out at 0.4, rank 10 at 0.08.",
    )
    rank_tolerance: float = Field(
        default=0.002, ge=0.0, le=0.1,
        description="Epoch scores closer than this share a rank (a departure from the seed, which ranks exact "
        "scores). 0.002 is a CTS difference of 0.001 on every task at the largest difficulty multiplier (2.0): "
        "the size of answer-time noise (a 1 s jitter on a 60 s timeout moves Efficiency by 0.0067, CTS by "
        "0.00067). Without it PEB = α·(1/rank)·√streak turns that noise into a 20 % weight gap between miners "
        "that did the same work; with it they share a rank and a PEB, and their weights differ only by their "
        "scores.",
    )
    top_k: int = Field(
        default=10, ge=1,
        description="Only the top 10 ranks earn a bonus: wide enough that several good miners build "
        "streaks, narrow enough that the bonus marks excellence rather than participation.",
    )
    streak_cap: int = Field(
        default=16, ge=1,
        description="√streak stops growing after 16 epochs (√16 = 4): a newcomer can catch an incumbent "
        "within 16 epochs, and the bonus cannot compound without bound.",
    )

    # ── traps (Eq. 9) and slashing (Eq. 10) ──
    theta: float = Field(
        default=0.8, gt=0.0, le=1.0,
        description="Threshold for trap accuracy and validator agreement (VAS). 0.8 tolerates an honest "
        "miner's occasional mistranslation (about 1 step in 5) while a miner that guesses (≈0.5) loses "
        "about 40 % of its epoch score and a vacuous one (≈0.1) almost all of it.",
    )
    gamma: float = Field(
        default=0.5, ge=0.0, le=1.0,
        description="Slash rate. Slash = γ·stake·(θ − VAS)², so even a validator that agrees with nobody "
        "(VAS = 0) loses at most 0.5·0.8² = 32 % of its stake, while a small miss (VAS 0.7) costs 0.5 %.",
    )

    # ── difficulty (Eq. 3) ──
    difficulty_multipliers: tuple[float, ...] = Field(
        default_factory=_linear_difficulty,
        description="D(t) for difficulty 1..10, default linear 1.0 → 2.0: a hardest chain is worth twice an "
        "easiest one, enough to pay for its longer translation and higher failure rate without letting one "
        "hard task dominate an epoch's mean.",
    )

    # ── emission (Eq. 5) ──
    miner_emission_share: float = Field(
        default=0.41, ge=0.0, le=1.0,
        description="E_miner as a share of the subnet's emission: 82 % left after the 18 % owner cut, "
        "half of it to miners (the other half to validators).",
    )

    @model_validator(mode="after")
    def _check(self) -> IncentiveSettings:
        total = self.w_compilation + self.w_correctness + self.w_completeness + self.w_efficiency
        if abs(total - 1.0) > 1e-9:
            raise ValueError(f"the four CTS weights must sum to 1 so CTS stays in [0, 1]; they sum to {total}")
        if len(self.difficulty_multipliers) != MAX_DIFFICULTY:
            raise ValueError(
                f"difficulty_multipliers needs one value per difficulty 1..{MAX_DIFFICULTY}, "
                f"got {len(self.difficulty_multipliers)}"
            )
        if any(not (m > 0.0) for m in self.difficulty_multipliers):
            raise ValueError("difficulty_multipliers must all be positive")
        return self


DEFAULT_INCENTIVE = IncentiveSettings()
"""The defaults above; frozen, so sharing one instance is safe."""

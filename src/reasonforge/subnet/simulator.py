"""Incentive simulator: honest and adversarial miner profiles through consensus and the scoring maths.

No network and no real verification: each profile's submissions are drawn from a behaviour model
(`profiles.py`), then everything after that is the production code path: duplicate submissions are
dropped, `credit` decides which translations held against the majority of the miners that decided each
step (`consensus.decided_majority`; a modelled artifact that proves nothing decides nothing, so there is
no null verdict to discount), CTS (`gated_cts`), trap penalties, S_epoch, ranks, streaks, PEB and
emissions come from `reasonforge.incentive`, and `yuma_epoch` shows what the chain would pay with three
honest validators and, by default, one careless validator that sets weights without
verifying: consensus clips it, its validator trust (its agreement score, VAS) stays low, and it is
slashed γ·stake·(θ − VAS)² every epoch, the slashed stake leaving the validator set.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from pydantic import BaseModel, Field

from reasonforge.chain import build_verdict
from reasonforge.errors import InputError
from reasonforge.incentive import (
    DEFAULT_INCENTIVE,
    MAX_DIFFICULTY,
    IncentiveSettings,
    epoch_score,
    gated_cts,
    slash,
    standings,
    trap_penalty,
    yuma_epoch,
)
from reasonforge.subnet.credit import consensus_reference, credit, decisions, truth_reference
from reasonforge.subnet.profiles import CROWD, PROFILES, Behaviour, SimTask, Submission
from reasonforge.types import (
    Domain,
    Evidence,
    EvidenceKind,
    Formaliser,
    ProofLevel,
    StepStatus,
    StepVerdict,
    VerificationVerdict,
)

VALIDATOR_STAKES = (0.5, 0.3, 0.2)
"""Three honest validators for the Yuma step; they verify mechanically, so they all set the same weights."""

CARELESS_STAKE = 0.1
"""Default stake share of the careless validator (random weights each epoch); 0 leaves only honest ones."""

STEPS_RANGE = (3, 8)
"""Steps per simulated reasoning chain (inclusive)."""

TIMEOUT_S_RANGE = (60, 300)
"""Per-task timeout in seconds (inclusive); 300 s is `TranslationTask.timeout_seconds`' default."""

VALID_STEP_RATE = 0.85
"""Share of steps that are truly valid: most reasoning is right, some chains contain an error."""


class ProfileResult(BaseModel):
    """Outcome for one profile over the run (for a group of miners: rewards summed, means averaged)."""

    miners: int = Field(description="Miners behind this profile (2 for the sybil pair).")
    total_reward: float = Field(description="Emission earned by the scoring maths, summed over the group.")
    chain_reward: float = Field(description="What Yuma consensus over the simulated validators pays the group.")
    mean_cts: float
    mean_epoch_score: float
    final_streak: int = Field(description="Consecutive top-K epochs at the end (the best in the group).")
    trap_accuracy: float | None = Field(description="Mean trap score; None when no trap task was drawn.")
    cumulative_reward: list[float] = Field(description="Cumulative total_reward after each epoch.")
    weights: list[float] = Field(default_factory=list, description="Weight set each epoch (summed over the group).")
    epoch_cts: list[float] = Field(default_factory=list, description="Mean CTS each epoch (over the group's tasks).")


class ValidatorResult(BaseModel):
    """One simulated validator over the run."""

    careless: bool = Field(description="Sets random weights instead of verifying.")
    stake_start: float
    stake_end: float = Field(description="Stake left after slashing.")
    mean_vas: float = Field(description="Mean validator agreement score (Yuma validator trust, 1 = consensus).")
    slashed: float = Field(description="Stake lost to slash(stake, VAS) over the run.")
    dividends: float = Field(description="Validator emission earned over the run.")


class SimulationReport(BaseModel):
    """A whole simulated run: parameters, settings and one result per profile."""

    epochs: int
    seed: int
    tasks_per_epoch: int
    trap_rate: float
    crowd_miners: int
    miner_emission_per_epoch: float
    settings: IncentiveSettings
    profiles: dict[str, ProfileResult]
    crowd: ProfileResult | None = Field(description="The unreported honest background miners, summed.")
    validators: dict[str, ValidatorResult] = Field(default_factory=dict)


@dataclass
class _Ledger:
    """Per-miner running totals."""

    rewards: list[float] = field(default_factory=list)
    chain: list[float] = field(default_factory=list)
    weights: list[float] = field(default_factory=list)
    epoch_cts: list[float] = field(default_factory=list)
    cts: list[float] = field(default_factory=list)
    epoch_scores: list[float] = field(default_factory=list)
    traps: list[float] = field(default_factory=list)
    streak: int = 0


def _is_number(value: object) -> bool:
    return isinstance(value, int | float | np.integer | np.floating) and not isinstance(value, bool)


def _check_args(
    epochs: int, seed: int, tasks_per_epoch: int, trap_rate: float, crowd: int, epoch_emission: float
) -> None:
    """Refuse arguments the simulation cannot honour, naming the argument."""
    counts = (("epochs", epochs, 1), ("seed", seed, 0), ("tasks_per_epoch", tasks_per_epoch, 1), ("crowd", crowd, 0))
    for name, value, low in counts:
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < low:
            raise InputError(f"{name} must be an integer ≥ {low}, got {value!r}", field=name)
    if not _is_number(trap_rate) or not 0.0 <= trap_rate <= 1.0:
        raise InputError(f"trap_rate must be a fraction in [0, 1], got {trap_rate!r}", field="trap_rate")
    if not _is_number(epoch_emission) or not np.isfinite(epoch_emission) or epoch_emission < 0:
        raise InputError(
            f"epoch_emission must be a finite number ≥ 0, got {epoch_emission!r}", field="epoch_emission"
        )


def _task(index: int, rng: np.random.Generator, trap_rate: float) -> SimTask:
    steps = int(rng.integers(STEPS_RANGE[0], STEPS_RANGE[1] + 1))
    return SimTask(
        index=index,
        difficulty=int(rng.integers(1, MAX_DIFFICULTY + 1)),
        timeout_ms=float(rng.integers(TIMEOUT_S_RANGE[0], TIMEOUT_S_RANGE[1] + 1)) * 1000.0,
        truth=rng.random(steps) < VALID_STEP_RATE,
        # Traps are drawn from the same distribution as real tasks, so miners cannot tell them apart.
        trap=bool(rng.random() < trap_rate),
    )


def _status(sub: Submission, i: int) -> StepStatus:
    if sub.verified[i]:
        return StepStatus.VERIFIED
    if sub.refuted[i]:
        return StepStatus.FAILED
    # compiled but settling nothing (a vacuous artifact), or not compiled at all
    return StepStatus.UNSUPPORTED if sub.compiled[i] else StepStatus.ERROR


def _verdict(task_id: str, sub: Submission) -> VerificationVerdict:
    """The validator's verdict on one miner's artifacts; untranslated steps are simply absent."""
    steps = [
        StepVerdict(step_id=i + 1, verified=bool(ok), status=_status(sub, i), evidence=_SIMULATED if ok else None)
        for i, ok in enumerate(sub.verified)
        if sub.translated[i]
    ]
    return build_verdict(steps, domain=Domain.MATHEMATICS, proof_level=ProofLevel.STANDARD, task_id=task_id)


# A simulated step has no text to align: its checker's verdict is all there is, and the simulation says so.
_SIMULATED = Evidence(kind=EvidenceKind.CLAIM, aligned_claim="a simulated step's claim", formaliser=Formaliser.ARTIFACT,
                      note="simulated: the miner's artifact was drawn as verifying, no checker ran")


def _accepted(task: SimTask, subs: dict[int, Submission]) -> dict[int, Submission]:
    """Answers the validator scores: on time, and for identical artifacts only the earliest copy."""
    on_time = {uid: s for uid, s in subs.items() if s.time_ms <= task.timeout_ms}
    first: dict[object, int] = {}
    for uid in sorted(on_time, key=lambda u: (on_time[u].time_ms, u)):
        first.setdefault(on_time[uid].content, uid)
    return {uid: on_time[uid] for uid in first.values()}


def _score_task(
    task: SimTask, subs: dict[int, Submission], settings: IncentiveSettings
) -> tuple[dict[int, float], dict[int, float]]:
    """CTS per miner (0 for late or duplicate answers) and, on a trap, each miner's trap score."""
    accepted = _accepted(task, subs)
    task_id = f"sim-{task.index}"
    n = len(task.truth)
    translated = {uid: [i + 1 for i in range(n) if sub.translated[i]] for uid, sub in accepted.items()}
    # A modelled artifact that proves nothing decides nothing, so there is no null verdict to discount.
    decided = {uid: decisions(_verdict(task_id, sub), None, translated[uid]) for uid, sub in accepted.items()}
    # On a trap the ground truth is the reference; in this model every invalid step is refuted by a faithful
    # translation.
    reference = (truth_reference({i + 1: bool(ok) for i, ok in enumerate(task.truth)},
                                 [i + 1 for i, ok in enumerate(task.truth) if not ok])
                 if task.trap else consensus_reference(decided.values()))
    scores: dict[int, float] = {}
    traps: dict[int, float] = {}
    for uid in subs:
        sub = accepted.get(uid)
        if sub is None or uid not in decided:
            scores[uid] = 0.0
        else:
            got = credit(decided[uid], len(translated[uid]), {i + 1: bool(sub.compiled[i]) for i in range(n)},
                         reference)
            scores[uid] = gated_cts(n, got.translated, got.decided, got.held, got.compiled_held, sub.time_ms,
                                    task.timeout_ms, settings)
        if task.trap:
            # Ground truth is known for traps: score = share of steps the miner's verdict gets right.
            traps[uid] = 0.0 if sub is None else float(np.mean(sub.verified == task.truth))
    return scores, traps


def _group(ledgers: list[_Ledger]) -> ProfileResult:
    rewards = np.sum([lg.rewards for lg in ledgers], axis=0)
    traps = [t for lg in ledgers for t in lg.traps]
    return ProfileResult(
        miners=len(ledgers),
        total_reward=float(rewards.sum()),
        chain_reward=float(sum(sum(lg.chain) for lg in ledgers)),
        mean_cts=float(np.mean([c for lg in ledgers for c in lg.cts])),
        mean_epoch_score=float(np.mean([s for lg in ledgers for s in lg.epoch_scores])),
        final_streak=max(lg.streak for lg in ledgers),
        trap_accuracy=float(np.mean(traps)) if traps else None,
        cumulative_reward=np.cumsum(rewards).tolist(),
        weights=np.sum([lg.weights for lg in ledgers], axis=0).tolist(),
        epoch_cts=np.mean([lg.epoch_cts for lg in ledgers], axis=0).tolist(),
    )


def simulate(
    epochs: int = 100,
    seed: int = 0,
    settings: IncentiveSettings = DEFAULT_INCENTIVE,
    tasks_per_epoch: int = 8,
    trap_rate: float = 0.2,
    crowd: int = 8,
    epoch_emission: float = 1.0,
    careless_stake: float = CARELESS_STAKE,
    profiles: Sequence[tuple[str, Sequence[tuple[str, Behaviour]]]] = PROFILES,
) -> SimulationReport:
    """Run `epochs` epochs of every profile plus `crowd` honest background miners; deterministic per seed.

    `profiles` (name → (miner label, behaviour) pairs, in answering order) defaults to `profiles.PROFILES`.

    The crowd stands for the rest of a real subnet: majority consensus assumes most translators are
    honest, while the seven profiles alone are five adversarial miners out of eight (crowd=0 shows
    that network: consensus then rejects about 60 % of truly valid steps, against about 12 % with the
    default crowd of 8, seed 0). `epoch_emission` is the subnet's
    emission per epoch; miners share `settings.miner_emission_share` of it.
    """
    _check_args(epochs, seed, tasks_per_epoch, trap_rate, crowd, epoch_emission)
    if not _is_number(careless_stake) or not 0.0 <= careless_stake < 0.5:
        # At half the stake or more a careless validator would be the consensus, not an outlier.
        raise InputError(f"careless_stake must be in [0, 0.5), got {careless_stake!r}", field="careless_stake")
    epochs, seed, tasks_per_epoch, crowd = int(epochs), int(seed), int(tasks_per_epoch), int(crowd)
    rng = np.random.default_rng(seed)
    careless_rng = np.random.default_rng([seed, 1])  # its own stream: miners' draws stay as without it
    miners: list[tuple[str, str, Behaviour]] = [
        (name, label, behaviour) for name, members in profiles for label, behaviour in members
    ]
    miners += [("crowd", f"crowd/{i}", CROWD) for i in range(crowd)]
    ledgers = [_Ledger() for _ in miners]
    pool = settings.miner_emission_share * float(epoch_emission)
    names = [f"honest/{i}" for i in range(len(VALIDATOR_STAKES))]
    stakes = np.asarray(VALIDATOR_STAKES, dtype=float) * (1.0 - careless_stake)
    if careless_stake > 0:
        names.append("careless")
        stakes = np.append(stakes, careless_stake)
    start = stakes.copy()
    vas_sum, slashed, dividends = np.zeros(len(stakes)), np.zeros(len(stakes)), np.zeros(len(stakes))
    bonds: np.ndarray | None = None

    for epoch in range(epochs):
        task_cts: list[list[float]] = [[] for _ in miners]
        difficulties: list[int] = []
        trap_scores: list[list[float]] = [[] for _ in miners]
        for t in range(tasks_per_epoch):
            task = _task(epoch * tasks_per_epoch + t, rng, trap_rate)
            seen: dict[str, Submission] = {}
            subs: dict[int, Submission] = {}
            for uid, (_, label, behaviour) in enumerate(miners):
                subs[uid] = seen[label] = behaviour(task, rng, seen, label)
            scores, traps = _score_task(task, subs, settings)
            difficulties.append(task.difficulty)
            for uid in subs:
                task_cts[uid].append(scores[uid])
                if uid in traps:
                    trap_scores[uid].append(traps[uid])

        epoch_scores = {
            uid: epoch_score(task_cts[uid], difficulties, trap_penalty(trap_scores[uid], settings), settings)
            for uid in range(len(miners))
        }
        placed = standings(epoch_scores, {uid: ledger.streak for uid, ledger in enumerate(ledgers)}, pool, settings)
        for uid, ledger in enumerate(ledgers):
            ledger.streak = placed[uid].streak
        paid = {uid: standing.reward for uid, standing in placed.items()}
        vector = np.asarray([placed[uid].weight for uid in range(len(miners))])
        rows = np.tile(vector, (len(stakes), 1))
        if careless_stake > 0:
            rows[-1] = careless_rng.dirichlet(np.ones(len(miners)))
        chain = yuma_epoch(rows, stakes, bonds, float(epoch_emission))
        bonds = chain.bonds
        vas = np.clip(chain.validator_trust, 0.0, 1.0)
        cut = np.asarray([slash(float(st), float(v), settings) for st, v in zip(stakes, vas, strict=True)])
        vas_sum += vas
        slashed += cut
        dividends += chain.validator_emission
        stakes = stakes - cut
        for uid, ledger in enumerate(ledgers):
            ledger.rewards.append(paid[uid])
            ledger.weights.append(placed[uid].weight)
            ledger.epoch_cts.append(float(np.mean(task_cts[uid])))
            ledger.chain.append(float(chain.miner_emission[uid]))
            ledger.cts.extend(task_cts[uid])
            ledger.epoch_scores.append(epoch_scores[uid])
            ledger.traps.extend(trap_scores[uid])

    groups: dict[str, list[_Ledger]] = {}
    for (name, _, _), ledger in zip(miners, ledgers, strict=True):
        groups.setdefault(name, []).append(ledger)
    crowd_ledgers = groups.pop("crowd", [])
    return SimulationReport(
        epochs=epochs,
        seed=seed,
        tasks_per_epoch=tasks_per_epoch,
        trap_rate=float(trap_rate),
        crowd_miners=crowd,
        miner_emission_per_epoch=pool,
        settings=settings,
        profiles={name: _group(members) for name, members in groups.items()},
        crowd=_group(crowd_ledgers) if crowd_ledgers else None,
        validators={
            name: ValidatorResult(careless=name == "careless", stake_start=float(start[v]),
                                  stake_end=float(stakes[v]), mean_vas=float(vas_sum[v] / epochs),
                                  slashed=float(slashed[v]), dividends=float(dividends[v]))
            for v, name in enumerate(names)
        },
    )


def plot_rewards(report: SimulationReport, path: Path) -> Path:
    """Write a PNG of each profile's cumulative reward per epoch (one line per profile); returns `path`."""
    # The object-oriented API with the Agg canvas: no pyplot, so no global backend or figure state.
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure = Figure(figsize=(8, 5), dpi=100)
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    epochs = np.arange(1, report.epochs + 1)
    for name, result in report.profiles.items():
        label = f"{name} (×{result.miners}, combined)" if result.miners > 1 else name
        axes.plot(epochs, result.cumulative_reward, label=label)
    axes.set_xlabel("epoch")
    axes.set_ylabel("cumulative reward (TAO)")
    axes.set_title(f"ReasonForge incentive simulation (seed {report.seed}, {report.crowd_miners} crowd miners)")
    axes.grid(alpha=0.3)
    axes.legend(loc="upper left")
    figure.savefig(path, format="png")
    return path

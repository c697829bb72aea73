"""The incentive simulator: honest skill is rewarded in order and every attack earns less than honesty."""

import json

import numpy as np
import pytest

from reasonforge.errors import InputError
from reasonforge.incentive import IncentiveSettings
from reasonforge.subnet.profiles import HONEST, PROFILES, Submission, work
from reasonforge.subnet.simulator import SimulationReport, plot_rewards, simulate

ADVERSARIES = ("copycat", "vacuous", "timeout_gamer", "sybil")


@pytest.mark.parametrize("seed", [0, 1])
def test_hundred_epochs_rank_honesty_above_every_attack(seed):
    report = simulate(epochs=100, seed=seed)
    reward = {name: result.total_reward for name, result in report.profiles.items()}
    assert set(reward) == {"elite", "honest", "lazy", *ADVERSARIES}
    assert reward["elite"] > reward["honest"] > reward["lazy"]
    for name in ADVERSARIES:
        assert reward[name] < reward["honest"], (name, reward)
    assert report.profiles["sybil"].miners == 2  # the pair's combined reward
    # Traps separate those who verify from those who do not.
    honest_traps = report.profiles["honest"].trap_accuracy
    assert report.profiles["elite"].trap_accuracy > honest_traps
    for name in ("vacuous", "copycat", "timeout_gamer"):
        assert report.profiles[name].trap_accuracy < honest_traps


def test_same_seed_same_report_other_seed_other_report():
    first = simulate(epochs=5, seed=3)
    assert simulate(epochs=5, seed=3).model_dump() == first.model_dump()
    assert simulate(epochs=5, seed=4).model_dump() != first.model_dump()


def test_report_accounts_for_all_emission_and_matches_the_chain():
    report = simulate(epochs=12, seed=2, crowd=4, epoch_emission=2.0, careless_stake=0.0)
    assert report.miner_emission_per_epoch == pytest.approx(0.82)
    results = [*report.profiles.values(), report.crowd]
    assert report.crowd.miners == 4
    # every epoch somebody scores, so the whole miner pool is paid out
    assert sum(r.total_reward for r in results) == pytest.approx(12 * 0.82)
    for result in results:
        assert len(result.cumulative_reward) == 12
        assert result.cumulative_reward == sorted(result.cumulative_reward)
        assert result.cumulative_reward[-1] == pytest.approx(result.total_reward)
        # three honest validators that agree: Yuma pays exactly the weights
        assert result.chain_reward == pytest.approx(result.total_reward)
        assert 0.0 <= result.mean_cts <= 1.0


def test_report_serialises_as_profiles_mapping():
    report = simulate(epochs=3, seed=0)
    data = report.model_dump(mode="json")
    text = json.dumps(data)
    assert isinstance(data["profiles"]["elite"]["total_reward"], float)
    assert data["epochs"] == 3 and data["seed"] == 0
    assert data["settings"]["alpha"] == IncentiveSettings().alpha
    assert SimulationReport.model_validate_json(text) == report


def test_without_traps_there_is_no_trap_accuracy():
    report = simulate(epochs=3, seed=0, trap_rate=0.0, crowd=0)
    assert report.crowd is None
    assert all(r.trap_accuracy is None for r in report.profiles.values())


def test_plot_is_a_png(tmp_path):
    report = simulate(epochs=4, seed=0)
    path = plot_rewards(report, tmp_path / "plots" / "rewards.png")
    assert path == tmp_path / "plots" / "rewards.png"
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"epochs": 0}, "epochs"),
        ({"seed": -1}, "seed"),
        ({"tasks_per_epoch": 0}, "tasks_per_epoch"),
        ({"trap_rate": 1.5}, "trap_rate"),
        ({"crowd": -2}, "crowd"),
        ({"epochs": 2.5}, "epochs"),
        ({"epoch_emission": float("nan")}, "epoch_emission"),
    ],
)
def test_bad_simulation_arguments_are_refused(kwargs, field):
    with pytest.raises(InputError) as info:
        simulate(**kwargs)
    assert info.value.field == field


def test_careless_validator_is_clipped_and_slashed_while_honest_ones_keep_their_stake():
    report = simulate(epochs=30, seed=5)
    careless = report.validators["careless"]
    honest = [v for name, v in report.validators.items() if name.startswith("honest/")]
    assert careless.careless and len(honest) == 3
    assert all(v.mean_vas == pytest.approx(1.0) and v.slashed == 0.0 and v.stake_end == v.stake_start for v in honest)
    theta = report.settings.theta
    assert careless.mean_vas < theta and careless.slashed > 0.5 * careless.stake_start
    assert careless.stake_end == pytest.approx(careless.stake_start - careless.slashed)
    # per unit of stake, not verifying earns a fraction of what verifying earns
    per_stake = min(v.dividends / v.stake_start for v in honest)
    assert careless.dividends / careless.stake_start < 0.5 * per_stake
    # consensus clips the random weights: miners are paid within a few percent of the formula
    for result in report.profiles.values():
        assert result.chain_reward == pytest.approx(result.total_reward, rel=0.05, abs=0.02)


def test_careless_stake_must_stay_a_minority():
    with pytest.raises(InputError, match="careless_stake"):
        simulate(epochs=2, careless_stake=0.5)


def test_fifty_epochs_pay_the_vacuous_and_the_copying_miner_nothing_in_any_epoch():
    for seed in (0, 1):
        report = simulate(epochs=50, seed=seed)
        for name in ("vacuous", "copycat"):
            result = report.profiles[name]
            assert len(result.weights) == 50 and set(result.weights) == {0.0}, (seed, name)
            assert result.total_reward == 0.0 and result.chain_reward == pytest.approx(0.0, abs=1e-9)
        # everyone else who does work of their own is paid in most epochs
        for name in ("elite", "honest", "lazy"):
            assert sum(w > 0 for w in report.profiles[name].weights) >= 45, (seed, name)


def _same_engine(task, rng, _seen, label):
    """Two miners running one deterministic translator: the same artifacts' outcome (drawn from the task alone)
    under their own labels, answer times a second apart at most."""
    work_rng = np.random.default_rng([7, task.index])
    done = work(HONEST, task, work_rng, (label, task.index))
    jitter = float(rng.uniform(-1000.0, 1000.0))
    return Submission(done.content, done.time_ms + jitter, done.translated, done.compiled, done.verified, done.refuted)


def test_fifty_epochs_give_miners_whose_cts_differ_by_less_than_a_thousandth_weights_within_one_percent():
    profiles = (("twin-a", (("twin/a", _same_engine),)), ("twin-b", (("twin/b", _same_engine),)), *PROFILES)
    report = simulate(epochs=50, seed=4, profiles=profiles)
    a, b = report.profiles["twin-a"], report.profiles["twin-b"]
    close = [e for e in range(50) if abs(a.epoch_cts[e] - b.epoch_cts[e]) < 0.001]
    assert len(close) == 50  # timing noise only
    for e in close:
        assert abs(a.weights[e] - b.weights[e]) <= 0.01 * max(a.weights[e], b.weights[e]), e
    assert sum(w > 0 for w in a.weights) >= 45  # (an epoch whose trap they both miss pays neither)
    assert report.profiles["vacuous"].weights == [0.0] * 50 and report.profiles["copycat"].weights == [0.0] * 50

"""`reasonforge subnet …`: a local subnet end to end (`localnet`) and the incentive simulation (`simulate`).

Exit codes as in the main CLI: 0 ok, 2 a usage or setup error (a message, no traceback), 130 interrupted.
Heavy modules (bittensor, FastAPI, NumPy, matplotlib) load inside the commands so `reasonforge --help` stays fast.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from reasonforge.cli_errors import ReasonForgeTyper, fail

if TYPE_CHECKING:
    from reasonforge.subnet.localnet import Localnet
    from reasonforge.subnet.simulator import SimulationReport
    from reasonforge.subnet.state import EpochReport

app = ReasonForgeTyper(name="subnet", help="The Bittensor subnet: a local network of miners and a validator, and the "
                       "incentive simulation.", no_args_is_help=True, add_completion=False,
                       pretty_exceptions_enable=False)

EXIT_INTERRUPTED = 130


class Level(str, Enum):
    quick = "quick"
    standard = "standard"
    formal = "formal"


def _domains(values: list[str] | None) -> list[str] | None:
    """`--domains logic,mathematics` (comma list or repeated) as domain names, checked."""
    from reasonforge.types import Domain

    if not values:
        return None
    names = [part.strip() for value in values for part in value.split(",") if part.strip()]
    known = {d.value for d in Domain}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise fail(f"unknown domain(s) {', '.join(unknown)}; use {', '.join(sorted(known))}")
    return names


def _fmt(value: float | None, digits: int = 4) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _epoch_json(report: EpochReport, net: Localnet) -> str:
    """One line per epoch: epoch, weights and per-miner figures keyed by uid."""
    miners = report.miners
    line = {
        "epoch": report.epoch,
        "weights": {str(uid): w for uid, w in sorted(report.weights.items())},
        "cts": {str(uid): m.cts_mean for uid, m in sorted(miners.items())},
        "epoch_score": {str(uid): m.epoch_score for uid, m in sorted(miners.items())},
        "rank": {str(uid): m.rank for uid, m in sorted(miners.items())},
        "streak": {str(uid): m.streak for uid, m in sorted(miners.items())},
        "trap_score": {str(uid): m.trap_score for uid, m in sorted(miners.items())},
        "answered": {str(uid): m.answered for uid, m in sorted(miners.items())},
        "queried": {str(uid): m.tasks for uid, m in sorted(miners.items())},
        "profile": {str(uid): net.profile_of(uid) for uid in sorted(miners)},
        "tasks": report.tasks,
        "traps": report.traps,
        "set_weights": report.set_weights.model_dump(mode="json") if report.set_weights else None,
        "notified": report.notified,
        "resumed": report.resumed,
        "elapsed_s": report.elapsed_s,
    }
    return json.dumps(line, sort_keys=False)


def _epoch_table(report: EpochReport, net: Localnet) -> Table:
    title = (f"epoch {report.epoch} — {report.tasks} tasks ({report.traps} trap), {report.elapsed_s:.1f} s"
             + (" (resumed after a restart)" if report.resumed else ""))
    table = Table(title=title, title_justify="left")
    for name in ("uid", "profile", "answered", "mean CTS", "epoch score", "rank", "streak", "trap score", "weight"):
        table.add_column(name, justify="left" if name == "profile" else "right")
    for uid, m in sorted(report.miners.items()):
        table.add_row(str(uid), net.profile_of(uid), f"{m.answered}/{m.tasks}", _fmt(m.cts_mean), _fmt(m.epoch_score),
                      str(m.rank) if m.rank is not None else "-", str(m.streak), _fmt(m.trap_score), _fmt(m.weight))
    result = report.set_weights
    if result is not None:
        table.caption = (f"set_weights: {'ok' if result.success else 'not set'} at block {result.block} "
                         f"({escape(result.message)}); {report.notified} miners notified")
    return table


@app.command()
def localnet(
    miners: Annotated[int, typer.Option("--miners", min=1, max=64, help="Miner processes to start.")] = 6,
    epochs: Annotated[
        int, typer.Option("--epochs", min=1, help="Run until this many epochs are complete in total.")
    ] = 5,
    json_out: Annotated[bool, typer.Option("--json", help="One JSON object per epoch line instead of tables.")] = False,
    directory: Annotated[Path | None, typer.Option("--dir", help="Folder for the chain, the validator state and "
                                                      "the miner logs (default: a new temporary folder). Reusing "
                                                      "it continues from the saved state.")] = None,
    seed: Annotated[int, typer.Option("--seed", help="Task draw seed.")] = 0,
    resume: Annotated[bool, typer.Option("--resume", help="Require --dir to hold a localnet and continue it.")] = False,
    tasks: Annotated[int, typer.Option("--tasks", min=1, max=32, help="Tasks per epoch (traps included).")] = 3,
    traps: Annotated[int, typer.Option("--traps", min=0, max=32, help="Trap tasks per epoch.")] = 1,
    level: Annotated[Level, typer.Option("--level", help="Proof level of every task.")] = Level.quick,
    domains: Annotated[list[str] | None, typer.Option("--domains", help="Task domains (comma list or repeated; "
                                                         "default all). Code tasks are the slowest to verify.")] = None,
    timeout: Annotated[int, typer.Option("--timeout", min=5, max=3600, help="Seconds a miner has per task.")] = 60,
) -> None:
    """Run a subnet on this machine: one validator, N miner processes on loopback, an in-memory chain."""
    from reasonforge.subnet.localnet import Localnet
    from reasonforge.types import ProofLevel

    if traps > tasks:
        raise fail(f"--traps ({traps}) cannot exceed --tasks ({tasks})")
    if resume and (directory is None or not (directory / "localnet.json").exists()):
        where = "no --dir given" if directory is None else f"{directory} holds no localnet"
        raise fail(f"--resume needs a --dir from an earlier run ({where})")
    chosen = _domains(domains)
    console = Console(stderr=json_out)
    temporary: tempfile.TemporaryDirectory[str] | None = None
    if directory is None:
        temporary = tempfile.TemporaryDirectory(prefix="reasonforge-localnet-")
        directory = Path(temporary.name)
    folder = directory
    try:
        net = Localnet(folder, miners=miners, seed=seed, tasks_per_epoch=tasks, traps_per_epoch=traps,
                       proof_level=ProofLevel(level.value), domains=chosen, timeout_seconds=timeout,
                       log=lambda message: console.print(f"[dim]{escape(message)}[/]", highlight=False))
        if net.resuming:
            console.print(f"[dim]resuming the localnet in {escape(str(folder))} after epoch "
                          f"{net.completed_epochs()}[/]", highlight=False)
        with net:
            def show(report: EpochReport) -> None:
                if json_out:
                    print(_epoch_json(report, net), flush=True)
                else:
                    console.print(_epoch_table(report, net))

            asyncio.run(net.run(epochs, on_report=show))
    except KeyboardInterrupt:
        hint = "rerun with the same --dir to resume" if temporary is None else "pass --dir to keep a resumable net"
        Console(stderr=True).print(f"[yellow]interrupted[/]: miners stopped; {hint}")
        raise typer.Exit(EXIT_INTERRUPTED) from None
    finally:
        if temporary is not None:
            temporary.cleanup()


def _simulation_table(report: SimulationReport) -> Table:
    table = Table(title=f"incentive simulation — {report.epochs} epochs, seed {report.seed}, "
                  f"{report.crowd_miners} honest crowd miners", title_justify="left")
    for name in ("profile", "miners", "total reward", "chain reward", "mean CTS", "mean S_epoch", "trap accuracy",
                 "final streak"):
        table.add_column(name, justify="left" if name == "profile" else "right")
    for name, result in report.profiles.items():
        table.add_row(name, str(result.miners), _fmt(result.total_reward), _fmt(result.chain_reward),
                      _fmt(result.mean_cts), _fmt(result.mean_epoch_score), _fmt(result.trap_accuracy),
                      str(result.final_streak))
    return table


def _validator_table(report: SimulationReport) -> Table:
    table = Table(title="validators (Yuma; slash = γ·stake·(θ − VAS)² when VAS < θ)", title_justify="left")
    for name in ("validator", "stake start", "stake end", "mean VAS", "slashed", "dividends"):
        table.add_column(name, justify="left" if name == "validator" else "right")
    for name, v in report.validators.items():
        table.add_row(name, _fmt(v.stake_start), _fmt(v.stake_end), _fmt(v.mean_vas), _fmt(v.slashed),
                      _fmt(v.dividends))
    return table


@app.command()
def simulate(
    epochs: Annotated[int, typer.Option("--epochs", min=1, help="Epochs to simulate.")] = 100,
    seed: Annotated[int, typer.Option("--seed", min=0, help="Random seed (the run is deterministic per seed).")] = 0,
    json_out: Annotated[bool, typer.Option("--json", help="Print the whole report as one JSON object.")] = False,
    plot: Annotated[Path | None, typer.Option("--plot", help="Write a PNG of cumulative rewards here.")] = None,
    tasks: Annotated[int, typer.Option("--tasks", min=1, help="Tasks per epoch.")] = 8,
    trap_rate: Annotated[float, typer.Option("--trap-rate", min=0.0, max=1.0, help="Share of trap tasks.")] = 0.2,
    crowd: Annotated[int, typer.Option("--crowd", min=0, help="Honest background miners.")] = 8,
    careless: Annotated[float, typer.Option(
        "--careless-stake", min=0.0, max=0.49, help="Stake share of a validator that sets random weights (0: none)."
    )] = 0.1,
) -> None:
    """Run the miner profiles (elite, honest, lazy, copycat, vacuous, timeout_gamer, sybil) through the maths."""
    from reasonforge.subnet.simulator import plot_rewards
    from reasonforge.subnet.simulator import simulate as run_simulation

    try:
        report = run_simulation(epochs=epochs, seed=seed, tasks_per_epoch=tasks, trap_rate=trap_rate, crowd=crowd,
                                careless_stake=careless)
        written = plot_rewards(report, plot) if plot is not None else None
    except OSError as exc:
        raise fail(f"cannot write the plot to {plot}: {exc.strerror or exc}") from None
    if json_out:
        print(json.dumps(report.model_dump(mode="json")))
        return
    console = Console()
    console.print(_simulation_table(report))
    if report.validators:
        console.print(_validator_table(report))
    if written is not None:
        console.print(f"cumulative rewards plotted to {escape(str(written))}", highlight=False)

"""A validator as a long-running process on a file-backed local chain: `python -m reasonforge.subnet.validator_main`.

It registers its hotkey with a validator permit (or re-uses its registration), then runs an epoch every
`--interval` seconds (or `--epochs N` and exits): tasks drawn from its own secret seed, sent to every serving
miner, verified, scored, weights set. Its state file survives restarts, so a validator stopped between scoring
and setting weights finishes that epoch first when it starts again. With `--block-time` the chain's blocks pass
in real time (bittensor's 12 s); without it the validator advances the chain past the weights rate limit before
each epoch, as the localnet does. A refused weights call is logged and retried at the next epoch."""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import logging
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

from reasonforge.errors import ReasonForgeError
from reasonforge.subnet.chain import InMemoryChain
from reasonforge.subnet.keys import Identity
from reasonforge.subnet.tasks import TaskSource
from reasonforge.subnet.validator import ProofLayerValidator, WeightsNotSetError
from reasonforge.types import Domain, ProofLevel

__all__ = ["argument_parser", "main", "run_validator"]

log = logging.getLogger("reasonforge.subnet.validator")
WEIGHTS_RATE_LIMIT = 10


async def run_validator(seed: str, chain_path: Path, state_path: Path, *, stake: float = 1000.0, netuid: int = 1,
                        epochs: int | None = None, interval_s: float = 360.0, block_time_s: float | None = None,
                        task_seed: int = 0, tasks_per_epoch: int = 3, traps_per_epoch: int = 1,
                        level: ProofLevel = ProofLevel.QUICK, domains: Sequence[Domain] | None = None,
                        stop: asyncio.Event | None = None) -> int:
    """Run epochs until `epochs` are done (None: until `stop` is set); the number of epochs completed."""
    identity = Identity.from_seed(seed)
    chain = InMemoryChain(netuid, weights_rate_limit=WEIGHTS_RATE_LIMIT, path=chain_path, block_time_s=block_time_s)
    if chain.metagraph().by_hotkey(identity.hotkey) is None:
        chain.register(identity.hotkey, stake, validator_permit=True)
    # The tasks are drawn with a secret only this validator knows: miners cannot precompute them.
    tasks = TaskSource(task_seed, secret=hashlib.sha256(f"{seed}:{task_seed}".encode()).digest(),
                       tasks_per_epoch=tasks_per_epoch, traps_per_epoch=traps_per_epoch, proof_level=level,
                       domains=domains)
    stop = stop or asyncio.Event()
    done = 0
    async with ProofLayerValidator(identity, chain, tasks, state_path) as validator:
        while epochs is None or done < epochs:
            if block_time_s is None:
                chain.advance(WEIGHTS_RATE_LIMIT + 1)
            try:
                report = await validator.run_epoch()
            except WeightsNotSetError as exc:
                log.warning("%s; the epoch is kept and finished next time", exc.message)
            else:
                done += 1
                log.info("epoch %d: %d miners, %d tasks (%d traps), %.1f s", report.epoch, len(report.miners),
                         report.tasks, report.traps, report.elapsed_s)
            if epochs is not None and done >= epochs:
                break
            try:
                await asyncio.wait_for(stop.wait(), interval_s)
                break  # asked to stop
            except TimeoutError:
                pass
    return done


def argument_parser() -> argparse.ArgumentParser:
    """The command line of `python -m reasonforge.subnet.validator_main`."""
    parser = argparse.ArgumentParser(description="Run a ReasonForge validator on a local (file-backed) chain.")
    parser.add_argument("--seed", required=True, help='dev key seed, e.g. "//validator-1"')
    parser.add_argument("--chain", type=Path, required=True, help="the InMemoryChain JSON file (shared with miners)")
    parser.add_argument("--state", type=Path, required=True, help="this validator's state file")
    parser.add_argument("--stake", type=float, default=1000.0)
    parser.add_argument("--netuid", type=int, default=1)
    parser.add_argument("--epochs", type=int, default=None, help="run this many epochs and exit (default: forever)")
    parser.add_argument("--interval", type=float, default=360.0, help="seconds between epochs")
    parser.add_argument("--block-time", type=float, default=None, help="seconds per block (default: advance by hand)")
    parser.add_argument("--task-seed", type=int, default=0)
    parser.add_argument("--tasks", type=int, default=3, help="tasks per epoch, traps included")
    parser.add_argument("--traps", type=int, default=1, help="trap tasks per epoch")
    parser.add_argument("--level", choices=[p.value for p in ProofLevel], default=ProofLevel.QUICK.value)
    parser.add_argument("--domains", default=None, help="comma list of task domains (default: all)")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Parse arguments and run; exit 2 with one line on bad input or an unusable chain or state file."""
    parser = argument_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    for name, value, least in (("--epochs", args.epochs, 1), ("--interval", args.interval, 0),
                               ("--tasks", args.tasks, 1), ("--traps", args.traps, 0)):
        if value is not None and value < least:
            parser.error(f"{name} must be at least {least}")
    try:
        domains = [Domain(d.strip()) for d in args.domains.split(",")] if args.domains else None
    except ValueError:
        parser.error(f"--domains takes a comma list of {', '.join(d.value for d in Domain)}, not {args.domains!r}")
    if not args.chain.parent.is_dir() or not args.state.parent.is_dir():
        print(f"error: the folders of --chain ({args.chain}) and --state ({args.state}) must exist", file=sys.stderr)
        return 2

    async def run() -> int:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        return await run_validator(args.seed, args.chain, args.state, stake=args.stake, netuid=args.netuid,
                                   epochs=args.epochs, interval_s=args.interval, block_time_s=args.block_time,
                                   task_seed=args.task_seed, tasks_per_epoch=args.tasks, traps_per_epoch=args.traps,
                                   level=ProofLevel(args.level), domains=domains, stop=stop)

    try:
        done = asyncio.run(run())
    except ReasonForgeError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        return 2
    log.info("stopped after %d epoch(s)", done)
    return 0


if __name__ == "__main__":
    sys.exit(main())

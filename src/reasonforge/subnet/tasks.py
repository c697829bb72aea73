"""The validator's task source: each epoch's TranslationTasks, ordinary chains and traps mixed indistinguishably.

Ordinary tasks are the example chains in `examples/*.json` (`VerifyRequest` files). Skipped: the
`*.translations.json` files, examples that carry their own translations (embedded or in a sibling
`*.translations.json`: they demonstrate hand-written artifacts, not what a translator must produce) and
examples whose proof level needs a prover that is not installed (formal mathematics without coqc or lean).
Traps come from `data/subnet/traps.json` (see `traps.py`).

Per (seed, epoch) the draw is deterministic. Nothing on the wire tells a trap apart from an ordinary task:
- task ids are an HMAC of the validator's secret, the seed, the epoch and the slot (32 hex characters for every
  task), so a miner cannot recompute or recognise them;
- difficulty is `estimate_difficulty` of the chain itself (steps, proof level, domain), the same rule for both;
- one proof level and one timeout for every task of the source; a trap is drawn only at the level its ground
  truth was established at, so with `proof_level` set, traps of other levels are left out; with
  `proof_level=None` every task keeps its own level (ordinary examples and traps then differ in level mix);
- the order of the epoch's tasks is a seeded shuffle, so traps hold no fixed slot.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import random
import shutil
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from reasonforge.boundary.files import json_document
from reasonforge.errors import InputError
from reasonforge.subnet.protocol import TranslationTask
from reasonforge.subnet.traps import REPO_ROOT, Trap, load_traps
from reasonforge.types import Domain, ProofLevel, ReasoningStep, VerifyRequest

__all__ = ["EXAMPLES_DIR", "EpochTask", "TaskSource", "estimate_difficulty", "load_examples"]

EXAMPLES_DIR = REPO_ROOT / "examples"
_T = TypeVar("_T")
_LEVEL_BONUS = {ProofLevel.QUICK: 0, ProofLevel.STANDARD: 2, ProofLevel.FORMAL: 4}


class EpochTask(BaseModel):
    """One task of an epoch as the validator keeps it: the wire task plus, for a trap, its ground truth."""

    task: TranslationTask
    source: str  # the example file name or the trap id: validator-side only
    trap: Trap | None = None

    @property
    def is_trap(self) -> bool:
        """Whether this task is a trap (known ground truth)."""
        return self.trap is not None


def estimate_difficulty(chain: Sequence[ReasoningStep], domain: Domain, level: ProofLevel) -> int:
    """Difficulty 1..10 from the chain itself: 1 per step (up to 5), +2 standard / +4 formal, +1 for code."""
    steps = min(max(len(chain), 1), 5)
    value = steps + _LEVEL_BONUS[ProofLevel(level)] + (1 if Domain(domain) is Domain.CODE else 0)
    return max(1, min(10, value))


def _prover_missing(domain: Domain, level: ProofLevel) -> bool:
    """Formal mathematics needs Coq or Lean 4 on this machine."""
    return domain is Domain.MATHEMATICS and level is ProofLevel.FORMAL and not (
        shutil.which("coqc") or shutil.which("lean"))


def load_examples(folder: Path | None = None) -> list[tuple[str, VerifyRequest]]:
    """(file name, request) of every usable example chain in `folder` (default `examples/`), sorted by name."""
    folder = Path(folder) if folder is not None else EXAMPLES_DIR
    if not folder.is_dir():
        raise InputError(f"examples folder {folder} does not exist; pass a folder of VerifyRequest JSON files",
                         field="examples")
    found: list[tuple[str, VerifyRequest]] = []
    for path in sorted(folder.glob("*.json")):
        if path.name.endswith(".translations.json") or path.with_name(path.stem + ".translations.json").exists():
            continue
        try:
            request = VerifyRequest.model_validate_json(json_document(path, what="example", field="examples"))
        except ValidationError as exc:
            first = exc.errors()[0]
            raise InputError(f"example {path.name} is not a VerifyRequest: {'.'.join(map(str, first['loc']))}: "
                             f"{first['msg']}", field="examples") from None
        if request.translations:
            continue
        found.append((path.name, request))
    return found


class TaskSource:
    """Deterministic per-epoch tasks: `tasks_per_epoch` tasks of which `traps_per_epoch` are traps."""

    def __init__(self, seed: int = 0, *, secret: bytes | str | None = None,
                 examples: Path | Iterable[tuple[str, VerifyRequest]] | None = None,
                 traps: Path | Iterable[Trap] | None = None, tasks_per_epoch: int = 3, traps_per_epoch: int = 1,
                 proof_level: ProofLevel | None = ProofLevel.QUICK, domains: Iterable[Domain | str] | None = None,
                 timeout_seconds: int = 60) -> None:
        if tasks_per_epoch < 1:
            raise InputError("tasks_per_epoch must be at least 1", field="tasks_per_epoch")
        if not 0 <= traps_per_epoch <= tasks_per_epoch:
            raise InputError(f"traps_per_epoch must be between 0 and tasks_per_epoch ({tasks_per_epoch})",
                             field="traps_per_epoch")
        if not 1 <= timeout_seconds <= 3600:
            raise InputError("timeout_seconds must be between 1 and 3600", field="timeout_seconds")
        self.seed = seed
        # Without a secret, task ids follow from the seed alone: fine for localnets and tests, never for a
        # validator on a real network (a miner that knows the seed could then tell traps apart).
        raw = secret if secret is not None else f"reasonforge-dev-task-secret:{seed}"
        self._secret = raw.encode("utf-8") if isinstance(raw, str) else bytes(raw)
        self.tasks_per_epoch = tasks_per_epoch
        self.traps_per_epoch = traps_per_epoch
        self.proof_level = ProofLevel(proof_level) if proof_level is not None else None
        self.domains = frozenset(Domain(d) for d in domains) if domains is not None else frozenset(Domain)
        self.timeout_seconds = timeout_seconds
        pairs = load_examples(examples) if examples is None or isinstance(examples, Path) else list(examples)
        self.examples = self._usable_examples(pairs)
        trap_list = load_traps(traps) if traps is None or isinstance(traps, Path) else list(traps)
        self.traps = [t for t in trap_list if t.request.domain in self.domains
                      and (self.proof_level is None or t.request.proof_level is self.proof_level)]
        if not self.examples and traps_per_epoch < tasks_per_epoch:
            raise InputError(f"no usable example chain for domains {sorted(d.value for d in self.domains)}; "
                             "add examples or widen domains", field="examples")
        if not self.traps and traps_per_epoch > 0:
            level = self.proof_level.value if self.proof_level else "any"
            raise InputError(f"no trap for domains {sorted(d.value for d in self.domains)} at level {level}; "
                             "set traps_per_epoch=0, widen domains, or rebuild data/subnet/traps.json",
                             field="traps")

    def _usable_examples(self, pairs: Iterable[tuple[str, VerifyRequest]]) -> list[tuple[str, VerifyRequest]]:
        """Examples in the wanted domains, re-levelled, runnable here, without duplicate chains."""
        usable: list[tuple[str, VerifyRequest]] = []
        seen: set[str] = set()
        # Of two examples that are one chain once re-levelled, keep the one written for that level.
        ordered = sorted(pairs, key=lambda p: (self.proof_level is not None and p[1].proof_level != self.proof_level,
                                               p[0]))
        for name, request in ordered:
            level = self.proof_level or request.proof_level
            if request.domain not in self.domains or _prover_missing(request.domain, level):
                continue
            key = json.dumps([request.original_query, [s.model_dump(mode="json") for s in request.reasoning_chain],
                              request.domain.value, level.value], sort_keys=True)
            if key in seen:
                continue  # e.g. the quick and formal Pythagoras examples are one chain once re-levelled
            seen.add(key)
            usable.append((name, request.model_copy(update={"proof_level": level})))
        return sorted(usable, key=lambda p: p[0])

    def _digest(self, *parts: object) -> str:
        message = ":".join(str(p) for p in (self.seed, *parts)).encode("utf-8")
        return hmac.new(self._secret, message, hashlib.sha256).hexdigest()

    def task_id(self, epoch: int, slot: int) -> str:
        """The id of slot `slot` of `epoch`: 32 hex characters of an HMAC under the validator's secret."""
        return self._digest("task", epoch, slot)[:32]

    def _task(self, task_id: str, request: VerifyRequest) -> TranslationTask:
        level = request.proof_level
        return TranslationTask(
            task_id=task_id, original_query=request.original_query, reasoning_chain=request.reasoning_chain,
            domain=request.domain, difficulty=estimate_difficulty(request.reasoning_chain, request.domain, level),
            proof_level=level, timeout_seconds=self.timeout_seconds, claimed_answer=request.claimed_answer)

    @staticmethod
    def _draw(rng: random.Random, pool: Sequence[_T], k: int) -> list[_T]:
        """k items without repeats while the pool lasts, then cycling through fresh shuffles."""
        out: list[_T] = []
        while len(out) < k and pool:
            out.extend(rng.sample(list(pool), min(k - len(out), len(pool))))
        return out

    def epoch_tasks(self, epoch: int) -> list[EpochTask]:
        """The tasks of `epoch` (same list for the same seed, secret and epoch)."""
        rng = random.Random(self._digest("draw", epoch))
        n_traps = self.traps_per_epoch if self.traps else 0
        n_ordinary = self.tasks_per_epoch - n_traps if self.examples else 0
        picked: list[tuple[str, VerifyRequest, Trap | None]] = []
        for trap in self._draw(rng, self.traps, n_traps):
            picked.append((trap.trap_id, trap.request, trap))
        for name, request in self._draw(rng, self.examples, n_ordinary):
            picked.append((name, request, None))
        rng.shuffle(picked)
        return [EpochTask(task=self._task(self.task_id(epoch, slot), request), source=source, trap=trap)
                for slot, (source, request, trap) in enumerate(picked)]

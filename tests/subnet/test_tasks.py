"""The validator's task source: deterministic per (seed, epoch), traps mixed in and not recognisable on the wire."""

from __future__ import annotations

import re

import pytest

from reasonforge.errors import InputError
from reasonforge.subnet.protocol import MINER_FIELDS
from reasonforge.subnet.tasks import TaskSource, estimate_difficulty, load_examples
from reasonforge.subnet.traps import load_traps
from reasonforge.types import Domain, ProofLevel

HEX32 = re.compile(r"^[0-9a-f]{32}$")


def _wire(source: TaskSource, epoch: int) -> list[dict]:
    return [item.task.model_dump(mode="json") for item in source.epoch_tasks(epoch)]


def test_same_seed_and_epoch_give_the_same_tasks_and_other_epochs_differ() -> None:
    first = TaskSource(3, secret=b"validator secret")
    again = TaskSource(3, secret=b"validator secret")
    assert _wire(first, 1) == _wire(again, 1)
    assert [i.source for i in first.epoch_tasks(4)] == [i.source for i in again.epoch_tasks(4)]
    assert _wire(first, 1) != _wire(first, 2)
    # The ids depend on the secret: a miner who knows the seed still cannot recompute them.
    other = TaskSource(3, secret=b"another secret")
    assert {t["task_id"] for t in _wire(first, 1)}.isdisjoint(t["task_id"] for t in _wire(other, 1))


def test_each_epoch_mixes_the_requested_traps_into_random_slots() -> None:
    source = TaskSource(0, tasks_per_epoch=3, traps_per_epoch=1)
    slots = set()
    for epoch in range(1, 31):
        items = source.epoch_tasks(epoch)
        assert len(items) == 3
        traps = [i for i, item in enumerate(items) if item.is_trap]
        assert len(traps) == 1
        slots.update(traps)
        assert items[traps[0]].trap is not None and items[traps[0]].source == items[traps[0]].trap.trap_id
    assert slots == {0, 1, 2}


def test_traps_are_indistinguishable_from_ordinary_tasks_on_the_wire() -> None:
    source = TaskSource(7, tasks_per_epoch=4, traps_per_epoch=2, timeout_seconds=45)
    items = [item for epoch in range(1, 21) for item in source.epoch_tasks(epoch)]
    traps = [i.task for i in items if i.is_trap]
    ordinary = [i.task for i in items if not i.is_trap]
    assert traps and ordinary

    def shape(task) -> tuple:  # which fields are set, and the format of everything a rule could key on
        dumped = task.model_dump(mode="json")
        return (tuple(sorted(k for k, v in dumped.items() if v not in (None, "", []))),
                bool(HEX32.match(task.task_id)), task.timeout_seconds, task.proof_level)

    trap_shapes = {shape(t) for t in traps}
    assert trap_shapes == {shape(t) for t in ordinary}
    assert len(trap_shapes) == 1
    assert next(iter(trap_shapes))[1:] == (True, 45, ProofLevel.QUICK)
    for task in [*traps, *ordinary]:
        assert all(getattr(task, name) is None for name in MINER_FIELDS)
        assert task.difficulty == estimate_difficulty(task.reasoning_chain, task.domain, task.proof_level)
    # Difficulty follows the chain, not the kind: both kinds span overlapping ranges.
    trap_range = {t.difficulty for t in traps}
    ordinary_range = {t.difficulty for t in ordinary}
    assert trap_range & ordinary_range
    # A trap drawn in two epochs gets two unrelated ids.
    ids_by_source: dict[str, set[str]] = {}
    for item in items:
        ids_by_source.setdefault(item.source, set()).add(item.task.task_id)
    assert any(len(ids) > 1 for ids in ids_by_source.values())
    assert len({i.task.task_id for i in items}) == len(items)


def test_examples_with_their_own_translations_are_not_tasks() -> None:
    names = [name for name, _ in load_examples()]
    assert "whale.json" in names and "pythagoras.json" in names
    assert "whale-smtlib.json" not in names  # has a sibling translations file
    assert "parity-coq.json" not in names  # carries hand-written translations
    assert not any(name.endswith(".translations.json") for name in names)


def test_filters_keep_domains_and_only_traps_of_the_source_level() -> None:
    # The committed file holds no logic trap (a vacuous artifact reproduced every FOLIO one: the reader refutes a
    # logic step whatever the artifact) and every trap is at quick, so the level filter is shown on a GSM8K trap
    # re-levelled to standard next to the committed ones.
    committed = load_traps()
    sample = next(t for t in committed if t.request.domain is Domain.MATHEMATICS)
    standard = sample.model_copy(update={"trap_id": "standard-copy", "request": sample.request.model_copy(
        update={"proof_level": ProofLevel.STANDARD})})
    source = TaskSource(0, domains=["logic", "mathematics"], proof_level=ProofLevel.STANDARD,
                        traps=[*committed, standard])
    assert [t.trap_id for t in source.traps] == ["standard-copy"]
    quick = TaskSource(0, domains=["mathematics"], traps=[*committed, standard])
    assert quick.traps and "standard-copy" not in {t.trap_id for t in quick.traps}
    assert all(t.request.proof_level is ProofLevel.QUICK and t.request.domain is Domain.MATHEMATICS
               for t in quick.traps)
    with pytest.raises(InputError, match="no trap for domains"):
        TaskSource(0, domains=["logic"])
    logic = TaskSource(0, domains=["logic"], proof_level=ProofLevel.STANDARD, traps_per_epoch=0)
    assert {name for name, _ in logic.examples} == {"affirming-the-consequent.json", "six-step-chain.json",
                                                      "whale-assumed.json", "whale.json"}
    for item in logic.epoch_tasks(1):
        assert item.task.domain is Domain.LOGIC and item.task.proof_level is ProofLevel.STANDARD
    for item in source.epoch_tasks(1):
        assert item.task.proof_level is ProofLevel.STANDARD
        assert item.trap is None or item.trap.trap_id == "standard-copy"
    # One chain written twice (quick and formal Pythagoras) is one task once re-levelled.
    maths = TaskSource(0, domains=["mathematics"])
    assert [name for name, _ in maths.examples] == ["arithmetic-slip.json", "pythagoras.json"]


def test_impossible_settings_are_input_errors() -> None:
    with pytest.raises(InputError, match="traps_per_epoch"):
        TaskSource(0, tasks_per_epoch=2, traps_per_epoch=3)
    with pytest.raises(InputError, match="no trap for domains"):
        TaskSource(0, domains=["code"], proof_level=ProofLevel.STANDARD)
    with pytest.raises(InputError, match="tasks_per_epoch"):
        TaskSource(0, tasks_per_epoch=0)
    only_traps = TaskSource(0, domains=["code"], traps_per_epoch=2, tasks_per_epoch=2, examples=[])
    assert all(item.is_trap for item in only_traps.epoch_tasks(1))

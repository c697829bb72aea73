"""commit → register → reveal → match on the devnode, and every attempt to fake a timely forecast."""

from __future__ import annotations

import json

import pytest
from web3 import Web3

from reasonforge.certificate import forecast_registry as fr
from reasonforge.errors import InputError
from reasonforge.forecast.commit import (
    Exclusion,
    ForecastFields,
    PredictionRow,
    commit_rows,
    match_on_chain,
    question_set_digest,
    read_openings,
    register_batch,
    reveal,
)
from reasonforge.forecast.commit.batch import Batch, PublicCommitment
from reasonforge.forecast.commit.tree import build_levels, field_hex, leaf_hash


def rows(probabilities: dict[str, float]) -> list[PredictionRow]:
    return [PredictionRow(id=k, probability=v, reasoning=f"because {k}") for k, v in probabilities.items()]


ALL = {"q0": 0.2, "q1": 0.7, "q2": 0.4, "q3": 0.9, "q4": 0.1, "q5": 0.65, "past": 0.95}


def committed(w3, compiled, registry, items, probabilities, sender=None):
    batch = commit_rows(rows(probabilities), items)
    receipt = register_batch(w3, compiled, registry.address, batch, sender)
    return batch, receipt


def match(w3, compiled, registry, openings, items, forecaster=None):
    return match_on_chain(w3, compiled, registry.address, openings, items, question_set_digest(items), forecaster)[0]


def reasons(result) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for e in result.excluded:
        out.setdefault(e.reason, set()).add(e.item_id or f"{e.root}:{e.index}")
    return out


def test_end_to_end_scores_only_timely_forecasts(w3, compiled, registry, items):
    batch, receipt = committed(w3, compiled, registry, items, ALL)
    assert receipt.batch.count == 7 and receipt.batch.root == batch.commitment.root
    assert receipt.batch.committer == w3.eth.accounts[0]
    assert receipt.batch.timestamp == w3.eth.get_block(receipt.block_number)["timestamp"]
    result = match(w3, compiled, registry, reveal(batch), items)
    assert [c.item_id for c in result.scored] == ["q0", "q1", "q2", "q3", "q4", "q5"]
    assert [c.probability_ppm for c in result.scored] == [round(ALL[c.item_id] * 1e6) for c in result.scored]
    assert reasons(result) == {Exclusion.LATE: {"past"}}
    assert result.complete and result.n_committed == 7 and result.n_excluded_opened == 1


def test_probability_changed_after_commit_is_altered(w3, compiled, registry, items):
    batch, _ = committed(w3, compiled, registry, items, ALL)
    openings = reveal(batch)
    o = openings[3]
    openings[3] = o.model_copy(update={"forecast": o.forecast.model_copy(update={"probability_ppm": 0})})
    result = match(w3, compiled, registry, openings, items)
    r = reasons(result)
    assert r[Exclusion.ALTERED] == {"q3"} and r[Exclusion.NO_FORECAST] == {"q3"}
    assert r[Exclusion.UNREVEALED] == {f"{batch.commitment.root}:3"}
    assert "q3" not in {c.item_id for c in result.scored} and not result.complete


def test_reasoning_changed_after_commit_is_altered(w3, compiled, registry, items):
    batch, _ = committed(w3, compiled, registry, items, ALL)
    openings = reveal(batch)
    openings[0] = openings[0].model_copy(update={"forecast": openings[0].forecast.model_copy(
        update={"reasoning": "a better argument written after the outcome"})})
    assert reasons(match(w3, compiled, registry, openings, items))[Exclusion.ALTERED] == {"q0"}


def test_forecast_revealed_under_another_item_id_is_altered(w3, compiled, registry, items):
    batch, _ = committed(w3, compiled, registry, items, {"q0": 0.9, "q1": 0.5})
    openings = reveal(batch)
    openings[0] = openings[0].model_copy(update={"forecast": openings[0].forecast.model_copy(update={"item_id": "q2"})})
    result = match(w3, compiled, registry, openings, items)
    assert reasons(result)[Exclusion.ALTERED] == {"q2"}
    assert [c.item_id for c in result.scored] == ["q1"]


def test_salt_and_path_of_another_batch_do_not_open_it(w3, compiled, registry, items):
    a, _ = committed(w3, compiled, registry, items, {"q0": 0.9, "q1": 0.5})
    b, _ = committed(w3, compiled, registry, items, {"q0": 0.1, "q2": 0.5})
    stolen = reveal(a)[0]
    # A's opening presented as a leaf of B, and B's q0 forecast with A's salt and path.
    moved = stolen.model_copy(update={"root": b.commitment.root})
    b0 = reveal(b)[0]
    mixed = b0.model_copy(update={"path": stolen.path, "forecast": b0.forecast.model_copy(
        update={"salt": stolen.forecast.salt})})
    result = match(w3, compiled, registry, [moved, mixed, *reveal(b)[1:]], items)
    assert {(e.reason, e.item_id) for e in result.excluded if e.reason == Exclusion.ALTERED} == {
        (Exclusion.ALTERED, "q0")}
    assert len([e for e in result.excluded if e.reason == Exclusion.ALTERED]) == 2


def test_reveals_of_another_forecasters_batch_do_not_count(w3, compiled, registry, items):
    mine, _ = committed(w3, compiled, registry, items, {"q1": 0.5})
    theirs, _ = committed(w3, compiled, registry, items, {"q0": 0.99}, sender=w3.eth.accounts[1])
    result = match(w3, compiled, registry, [*reveal(mine), *reveal(theirs)], items, forecaster=w3.eth.accounts[0])
    assert reasons(result)[Exclusion.FOREIGN_ROOT] == {"q0"}
    assert [c.item_id for c in result.scored] == ["q1"]


def test_unregistered_root_is_unknown(w3, compiled, registry, items):
    registered, _ = committed(w3, compiled, registry, items, {"q1": 0.5})
    never = commit_rows(rows({"q0": 0.99}), items)
    result = match(w3, compiled, registry, [*reveal(registered), *reveal(never)], items)
    assert reasons(result)[Exclusion.UNKNOWN_ROOT] == {"q0"}


def test_batch_for_another_question_set_does_not_count(w3, compiled, registry, items):
    other = commit_rows(rows({"q0": 0.99}), items[:3])  # a different question set: a different scope
    register_batch(w3, compiled, registry.address, other)
    mine, _ = committed(w3, compiled, registry, items, {"q1": 0.5})
    result = match(w3, compiled, registry, [*reveal(mine), *reveal(other)], items)
    assert reasons(result)[Exclusion.FOREIGN_ROOT] == {"q0"}


def test_an_earlier_commit_time_cannot_be_claimed(w3, compiled, registry, items, tmp_path):
    batch, receipt = committed(w3, compiled, registry, items, {"past": 0.99})
    batch.registration = batch.registration.model_copy(update={"timestamp": 1_500_000_000})
    result = match(w3, compiled, registry, reveal(batch), items)  # the batch file's time is never read
    late = [e for e in result.excluded if e.reason == Exclusion.LATE]
    assert [e.item_id for e in late] == ["past"] and not result.scored
    assert str(receipt.batch.timestamp) in late[0].detail
    # a reveal row carrying its own commit time is refused outright
    row = reveal(batch)[0].model_dump(mode="json") | {"committed_at": 1_500_000_000}
    (tmp_path / "r.jsonl").write_text(json.dumps(row) + "\n")
    with pytest.raises(InputError, match="committed_at"):
        read_openings(tmp_path / "r.jsonl")


def test_two_committed_forecasts_for_one_item_refuse_both(w3, compiled, registry, items):
    a, _ = committed(w3, compiled, registry, items, {"q0": 0.9, "q1": 0.5})
    b, _ = committed(w3, compiled, registry, items, {"q0": 0.1})
    result = match(w3, compiled, registry, [*reveal(a), *reveal(b)], items)
    duplicates = [e for e in result.excluded if e.reason == Exclusion.DUPLICATE]
    assert {(e.root, e.item_id) for e in duplicates} == {(a.commitment.root, "q0"), (b.commitment.root, "q0")}
    assert [c.item_id for c in result.scored] == ["q1"] and result.complete
    with pytest.raises(InputError, match="appears twice"):
        commit_rows(rows({"q0": 0.9}) + rows({"q0": 0.1}), items)


def test_withholding_the_second_forecast_leaves_the_batch_incomplete(w3, compiled, registry, items):
    a, _ = committed(w3, compiled, registry, items, {"q0": 0.9, "q1": 0.5})
    b, _ = committed(w3, compiled, registry, items, {"q0": 0.1})
    result = match(w3, compiled, registry, reveal(a), items)  # b never revealed: rootsOf still lists it
    assert reasons(result)[Exclusion.UNREVEALED] == {f"{b.commitment.root}:0"}
    assert not result.complete and result.n_committed == 3 and result.n_unrevealed == 1


def test_a_leaf_replayed_into_another_batch_is_a_duplicate(w3, compiled, registry, items):
    a, _ = committed(w3, compiled, registry, items, {"q0": 0.9})
    replayed = a.forecasts[0]
    levels = build_levels([leaf_hash(replayed), leaf_hash(ForecastFields(
        item_id="q1", probability_ppm=500_000, salt=a.forecasts[0].salt))])
    b = Batch(commitment=PublicCommitment(root=field_hex(levels[-1][0]), count=2, scope=question_set_digest(items)),
              forecasts=[replayed, ForecastFields(item_id="q1", probability_ppm=500_000, salt=a.forecasts[0].salt)])
    register_batch(w3, compiled, registry.address, b)
    result = match(w3, compiled, registry, [*reveal(a), *reveal(b)], items)
    assert reasons(result)[Exclusion.DUPLICATE] == {"q0"}
    assert [c.item_id for c in result.scored] == ["q1"]


def test_the_same_opening_twice_counts_once(w3, compiled, registry, items):
    a, _ = committed(w3, compiled, registry, items, {"q0": 0.9})
    result = match(w3, compiled, registry, reveal(a) * 2, items)
    assert reasons(result)[Exclusion.REPEATED_OPENING] == {"q0"}
    assert [c.item_id for c in result.scored] == ["q0"]


def test_index_beyond_the_count_or_a_short_path_is_altered(w3, compiled, registry, items):
    a, _ = committed(w3, compiled, registry, items, {"q0": 0.9, "q1": 0.4})
    o = reveal(a)[0]
    padded = o.model_copy(update={"index": 2})
    short = o.model_copy(update={"path": o.path[:0]})
    result = match(w3, compiled, registry, [padded, short], items)
    assert len([e for e in result.excluded if e.reason == Exclusion.ALTERED]) == 2


def test_a_root_cannot_be_registered_twice(w3, compiled, registry, items):
    batch, _ = committed(w3, compiled, registry, items, {"q0": 0.9})
    with pytest.raises(fr.RegistryError, match="RootAlreadyCommitted"):
        fr.commit(w3, compiled, registry.address, batch.commitment.root, 1, batch.commitment.scope,
                  w3.eth.accounts[2])
    record = fr.batch_of(w3, compiled, registry.address, batch.commitment.root)
    assert record.committer == Web3.to_checksum_address(w3.eth.accounts[0])


def test_reveal_refuses_a_batch_edited_after_commit(items):
    batch = commit_rows(rows({"q0": 0.9}), items)
    batch.forecasts[0] = batch.forecasts[0].model_copy(update={"probability_ppm": 1})
    with pytest.raises(InputError, match="do not hash to its root"):
        reveal(batch)


def test_commit_refuses_unknown_ids_and_replies_without_a_probability(items):
    with pytest.raises(InputError, match="not in the question set"):
        commit_rows(rows({"nope": 0.5}), items)
    with pytest.raises(InputError, match="no parsable probability"):
        commit_rows([PredictionRow(id="q0", reply="I think it is likely.")], items)


def test_salts_are_fresh_so_equal_forecasts_have_unrelated_roots(items):
    a, b = (commit_rows(rows({"q0": 0.5}), items) for _ in range(2))
    assert a.forecasts[0].salt != b.forecasts[0].salt and a.commitment.root != b.commitment.root

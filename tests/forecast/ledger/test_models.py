"""Ledger models: validation, content-hashed storage (identical reload, tamper detection), forecasts file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reasonforge.errors import InputError
from reasonforge.forecast.ledger.models import (
    Ledger,
    Market,
    counted_developments,
    exclusion,
    is_thin,
    load_forecasts,
    load_ledger,
    load_market,
    rehash_ledger,
    save_ledger,
)

from ledger_support import DAY_ZERO, dev, ledger, market, price_path


def _ledger() -> Ledger:
    return ledger([dev(1, "Hungary closes the Keleti station."), dev(3, "Austria opens its border."),
                   dev(4, "Hungary declares a state of emergency.", source="BBC", ref="56868")],
                  prices=[0.3, 0.35, 0.5, 0.5, 0.8] + [0.8] * 10)


def test_saved_ledger_reloads_identically_with_same_hash(tmp_path: Path) -> None:
    original = _ledger()
    path = save_ledger(original, tmp_path / "L.json")
    stored = json.loads(path.read_text(encoding="utf-8"))
    assert stored["content_hash"] == original.content_hash()
    assert {"market_id", "title", "day_zero", "developments", "price_path"} <= stored.keys()
    assert stored["developments"][2] == {"date": "2015-09-09", "text": "Hungary declares a state of emergency.",
                                         "source": "BBC", "ref": "56868", "url": ""}
    reloaded = load_ledger(path)
    assert reloaded == original
    assert reloaded.content_hash() == original.content_hash()


def test_content_hash_changes_with_content() -> None:
    first = _ledger()
    second = first.model_copy(update={"developments": first.developments[:2]})
    assert first.content_hash() != second.content_hash()
    assert len(first.content_hash()) == 64


def test_tampered_ledger_is_rejected(tmp_path: Path) -> None:
    path = save_ledger(_ledger(), tmp_path / "L.json")
    stored = json.loads(path.read_text(encoding="utf-8"))
    stored["developments"][0]["text"] = "Hungary keeps the station open."
    path.write_text(json.dumps(stored), encoding="utf-8")
    with pytest.raises(InputError, match="changed after it was saved"):
        load_ledger(path)


def test_hand_written_ledger_without_hash_is_refused_until_rehashed(tmp_path: Path) -> None:
    path = tmp_path / "L.json"
    body = {"market_id": "m", "title": "t", "day_zero": "2015-09-05",
            "developments": [{"date": "2015-09-06", "text": "x", "source": "s"}],
            "price_path": [{"date": "2015-09-05", "price": 0.4}]}
    path.write_text(json.dumps(body), encoding="utf-8")
    with pytest.raises(InputError, match=r"has no content_hash.*reasoning rehash") as refused:
        load_ledger(path)
    assert str(path) in str(refused.value)
    done = rehash_ledger(path)
    assert done.changed and done.previous_hash is None and done.developments == 1
    # One development: the re-derived flag says thin, whatever the hand-written file claimed (nothing).
    assert done.excluded == "thin_ledger"
    loaded = load_ledger(path)
    assert loaded.window_days == 14 and loaded.developments[0].ref == "" and loaded.excluded == "thin_ledger"
    assert json.loads(path.read_text("utf-8"))["content_hash"] == loaded.content_hash() == done.content_hash
    again = rehash_ledger(path)
    assert not again.changed and again.previous_hash == again.content_hash


def test_edited_ledger_is_accepted_only_through_rehash(tmp_path: Path) -> None:
    path = save_ledger(_ledger(), tmp_path / "L.json")
    stored = json.loads(path.read_text(encoding="utf-8"))
    stored["developments"][0]["text"] = "Hungary keeps the station open."
    path.write_text(json.dumps(stored), encoding="utf-8")
    with pytest.raises(InputError, match=r"changed after it was saved.*reasoning rehash"):
        load_ledger(path)
    done = rehash_ledger(path)
    assert done.changed and done.previous_hash == stored["content_hash"] and done.excluded is None
    assert load_ledger(path).developments[0].text == "Hungary keeps the station open."


def test_rehash_rederives_a_flag_edited_to_escape_exclusion(tmp_path: Path) -> None:
    # Someone drops the thin_ledger flag from a two-development ledger and rehashes: the flag comes back.
    thin = ledger([dev(1, "Hungary builds a fence."), dev(2, "Hungary closes a crossing.")])
    path = tmp_path / "L.json"
    body = thin.model_dump(mode="json") | {"excluded": None}
    path.write_text(json.dumps(body), encoding="utf-8")
    assert rehash_ledger(path).excluded == "thin_ledger"
    assert load_ledger(path).excluded == "thin_ledger"


def test_counted_developments_ignore_copies_and_out_of_window_items() -> None:
    base = [dev(1, "Hungary builds a fence."), dev(2, "Hungary closes a crossing.", ref="r2")]
    padded = ledger([*base,
                     dev(3, "HUNGARY   builds a fence!"),  # same words: one event
                     dev(4, "Another text, same document.", ref="r2"),  # same reference: one document
                     dev(0, "Day zero is not after day zero."), dev(15, "After the 14-day window."),
                     dev(5, "\u200b")])  # no word at all
    assert [d.text for d in counted_developments(padded)] == [d.text for d in base]
    assert is_thin(padded)
    enough = ledger([*base, dev(14, "Hungary declares an emergency on the last day of the window.")])
    assert not is_thin(enough) and exclusion(enough) is None
    assert exclusion(enough.model_copy(update={"excluded": "thin_ledger"})) == "thin_ledger"


@pytest.mark.parametrize(("content", "message"), [
    ("{not json", "not valid JSON"),
    ("[1, 2]", "must hold a JSON object"),
    ('{"market_id": "m"}', "not a valid ledger: title"),
])
def test_bad_ledger_files_give_input_errors(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "L.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError, match=message):
        load_ledger(path)
    with pytest.raises(InputError, match="does not exist"):
        load_ledger(tmp_path / "missing.json")


def test_market_validation() -> None:
    assert market().price_path[0].date == DAY_ZERO
    with pytest.raises(ValueError, match="after day_zero"):
        late = price_path([0.5, 0.6], start=DAY_ZERO.replace(day=6))
        Market(market_id="m", title="t", day_zero=DAY_ZERO, price_path=late)
    with pytest.raises(ValueError, match="ascending"):
        Market(market_id="m", title="t", day_zero=DAY_ZERO, price_path=list(reversed(price_path([0.5, 0.6]))))
    with pytest.raises(ValueError, match="less than or equal to 1"):
        price_path([1.5])


def test_load_market_file(tmp_path: Path) -> None:
    path = tmp_path / "M.json"
    path.write_text(market().model_dump_json(), encoding="utf-8")
    assert load_market(path) == market()
    path.write_text('{"market_id": "m", "title": "t", "day_zero": "2015-09-05", "price_path": []}', encoding="utf-8")
    with pytest.raises(InputError, match="price_path"):
        load_market(path)


def test_load_forecasts_reads_null_and_absent_reasoning(tmp_path: Path) -> None:
    path = tmp_path / "F.jsonl"
    path.write_text('{"forecaster": "a", "reasoning": "Because X, 70%."}\n\n{"forecaster": "b", "reasoning": null}\n'
                    '{"forecaster": "c"}\n', encoding="utf-8")
    rows = load_forecasts(path)
    assert [(r.forecaster, r.reasoning) for r in rows] == [("a", "Because X, 70%."), ("b", None), ("c", None)]


@pytest.mark.parametrize(("content", "message"), [
    ('{"forecaster": "a"}\n{"forecaster": "a"}\n', "line 2: forecaster 'a' already appears on line 1"),
    ('{"forecaster": "a"}\nnot json\n', "line 2: not valid JSON"),
    ('{"forecaster": "a"}\n{"reasoning": "x"}\n', "line 2: forecaster"),
    ('[1]\n', "line 1: expected an object"),
    ("\n", "holds no forecasts"),
])
def test_bad_forecasts_name_the_line(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "F.jsonl"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError, match=message):
        load_forecasts(path)

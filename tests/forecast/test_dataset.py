"""ForecastItem schema, loaders (strict and lenient) and the filter semantics."""

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from reasonforge.errors import InputError
from reasonforge.forecast.dataset import (
    DEFAULT_DATA,
    ForecastFilters,
    ForecastItem,
    apply_filters,
    load_dataset,
    load_items,
)

T0 = datetime(2026, 8, 1, tzinfo=UTC)


def item(i, price=0.5, tags=(), horizon=24, volume=1000.0, day=0, outcome=1):
    return ForecastItem(id=f"m{i}", question=f"q{i}?", cutoff=T0 + timedelta(days=day),
                        resolved_at=T0 + timedelta(days=day + 1), outcome=outcome, market_price=price,
                        horizon_hours=horizon, volume=volume, tags=list(tags), source="test")


def test_repository_slice_loads_with_forecastbench_mapping():
    items = load_items(DEFAULT_DATA).items
    assert len(items) == 240
    first = items[0]
    assert first.id == "2024-07-21-human/metaculus/7664" and first.question_id == "metaculus/7664"
    assert first.market_price == 0.8 and first.outcome == 1
    assert first.cutoff == datetime(2024, 7, 12, tzinfo=UTC)
    assert first.resolved_at == datetime(2024, 7, 25, tzinfo=UTC)
    assert first.source == "forecastbench/metaculus" and first.horizon_hours is None


def test_the_default_is_the_packaged_copy_of_the_repository_slice():
    import reasonforge.forecast
    from reasonforge.forecast.dataset import default_data

    package = Path(reasonforge.forecast.__file__).resolve().parent
    assert DEFAULT_DATA.is_relative_to(package)  # not the repo's data/: a wheel install has no such folder
    with default_data() as path:
        assert path.resolve() == DEFAULT_DATA
    repo_slice = Path(__file__).resolve().parents[2] / "data" / "forecastbench" / "questions.slice.jsonl"
    assert DEFAULT_DATA.read_bytes() == repo_slice.read_bytes()
    assert load_dataset().items == load_dataset(repo_slice).items


def test_forecastitem_rows_round_trip(tmp_path):
    path = tmp_path / "items.jsonl"
    rows = [item(1), item(2, tags=["Sports"])]
    path.write_text("".join(r.model_dump_json() + "\n" for r in rows))
    assert load_items(path).items == rows


def _bad_file(tmp_path):
    good = json.loads(DEFAULT_DATA.read_text().splitlines()[0])
    bad_value = json.loads(json.dumps(good))
    bad_value["question"]["freeze_datetime_value"] = "N/A"
    bad_outcome = json.loads(json.dumps(good))
    bad_outcome["question_set"] = "other.json"
    bad_outcome["resolution"]["resolved_to"] = 0.5
    path = tmp_path / "rows.jsonl"
    path.write_text("\n".join([json.dumps(good), "{not json", json.dumps(bad_value), json.dumps(bad_outcome)]) + "\n")
    return path


def test_strict_loading_names_file_and_line(tmp_path):
    path = _bad_file(tmp_path)
    with pytest.raises(InputError) as exc:
        load_items(path)
    assert f"{path}:2:" in exc.value.message and "--lenient" in exc.value.message


def test_lenient_loading_skips_and_reports(tmp_path):
    path = _bad_file(tmp_path)
    loaded = load_items(path, lenient=True)
    assert len(loaded.items) == 1
    assert [issue.line for issue in loaded.issues] == [2, 3, 4]
    assert "freeze_datetime_value" in loaded.issues[1].message
    assert "resolved_to" in loaded.issues[2].message


def test_missing_file_and_duplicate_ids(tmp_path):
    with pytest.raises(InputError, match="does not exist"):
        load_items(tmp_path / "nope.jsonl")
    path = tmp_path / "dup.jsonl"
    path.write_text(item(1).model_dump_json() + "\n" + item(1).model_dump_json() + "\n")
    with pytest.raises(InputError, match="appears twice"):
        load_items(path)


def test_schema_rejects_inconsistent_items():
    with pytest.raises(ValueError, match="before cutoff"):
        ForecastItem(id="x", question="q", cutoff=T0, resolved_at=T0 - timedelta(hours=1), outcome=1,
                     market_price=0.5, source="s")
    with pytest.raises(ValueError, match="UTC offset"):
        ForecastItem(id="x", question="q", cutoff="2026-08-01T00:00:00", resolved_at=T0, outcome=1,
                     market_price=0.5, source="s")
    with pytest.raises(ValueError):
        ForecastItem(id="x", question="q", cutoff=T0, resolved_at=T0, outcome=1, market_price=1.2, source="s")
    with pytest.raises(ValueError, match="outside outcomes"):
        ForecastItem(id="x", question="q", cutoff=T0, resolved_at=T0, outcome=1, market_price=0.5, source="s",
                     outcomes=["a", "b"], outcome_index=2)


def test_horizons_min_volume_and_near_certain():
    items = [item(1, horizon=24), item(2, horizon=72), item(3, horizon=168, volume=None),
             item(4, price=0.04), item(5, price=0.05), item(6, price=0.95), item(7, price=0.9500000000000001),
             item(8, price=0.96, volume=10.0)]
    ids = lambda f: [i.id for i in apply_filters(items, f)]
    assert ids(ForecastFilters(horizons=[72, 168])) == ["m2", "m3"]
    assert ids(ForecastFilters(min_volume=100)) == ["m1", "m2", "m4", "m5", "m6", "m7"]  # unknown volume dropped
    assert ids(ForecastFilters(exclude_near_certain=0.05)) == ["m1", "m2", "m3", "m5", "m6"]
    with pytest.raises(ValueError):
        ForecastFilters(exclude_near_certain=0.5)


def test_tags_are_case_insensitive():
    items = [item(1, tags=["Sports"]), item(2, tags=["politics", "Elections"]), item(3)]
    assert [i.id for i in apply_filters(items, ForecastFilters(include_tags=["SPORTS", "elections"]))] == ["m1", "m2"]
    assert [i.id for i in apply_filters(items, ForecastFilters(exclude_tags=["sports"]))] == ["m2", "m3"]


def test_max_items_is_chronological_and_contiguous():
    items = [item(i, day=d) for i, d in enumerate([5, 1, 3, 0, 4, 2])]
    kept = apply_filters(items, ForecastFilters(max_items=3))
    assert [i.cutoff.day for i in kept] == [1, 2, 3]  # earliest first: days 0, 1, 2 after T0


def test_load_dataset_applies_filters_to_the_default_slice():
    loaded = load_dataset(None, ForecastFilters(exclude_near_certain=0.05, max_items=20))
    assert len(loaded.items) == 20
    assert all(0.05 <= i.market_price <= 0.95 for i in loaded.items)
    assert loaded.items == sorted(loaded.items, key=lambda i: (i.cutoff, i.id))

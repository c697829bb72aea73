"""Harvester against recorded Polymarket responses served over real loopback sockets."""

import json
from datetime import UTC, datetime

import pytest

from reasonforge.errors import InputError
from reasonforge.forecast.dataset import load_items
from reasonforge.forecast.harvest import HarvestConfig, Harvester, clean_binary
from reasonforge.forecast.polymarket import GammaMarket, PolymarketClient, PolymarketError, parse_timestamp

from polymarket_server import DATA, FakePolymarket

NOW = datetime(2026, 8, 25, tzinfo=UTC)


def run(fake, tmp_path, sleeps=None, **overrides):
    config = HarvestConfig(out=tmp_path / "harvest.jsonl", now=NOW, **overrides)
    recorded = sleeps if sleeps is not None else []
    with PolymarketClient(fake.url, fake.url, min_interval_s=0, backoff_s=0.01, sleep=recorded.append) as client:
        return Harvester(client, config).run(), config.out


def test_recorded_gamma_objects_parse():
    real = GammaMarket.model_validate(json.loads((DATA / "gamma_market_559651.json").read_text()))
    assert real.string_list("outcomes") == ["Yes", "No"] and real.volume_usd() == pytest.approx(12071015.216477996)
    assert "Geopolitics" in real.tag_labels()
    event = json.loads((DATA / "gamma_event_2890.json").read_text())
    closed = GammaMarket.model_validate(event["markets"][0])
    assert parse_timestamp(closed.closed_time) == datetime(2021, 12, 5, 20, 37, 1, tzinfo=UTC)
    with pytest.raises(Exception, match="clean 0/1"):
        clean_binary(closed)


def test_recent_scan_keeps_only_clean_settlements_with_prices_at_cutoff(tmp_path):
    with FakePolymarket() as fake:
        summary, out = run(fake, tmp_path)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(r["id"] for r in rows) == [
        "polymarket/900001/168h", "polymarket/900001/24h", "polymarket/900001/72h",
        "polymarket/900002/24h",
        "polymarket/900003/168h", "polymarket/900003/24h", "polymarket/900003/72h"]
    assert summary.written == 7 and summary.scanned == 7
    assert summary.rejected == {
        "market did not exist at its cutoff": 3, "not a Yes/No market": 1, "not a clean 0/1 settlement": 1,
        "not closed": 1, "no trade in the 60 min before the cutoff": 2}
    for row in rows:
        cutoff = datetime.fromisoformat(row["cutoff"])
        price_at = datetime.fromisoformat(row["price_at"])
        assert price_at <= cutoff and (cutoff - price_at).total_seconds() <= 3600  # never forward, never stale
    by_id = {r["id"]: r for r in rows}
    assert by_id["polymarket/900002/24h"]["outcome"] == 0 and by_id["polymarket/900001/24h"]["outcome"] == 1
    # The placeholder end date (2099) is ignored: the settlement is closedTime.
    assert by_id["polymarket/900003/24h"]["resolved_at"].startswith("2026-08-19T06:00:00")
    assert by_id["polymarket/900001/24h"]["tags"] == ["Economy"]
    # The output is loadable as ForecastItems.
    assert len(load_items(out).items) == 7


def test_price_is_the_last_trade_at_or_before_the_cutoff(tmp_path):
    with FakePolymarket() as fake:
        _, out = run(fake, tmp_path)
        series = fake.series["1001"]
    row = next(json.loads(line) for line in out.read_text().splitlines() if json.loads(line)["id"] == "polymarket/900001/24h")
    cutoff = int(datetime.fromisoformat(row["cutoff"]).timestamp())
    expected = max((pt for pt in series if pt["t"] <= cutoff), key=lambda pt: pt["t"])
    assert row["market_price"] == expected["p"]
    assert int(datetime.fromisoformat(row["price_at"]).timestamp()) == expected["t"]


def test_runs_are_cumulative_and_resumable(tmp_path):
    with FakePolymarket() as fake:
        _first, out = run(fake, tmp_path)
        before = len(fake.log)
        second, _ = run(fake, tmp_path)
        history_calls = [p for p, _ in fake.log[before:] if p == "/prices-history"]
    assert second.written == 0 and second.already_present == 7
    assert history_calls == []  # known rows and remembered rejections cost no price request
    assert len(out.read_text().splitlines()) == 7
    state = json.loads(out.with_name(out.name + ".state.json").read_text())
    assert state["rejected"]["polymarket/900002/72h"].startswith("no trade")


def test_damaged_state_or_foreign_output_lines_never_crash(tmp_path):
    with FakePolymarket() as fake:
        _first, out = run(fake, tmp_path)
        state = out.with_name(out.name + ".state.json")
        saved = state.read_text()
        for damaged in ("[" * 100_000, '{"rejected": {}, "rejected": {}}', "{oops"):
            state.write_text(damaged)
            with pytest.raises(InputError, match="harvest state"):
                run(fake, tmp_path)
        state.write_text(saved)
        # Lines this reader did not write (too deep, too long, an id that is not a string) are skipped like a torn
        # line; every real row is still known, so nothing is fetched or written twice.
        rows = out.read_text()
        out.write_text("[" * 100_000 + "\n" + '{"id": ' + "9" * 5_000_000 + "}\n" + '{"id": [1]}\n' + rows)
        second, _ = run(fake, tmp_path)
    assert second.written == 0 and second.already_present == 7


def test_interval_too_long_is_split_not_fatal(tmp_path):
    with FakePolymarket(max_window_s=1000) as fake:
        summary, _out = run(fake, tmp_path)
        refused = [p for p, q in fake.log if p == "/prices-history" and int(q["endTs"]) - int(q["startTs"]) > 1000]
    assert refused, "the server must have refused long windows"
    assert summary.written == 7 and summary.stopped_early is None


def test_429_waits_for_retry_after(tmp_path):
    sleeps = []
    with FakePolymarket(rate_limit_first=True) as fake:
        summary, _ = run(fake, tmp_path, sleeps=sleeps)
    assert summary.rate_limited == 1 and 1.0 in sleeps and summary.written == 7


def test_backfill_walks_day_windows_and_misses_placeholder_end_dates(tmp_path):
    with FakePolymarket() as fake:
        _summary, out = run(fake, tmp_path, mode="backfill", back_days=10)
        windows = [q for p, q in fake.log if p == "/markets"]
    ids = {json.loads(line)["id"].split("/")[1] for line in out.read_text().splitlines()}
    assert ids == {"900001", "900002"}  # 900003's endDate is 2099: only the recent scan finds it
    assert all(q["end_date_max"] > q["end_date_min"] for q in windows)
    state = json.loads(out.with_name(out.name + ".state.json").read_text())
    assert len(state["backfill_done"]) == 10
    with FakePolymarket() as fake:
        run(fake, tmp_path, mode="backfill", back_days=10)
        assert [p for p, _ in fake.log if p == "/markets"] == []  # finished days are not walked again


def test_min_volume_and_unreachable_server(tmp_path):
    with FakePolymarket() as fake:
        summary, _ = run(fake, tmp_path, min_volume=100_000)
    assert summary.written == 3  # only 900001 trades more than 100k
    with (
        PolymarketClient("http://127.0.0.1:9", "http://127.0.0.1:9", max_retries=1, backoff_s=0, sleep=lambda s: None) as client,
        pytest.raises(PolymarketError, match="failed after 2 tries"),
    ):
        client.markets(closed=True)

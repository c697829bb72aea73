"""Commit-reveal endpoints on a live service wired to a devnode ForecastRegistry."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest

from reasonforge.certificate import devnode
from reasonforge.certificate import forecast_registry as fr
from reasonforge.certificate.validators import generate
from reasonforge.forecast.commit import PredictionRow, commit_rows, reveal, validator_addresses
from reasonforge.forecast.dataset import ForecastItem

from certhelpers import require_node_tools


@pytest.fixture
def chain(tmp_path: Path) -> Iterator[tuple[str, str, fr.CompiledForecastRegistry]]:
    require_node_tools()
    server, url = devnode.start()
    w3 = fr.connect(url)
    compiled = fr.compile_forecast_registry(tmp_path / "contracts")
    vset = generate(3, threshold=2)
    address = fr.deploy(w3, compiled, validator_addresses(vset), vset.threshold).address
    yield url, address, compiled
    devnode.stop(server)


def _stored_reveals(home: Path) -> list[tuple[str, int, int]]:
    import sqlite3

    with sqlite3.connect(home / "service.db") as db:
        return db.execute("SELECT item_id, probability_ppm, outcome FROM service_forecast_reveals").fetchall()


def test_register_a_root_then_score_reveals(service_factory, chain):
    url, address, _ = chain
    service = service_factory(env={"REASONFORGE_FORECAST_RPC_URL": url, "REASONFORGE_FORECAST_REGISTRY": address})
    cutoff = datetime(2099, 1, 1, tzinfo=UTC)
    items = [ForecastItem(id=f"q{i}", question="?", cutoff=cutoff, resolved_at=cutoff + timedelta(days=1),
                          outcome=i % 2, market_price=0.5, source="test") for i in range(3)]
    batch = commit_rows([PredictionRow(id="q0", probability=0.2), PredictionRow(id="q1", probability=0.8)], items)
    with httpx.Client(base_url=service.base_url, headers=service.headers, timeout=60) as client:
        created = client.post("/v1/forecasts/commitments", json=batch.commitment.model_dump())
        assert created.status_code == 201, created.text
        assert created.json()["batch"]["count"] == 2
        gas = [line for line in client.get("/metrics").text.splitlines()
               if line.startswith('reasonforge_registry_gas_total{operation="forecast_commit"}')]
        assert gas and float(gas[0].split()[-1]) == created.json()["gas_used"] > 0
        again = client.post("/v1/forecasts/commitments", json=batch.commitment.model_dump())
        assert again.status_code == 409 and again.json()["error"]["field"] == "root"
        openings = reveal(batch)
        forged = openings[1].model_copy(update={"forecast": openings[1].forecast.model_copy(
            update={"probability_ppm": 999_000})})
        scored = client.post("/v1/forecasts/reveals", json={
            "reveals": [openings[0].model_dump(mode="json"), forged.model_dump(mode="json")],
            "items": [i.model_dump(mode="json", include={"id", "cutoff", "outcome", "market_price"}) for i in items]})
        assert scored.status_code == 200, scored.text
        body = scored.json()
        assert body["scores"]["n_scored"] == 1 and body["scores"]["brier"] == pytest.approx(0.04)
        assert {e["reason"] for e in body["excluded"]} == {"altered", "unrevealed", "no_forecast"}
        kept = _stored_reveals(service.home)  # for the dashboard's reliability diagram: the scored one only
        assert kept == [("q0", 200_000, 0)]
        bad = client.post("/v1/forecasts/commitments", json={"root": "0x12", "count": 1, "scope": "0x" + "00" * 32})
        assert bad.status_code == 422


def test_without_a_registry_the_endpoints_answer_404(embedded_service):
    with httpx.Client(base_url=embedded_service.base_url, headers=embedded_service.headers, timeout=60) as client:
        r = client.post("/v1/forecasts/commitments", json={"root": "0x" + "11" * 32, "count": 1,
                                                           "scope": "0x" + "22" * 32})
    assert r.status_code == 404 and "no ForecastRegistry" in r.json()["error"]["message"]


# What schemathesis's coverage phase sent (ST201): `items` one over maxItems, its 12 generated entries tiled, with
# the smallest opening. At the old cap (20,000) that body is 2.6 MB, so the 1 MiB body limit answered 413 before the
# model saw it: the declared maxItems was never what refused it. The caps are now below what 1 MiB holds.
_CUTOFF = "2000-01-01T00:00:00Z"
_GENERATED_ITEMS = [{"cutoff": _CUTOFF, "id": item_id, "market_price": price, "outcome": outcome}
                    for item_id, price, outcome in [
                        ("0", 0.0, 0), (0, 0.0, 0), ("00", 0.0, 0), (False, 0.0, 0), ("0" * 200, 0.0, 0), (None, 0.0, 0),
                        ("0" * 199, 0.0, 0), ([None, None], 0.0, 0), ("0", 0.0, 1), ({}, 0.0, 0), ("0", 1.0, 0),
                        ("0" * 201, 0.0, 0)]]
_OPENING = {"forecast": {"item_id": "0", "probability_ppm": 0, "salt": "0x" + "0" * 62}, "index": 0, "path": [],
            "root": "0x" + "0" * 64}
_ONE_MIB = 1024 * 1024


def _generated_body(n_items: int) -> dict:
    items = (_GENERATED_ITEMS * (n_items // len(_GENERATED_ITEMS) + 1))[:n_items]
    return {"forecaster": "0x" + "0" * 40, "items": items, "reveals": [_OPENING]}


def test_lists_over_their_caps_are_422_within_the_body_limit(embedded_service):
    from reasonforge.service.routes.forecast_commits import MAX_ITEMS, MAX_REVEALS

    valid_items = [{"id": f"q{i}", "cutoff": _CUTOFF, "outcome": 0, "market_price": 0.5} for i in range(MAX_ITEMS + 1)]
    cases = {
        "items": {"reveals": [_OPENING], "items": valid_items},
        "reveals": {"reveals": [_OPENING] * (MAX_REVEALS + 1), "items": valid_items[:1]},
    }
    with httpx.Client(base_url=embedded_service.base_url, headers=embedded_service.headers, timeout=60) as client:
        exact = client.post("/v1/forecasts/reveals", json=_generated_body(20_001))  # the reported body, unchanged
        assert exact.status_code == 413, exact.text  # over REASONFORGE_MAX_BODY_BYTES: refused before parsing
        at_cap = _generated_body(MAX_ITEMS + 1)  # the same generated entries, one over today's cap
        assert len(httpx.Request("POST", "/", json=at_cap).content) < _ONE_MIB
        r = client.post("/v1/forecasts/reveals", json=at_cap)
        assert r.status_code == 422 and r.json()["error"]["code"] == "validation_error", r.text
        for field, body in cases.items():
            assert len(httpx.Request("POST", "/", json=body).content) < _ONE_MIB
            r = client.post("/v1/forecasts/reveals", json=body)
            assert r.status_code == 422, r.text
            assert r.json()["error"]["field"] == field and "at most" in r.json()["error"]["message"], r.text
            body[field] = body[field][:1]
            within = client.post("/v1/forecasts/reveals", json=body)  # valid: only the missing registry answers
            assert within.status_code == 404, within.text


@pytest.mark.parametrize("cutoff", [0, 1.5, "0", "1700000000", "2000-01-01", "2000-01-01T00:00:00",
                                    "2000-01-01 00:00:00Z", "2000-01-01T00:00:00+0000", "2000-01-01T00:00Z"])
def test_a_cutoff_that_is_not_an_rfc3339_string_with_offset_is_422(embedded_service, cutoff):
    # the schema says `type: string, format: date-time`; pydantic's lax datetime took Unix times and naive dates
    with httpx.Client(base_url=embedded_service.base_url, headers=embedded_service.headers, timeout=60) as client:
        r = client.post("/v1/forecasts/reveals", json={
            "reveals": [_OPENING], "items": [{"id": "q", "cutoff": cutoff, "outcome": 0, "market_price": 0.5}]})
    assert r.status_code == 422, r.text
    assert r.json()["error"]["field"] == "items[0].cutoff", r.text

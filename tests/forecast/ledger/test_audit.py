"""Audit output: the JSON record round-trips, the HTML page shows every part and escapes every text."""

import json
from datetime import date, timedelta

import pytest

from reasonforge.errors import InputError
from reasonforge.forecast.ledger.audit import (
    AuditRecord,
    audit_record,
    render_html,
    safe_name,
    write_audit,
)
from reasonforge.forecast.ledger.grade import GradeReport, grade_market
from reasonforge.forecast.ledger.models import Development, Forecast, Ledger, PricePoint

DAY0 = date(2015, 9, 1)
HOSTILE = ('I put this at 70% <script>alert("x")</script> because the ministry said on Sept 2 that a vote '
           'is likely & the "Rivers" bill will pass.')


def _ledger(developments: int = 4) -> Ledger:
    prices = [0.5, 0.5, 0.52, 0.8, 0.8, 0.79, 0.6, 0.6]
    devs = [Development(date=DAY0 + timedelta(days=3), text="Parliament passes the <b>Rivers</b> bill", source="AP"),
            Development(date=DAY0 + timedelta(days=6), text="The minister resigns after the vote", source="BBC"),
            Development(date=DAY0 + timedelta(days=1), text="Opposition announces a boycott", source="AP"),
            Development(date=DAY0 + timedelta(days=5), text="Protests in the capital over the bill", source="AFP")]
    return Ledger(market_id="rivers/bill 1", title="Will the Rivers bill pass?", day_zero=DAY0,
                  developments=devs[:developments],
                  price_path=[PricePoint(date=DAY0 + timedelta(days=i), price=p) for i, p in enumerate(prices)])


def _forecasts() -> list[Forecast]:
    return [Forecast(forecaster="arguer", reasoning=HOSTILE),
            Forecast(forecaster="lister", reasoning="- Bill tabled\n- Opposition angry\n- Vote next week"),
            Forecast(forecaster="<silent>", reasoning=None)]


def test_html_contains_every_part_and_escapes_all_text():
    ledger, forecasts = _ledger(), _forecasts()
    record = audit_record(ledger, forecasts, grade_market(ledger, forecasts))
    page = render_html(record)
    assert "<script>" not in page and "<b>Rivers</b>" not in page and "<silent>" not in page
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page
    assert "&lt;b&gt;Rivers&lt;/b&gt;" in page and "&lt;silent&gt;" in page
    for dev in ledger.developments:
        assert dev.text.replace("<", "&lt;").replace(">", "&gt;") in page
    assert "does not establish" in page  # proximity to a price move is not presented as cause
    assert "Imputed" in page and "No reasoning submitted." in page
    assert record.ledger_hash in page
    assert page.count("<h3>") == len(forecasts)


def test_audit_json_round_trips_and_files_are_written(tmp_path):
    ledger, forecasts = _ledger(), _forecasts()
    record = audit_record(ledger, forecasts, grade_market(ledger, forecasts))
    json_path, html_path = write_audit(record, tmp_path / "out")
    assert json_path.name == "rivers_bill_1.json" and html_path.name == "rivers_bill_1.html"
    again = AuditRecord.model_validate_json(json_path.read_text(encoding="utf-8"))
    assert again == record
    body = json.loads(json_path.read_text(encoding="utf-8"))
    assert set(body["report"]) >= {"market_id", "excluded", "key_events", "scores", "details"}
    assert body["explanations"][0]["reasoning"] == HOSTILE
    assert html_path.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_thin_ledger_page_says_excluded_and_why():
    ledger = _ledger(developments=2).model_copy(update={"excluded": "thin_ledger"})
    record = audit_record(ledger, _forecasts(), grade_market(ledger, _forecasts()))
    page = render_html(record)
    assert "Excluded" in page and "thin_ledger" in page and "at least 3" in page
    assert "Not graded" in page


def test_report_for_another_market_is_refused():
    ledger = _ledger()
    with pytest.raises(InputError, match="ledger is for"):
        audit_record(ledger, _forecasts(), GradeReport(market_id="other"))


def test_safe_name():
    assert safe_name("a/b c") == "a_b_c" and safe_name("...") == "market" and safe_name("ok-1.2") == "ok-1.2"

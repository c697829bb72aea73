"""`reasonforge forecast reasoning build-ledger | grade | audit`: output contracts, exclusions, input errors."""

import json
from datetime import date, timedelta

from typer.testing import CliRunner

from reasonforge.cli import app

runner = CliRunner()
DAY0 = date(2015, 9, 1)
ARGUMENT = ("I put this at 70% because the ministry said on Sept 2 that it has the votes, which makes it likely "
            "that parliament passes the Rivers bill within two weeks.")


def invoke(*args):
    return runner.invoke(app, ["forecast", "reasoning", *map(str, args)])


def _market(tmp_path, news: int = 4, name: str = "market.json"):
    days = [DAY0 + timedelta(days=i) for i in range(8)]
    prices = [0.5, 0.5, 0.52, 0.8, 0.8, 0.79, 0.6, 0.6]
    texts = ["Parliament passes the Rivers bill", "The minister resigns after the vote",
             "Opposition announces a boycott of the vote", "Protests in the capital over the Rivers bill"]
    body = {"market_id": "rivers-bill", "title": "Will parliament pass the Rivers bill?", "day_zero": str(DAY0),
            "price_path": [{"date": str(d), "price": p} for d, p in zip(days, prices, strict=True)],
            "news": [{"date": str(DAY0 + timedelta(days=(3, 6, 1, 5)[i])), "text": texts[i], "source": "AP",
                      "ref": f"n{i}"} for i in range(news)]}
    path = tmp_path / name
    path.write_text(json.dumps(body), encoding="utf-8")
    return path


def _forecasts(tmp_path):
    path = tmp_path / "f.jsonl"
    rows = [{"forecaster": "arguer", "reasoning": ARGUMENT},
            {"forecaster": "lister", "reasoning": "- Bill tabled\n- Opposition angry\n- Vote next week soon"},
            {"forecaster": "quiet"}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_build_then_grade_json_has_exactly_the_report_keys(tmp_path):
    out = tmp_path / "L.json"
    built = invoke("build-ledger", _market(tmp_path), "--out", out)
    assert built.exit_code == 0, built.output
    assert "4 development(s)" in built.stdout and "saved" in built.stdout
    stored = json.loads(out.read_text(encoding="utf-8"))
    assert {"market_id", "title", "day_zero", "developments", "price_path", "content_hash"} <= set(stored)
    graded = invoke("grade", "--ledger", out, "--forecasts", _forecasts(tmp_path), "--json")
    assert graded.exit_code == 0, graded.output
    report = json.loads(graded.stdout)
    assert list(report) == ["market_id", "excluded", "key_events", "scores", "details"]
    assert report["excluded"] is None and report["market_id"] == "rivers-bill"
    assert report["scores"]["arguer"] > report["scores"]["lister"] == 0.0
    assert report["details"]["quiet"]["imputed"] is True
    assert {e["text"] for e in report["key_events"]} >= {"Parliament passes the Rivers bill"}


def test_grade_prints_scores_and_writes_html(tmp_path):
    ledger = tmp_path / "L.json"
    assert invoke("build-ledger", _market(tmp_path), "--out", ledger).exit_code == 0
    html = tmp_path / "page" / "audit.html"
    result = invoke("grade", "--ledger", ledger, "--forecasts", _forecasts(tmp_path), "--html", html,
                    "--audit-json", tmp_path / "audit.json")
    assert result.exit_code == 0, result.output
    assert "arguer" in result.stdout and "lister" in result.stdout and "imputed" in result.stdout
    assert "key events" in result.stdout
    assert ARGUMENT in html.read_text(encoding="utf-8")
    assert json.loads((tmp_path / "audit.json").read_text("utf-8"))["market_id"] == "rivers-bill"


def test_thin_ledger_is_reported_as_excluded_with_reason(tmp_path):
    market = _market(tmp_path, news=2)
    built = invoke("build-ledger", market)  # default --out: beside the market file
    assert built.exit_code == 0, built.output
    assert "thin_ledger" in built.stdout and "at least 3" in built.stdout
    ledger = tmp_path / "market.ledger.json"
    graded = invoke("grade", "--ledger", ledger, "--forecasts", _forecasts(tmp_path), "--json")
    report = json.loads(graded.stdout)
    assert report["excluded"] == "thin_ledger" and report["scores"] == {}
    human = invoke("grade", "--ledger", ledger, "--forecasts", _forecasts(tmp_path))
    assert "excluded" in human.stdout and "no reasoning score" in " ".join(human.stdout.split())


def test_input_errors_exit_2_without_traceback(tmp_path):
    missing = invoke("grade", "--ledger", tmp_path / "nope.json", "--forecasts", _forecasts(tmp_path))
    assert missing.exit_code == 2 and "does not exist" in missing.output and "Traceback" not in missing.output
    ledger = tmp_path / "L.json"
    invoke("build-ledger", _market(tmp_path), "--out", ledger)
    tampered = json.loads(ledger.read_text("utf-8"))
    tampered["developments"][0]["text"] = "Something else entirely"
    ledger.write_text(json.dumps(tampered), encoding="utf-8")
    changed = invoke("grade", "--ledger", ledger, "--forecasts", _forecasts(tmp_path))
    assert changed.exit_code == 2 and "changed after it was saved" in " ".join(changed.output.split())
    bad_rows = tmp_path / "bad.jsonl"
    bad_rows.write_text('{"forecaster": "a", "reasoning": "x"}\nnot json\n', encoding="utf-8")
    invoke("build-ledger", _market(tmp_path), "--out", ledger)
    bad = invoke("grade", "--ledger", ledger, "--forecasts", bad_rows)
    assert bad.exit_code == 2 and "line 2" in bad.output
    no_corpus = invoke("build-ledger", _market(tmp_path), "--corpus", tmp_path / "no-index")
    assert no_corpus.exit_code == 2 and "not a directory" in " ".join(no_corpus.output.split())


def test_audit_renders_a_directory_of_ledgers(tmp_path):
    ledgers, forecasts, out = tmp_path / "ledgers", tmp_path / "forecasts", tmp_path / "out"
    ledgers.mkdir()
    forecasts.mkdir()
    assert invoke("build-ledger", _market(tmp_path), "--out", ledgers / "rivers-bill.json").exit_code == 0
    (forecasts / "rivers-bill.jsonl").write_text(_forecasts(tmp_path).read_text("utf-8"), encoding="utf-8")
    result = invoke("audit", "--ledgers", ledgers, "--forecasts", forecasts, "--out", out, "--json")
    assert result.exit_code == 0, result.output
    body = json.loads(result.stdout)
    assert [m["market_id"] for m in body["markets"]] == ["rivers-bill"]
    assert {p.name for p in out.iterdir()} == {"rivers-bill.json", "rivers-bill.html", "index.html"}
    (forecasts / "rivers-bill.jsonl").unlink()
    orphan = invoke("audit", "--ledgers", ledgers, "--forecasts", forecasts, "--out", out)
    assert orphan.exit_code == 2 and "no forecasts for ledger" in " ".join(orphan.output.split())


# --- hand-written and edited ledgers -------------------------------------------------------------------

def _hand_written(tmp_path, developments, *, excluded=None, with_hash=False):
    """A ledger file written by hand (no build-ledger); `with_hash`: its author computed the hash too."""
    from reasonforge.forecast.ledger.models import Ledger

    days = [DAY0 + timedelta(days=i) for i in range(8)]
    body = {"market_id": "rivers-bill", "title": "Will parliament pass the Rivers bill?", "day_zero": str(DAY0),
            "developments": [{"date": str(DAY0 + timedelta(days=d)), "text": t, "source": "AP", "ref": r}
                             for d, t, r in developments],
            "price_path": [{"date": str(d), "price": p} for d, p in
                           zip(days, [0.5, 0.5, 0.52, 0.8, 0.8, 0.79, 0.6, 0.6], strict=True)],
            "excluded": excluded}
    if with_hash:
        body["content_hash"] = Ledger.model_validate(body).content_hash()
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(body), encoding="utf-8")
    return path


TWO = [(3, "Parliament passes the Rivers bill", "n0"), (6, "The minister resigns after the vote", "n1")]


def test_unhashed_hand_written_ledger_is_refused_then_rehashed_and_excluded_as_thin(tmp_path):
    ledger = _hand_written(tmp_path, TWO)
    refused = invoke("grade", "--ledger", ledger, "--forecasts", _forecasts(tmp_path), "--json")
    flat = " ".join(refused.output.split())
    assert refused.exit_code == 2 and "Traceback" not in refused.output
    assert "no content_hash" in flat and str(ledger) in flat and "reasoning rehash" in flat
    rehashed = invoke("rehash", ledger)
    assert rehashed.exit_code == 0, rehashed.output
    said = " ".join(rehashed.stdout.split())
    assert "rehashed" in said and "no content_hash" in said and "2 distinct development(s)" in said
    assert "thin_ledger" in said
    graded = invoke("grade", "--ledger", ledger, "--forecasts", _forecasts(tmp_path), "--json")
    assert graded.exit_code == 0, graded.output
    report = json.loads(graded.stdout)
    assert report["excluded"] == "thin_ledger" and report["scores"] == {} and report["details"] == {}
    again = invoke("rehash", ledger, "--json")
    assert again.exit_code == 0 and json.loads(again.stdout)["changed"] is False


def test_self_hashed_thin_ledger_padded_with_copies_is_still_excluded(tmp_path):
    # Adversarial: the author has read the source, so the hash is valid and `excluded` is null; the two
    # developments are padded to five with copies (case, punctuation, a reused document id) and one
    # item dated after the window. Grading counts distinct in-window events and excludes the market.
    padded = [*TWO, (3, "PARLIAMENT passes the Rivers bill!", "n9"), (4, "Minister quits", "n1"),
              (20, "The president signs the Rivers bill", "n7")]
    ledger = _hand_written(tmp_path, padded, with_hash=True)
    graded = invoke("grade", "--ledger", ledger, "--forecasts", _forecasts(tmp_path), "--json")
    assert graded.exit_code == 0, graded.output
    assert json.loads(graded.stdout)["excluded"] == "thin_ledger"
    human = invoke("grade", "--ledger", ledger, "--forecasts", _forecasts(tmp_path))
    assert "2 distinct development(s)" in " ".join(human.stdout.split())


def test_edited_ledger_with_its_old_hash_is_refused_until_rehashed(tmp_path):
    ledger = tmp_path / "L.json"
    assert invoke("build-ledger", _market(tmp_path), "--out", ledger).exit_code == 0
    body = json.loads(ledger.read_text("utf-8"))
    old_hash = body["content_hash"]
    body["developments"][0]["text"] = ARGUMENT  # the forecaster's own words, to be "anticipated"
    ledger.write_text(json.dumps(body), encoding="utf-8")
    refused = invoke("grade", "--ledger", ledger, "--forecasts", _forecasts(tmp_path))
    flat = " ".join(refused.output.split())
    assert refused.exit_code == 2 and "changed after it was saved" in flat and "reasoning rehash" in flat
    assert str(ledger) in flat and "Traceback" not in refused.output
    done = invoke("rehash", ledger, "--json")
    assert done.exit_code == 0, done.output
    record = json.loads(done.stdout)
    assert record["changed"] is True and record["previous_hash"] == old_hash != record["content_hash"]
    assert invoke("grade", "--ledger", ledger, "--forecasts", _forecasts(tmp_path), "--json").exit_code == 0


def test_rehash_input_errors_exit_2(tmp_path):
    missing = invoke("rehash", tmp_path / "nope.json")
    assert missing.exit_code == 2 and "does not exist" in missing.output and "Traceback" not in missing.output
    broken = tmp_path / "broken.json"
    broken.write_text('{"market_id": "m"}', encoding="utf-8")
    bad = invoke("rehash", broken)
    assert bad.exit_code == 2 and "not a valid ledger" in " ".join(bad.output.split())

"""Write the reasoning-trajectory example markets and forecasts to `examples/ledger/` (deterministic).

    .venv/bin/python scripts/build_ledger_examples.py            # markets/*.json and forecasts/*.jsonl
    .venv/bin/python scripts/build_ledger_examples.py --render   # also ledgers/ and audit/ (news sample corpus)

Each market is a question about a story in the news sample (`data/wikipedia_cep_2015_09`), with a
synthetic daily price path: small seeded wiggles plus the two largest moves placed on days the story had
developments. Each market has four forecasters: `headlines` (a bare list of headlines: argument 0),
`analyst` (a real argument that anticipates a later development), `terse` (under 50 characters) and
`silent` (no reasoning: imputed). The Burkina Faso market is the counter-example: few items in the sample
name the country, so its ledger is thin and the market is excluded (no reasoning scores).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from datetime import date, timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
NEWS_SAMPLE = REPO / "data" / "wikipedia_cep_2015_09" / "events.jsonl"
DEFAULT_OUT = REPO / "examples" / "ledger"
WINDOW_DAYS = 14
TERSE = "Probably yes, markets like this resolve YES."

MARKETS: list[dict] = [
    {
        "market_id": "eu-relocation-vote",
        "story": "European migrant crisis",  # the news sample story the moves follow
        "title": "Will the European Parliament approve the plan to relocate 120,000 asylum seekers across the EU?",
        "day_zero": "2015-09-08", "start": 0.45,
        "moves": {"2015-09-13": -0.10, "2015-09-17": +0.30},
        "headlines": ["Hungary closes Budapest Keleti station to migrants",
                      "Thousands of refugees arrive at Munich Hauptbahnhof",
                      "Photo of a drowned Syrian boy on a Turkish beach",
                      "Pope Francis asks parishes to host refugee families"],
        "analyst": ("I put this at 60%. Germany's vice chancellor said on September 8 that Germany can take "
                    "500,000 asylum seekers a year and wants other states to share the load, which raises the "
                    "pressure for an EU-wide quota. Hungary, Slovakia and the Czech Republic oppose quotas, so "
                    "I expect a rough week first: Germany will probably reintroduce emergency controls on its "
                    "border with Austria to force the issue. Even so the European Parliament is likely to "
                    "approve the Commission plan to relocate 120,000 asylum seekers, because a plenary vote "
                    "needs only a simple majority."),
    },
    {
        "market_id": "yemen-sanaa-advance",
        "story": "Saudi Arabian-led intervention in Yemen",  # the news sample story the moves follow
        "title": "Will Saudi-led coalition troops advance on Sana'a, the Houthi-held capital of Yemen?",
        "day_zero": "2015-09-05", "start": 0.30,
        "moves": {"2015-09-09": +0.12, "2015-09-14": +0.25},
        "headlines": ["Arms depot explosion in Yemen kills 45 Emirati soldiers",
                      "Five Bahraini soldiers killed on the Saudi-Yemeni border",
                      "Coalition air strikes continue over Yemen"],
        "analyst": ("My estimate is 55%. The September 4 depot explosion that killed 45 Emirati soldiers is "
                    "more likely to harden the coalition than break it, because Abu Dhabi has staked its "
                    "credibility on the campaign. Egypt has hinted it will send ground troops, and if about "
                    "800 Egyptian troops deploy to Yemen the coalition gains the manpower it lacks. I expect "
                    "Emirati troops to advance on Sana'a once they secure Marib, which would put the capital "
                    "in reach within the window."),
    },
    {
        "market_id": "russia-syria-operations",
        "story": "Syrian civil war",  # the news sample story the moves follow
        "title": "Will Russia begin military operations in Syria in support of Bashar al-Assad?",
        "day_zero": "2015-09-06", "start": 0.25,
        "moves": {"2015-09-09": +0.30, "2015-09-18": +0.15},
        "headlines": ["Car bomb in Latakia Governorate",
                      "Rebels and ISIS fighters battle near Mare' in Aleppo Governorate",
                      "Reports of Russian advisers in Syria"],
        "analyst": ("I estimate 65%. Reports from late August of Russian advisers and aircraft parts at Latakia, "
                    "plus Moscow's statements backing Assad, suggest a build-up rather than routine supply. "
                    "Because the Assad government is losing ground in Idlib, Russia has a reason to act now. "
                    "I expect Russian forces to begin combat operations in Syria in support of the government, "
                    "and Russia will likely move its first fighter jets to Syria within two weeks, which "
                    "would make the answer yes."),
    },
    {
        "market_id": "turkey-pkk-iraq-strikes",
        "story": "Turkey–PKK conflict",  # the news sample story the moves follow
        "title": "Will Turkey strike PKK militant camps in northern Iraq again?",
        "day_zero": "2015-09-06", "start": 0.55,
        "moves": {"2015-09-08": +0.20, "2015-09-11": +0.12},
        "headlines": ["Ceasefire between Turkey and the PKK collapsed in July",
                      "Turkish early election set for November",
                      "Clashes in south-east Turkey"],
        "analyst": ("I put this at 80%. The ceasefire collapsed in July and the government has reported dozens "
                    "of soldiers killed since, so the pressure to retaliate is high before the November "
                    "election. A large PKK attack on soldiers is likely, and after one the Turkish jets will "
                    "probably bomb PKK sites in northern Iraq, as they did in late July. I expect the Turkish "
                    "Air Force to strike dozens of PKK targets in northern Iraq within the window."),
    },
    {
        "market_id": "japan-etau-floods",
        "story": "2015 Pacific typhoon season",  # the news sample story the moves follow
        "title": "Will Tropical Storm Etau flooding in Japan claim more than five lives?",
        "day_zero": "2015-09-09", "start": 0.20,
        "moves": {"2015-09-11": +0.25, "2015-09-13": +0.35},
        "headlines": ["Tropical Storm Etau makes landfall in Aichi",
                      "Heavy rain warnings across eastern Japan",
                      "Rivers rising in Tochigi and Ibaraki"],
        "analyst": ("I estimate 45%. The Japan Meteorological Agency reported record rainfall totals over "
                    "Tochigi and Ibaraki, which makes river levees the main risk. Because the Kinugawa basin "
                    "drains toward Joso city, I expect floods and landslides there with people missing, and "
                    "the death toll from flooding in Japan is likely to rise over several days as searches "
                    "continue, so the count could pass five."),
    },
    {
        "market_id": "burkina-faso-coup",
        "story": "2015 Burkinabé coup d'état",  # the news sample story the moves follow
        "title": "Will the military take power in Burkina Faso before the October 2015 election?",
        "day_zero": "2015-09-14", "start": 0.08,
        "moves": {"2015-09-16": +0.40, "2015-09-17": +0.35},
        "headlines": ["Burkina Faso election campaign opens",
                      "Presidential guard RSP under scrutiny",
                      "Transitional government in Ouagadougou"],
        "analyst": ("I put this at 15%. The commission on reconciliation recommended on September 14 that the "
                    "presidential guard (RSP) be dissolved, which gives Compaore loyalists in the RSP a motive "
                    "to act before the vote. If the guard moves, soldiers will likely detain the interim "
                    "president and prime minister, and coup leaders would then name General Gilbert Diendere "
                    "head of a new transitional body."),
    },
]


def price_path(spec: dict) -> list[dict]:
    """Daily prices from three days before day zero to the end of the window: seeded wiggles + the moves."""
    day_zero = date.fromisoformat(spec["day_zero"])
    rng = random.Random(spec["market_id"])  # string seeds are stable across runs and platforms
    price = spec["start"]
    points = []
    for offset in range(-3, WINDOW_DAYS + 1):
        day = day_zero + timedelta(days=offset)
        if offset > -3:
            price += spec["moves"].get(day.isoformat(), rng.uniform(-0.015, 0.015))
        price = min(0.98, max(0.02, price))
        points.append({"date": day.isoformat(), "price": round(price, 4)})
    return points


def market(spec: dict) -> dict:
    """The market JSON (no news stream: the ledger comes from the dated corpus)."""
    return {"market_id": spec["market_id"], "title": spec["title"], "description": "",
            "day_zero": spec["day_zero"], "price_path": price_path(spec)}


def forecasts(spec: dict) -> list[dict]:
    """The four forecasters' rows for one market (F.jsonl)."""
    return [{"forecaster": "headlines", "reasoning": "\n".join(f"- {h}" for h in spec["headlines"])},
            {"forecaster": "analyst", "reasoning": spec["analyst"]},
            {"forecaster": "terse", "reasoning": TERSE},
            {"forecaster": "silent", "reasoning": None}]


def write_inputs(out: Path) -> list[str]:
    """Write markets/<id>.json and forecasts/<id>.jsonl under `out`; return the market ids."""
    (out / "markets").mkdir(parents=True, exist_ok=True)
    (out / "forecasts").mkdir(parents=True, exist_ok=True)
    for spec in MARKETS:
        mid = spec["market_id"]
        (out / "markets" / f"{mid}.json").write_text(json.dumps(market(spec), indent=2) + "\n", encoding="utf-8")
        rows = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in forecasts(spec))
        (out / "forecasts" / f"{mid}.jsonl").write_text(rows, encoding="utf-8")
    return [spec["market_id"] for spec in MARKETS]


def render(out: Path) -> None:
    """Build every ledger from the news sample corpus, grade offline and write the audit pages."""
    sys.path.insert(0, str(REPO / "src"))
    from reasonforge.forecast.agentic.corpus import DatedCorpus, load_articles
    from reasonforge.forecast.ledger.audit import (
        audit_record,
        render_index,
        write_audit,
    )
    from reasonforge.forecast.ledger.build import build_ledger
    from reasonforge.forecast.ledger.grade import OfflineGrader, grade_market
    from reasonforge.forecast.ledger.models import (
        load_forecasts,
        load_market,
        save_ledger,
    )

    grader = OfflineGrader()
    records, pages = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        corpus = DatedCorpus.open(Path(tmp) / "cep-index")
        corpus.ingest(load_articles(NEWS_SAMPLE, "cep"))
        for spec in MARKETS:
            mid = spec["market_id"]
            ledger = build_ledger(load_market(out / "markets" / f"{mid}.json"), corpus=corpus,
                                  window_days=WINDOW_DAYS)
            save_ledger(ledger, out / "ledgers" / f"{mid}.json")
            rows = load_forecasts(out / "forecasts" / f"{mid}.jsonl")
            record = audit_record(ledger, rows, grade_market(ledger, rows, grader))
            _, html_path = write_audit(record, out / "audit")
            records.append(record)
            pages[mid] = html_path.name
            print(f"{mid}: {record.report.excluded or record.report.scores}")
    (out / "audit" / "index.html").write_text(render_index(records, pages), encoding="utf-8")


def main() -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--render", action="store_true", help="also build ledgers/ and audit/")
    args = parser.parse_args()
    ids = write_inputs(args.out)
    print(f"wrote {len(ids)} markets and forecasts to {args.out}")
    if args.render:
        render(args.out)


if __name__ == "__main__":
    main()

"""The API load benchmark runs end to end at a tiny size against a real local server."""

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from reasonforge.pipeline.run import verify_chain
from reasonforge.types import Overall

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location(
    "api_load_bench", ROOT / "benchmarks" / "api_load.py"
)
bench = importlib.util.module_from_spec(_spec)
sys.modules["api_load_bench"] = bench
_spec.loader.exec_module(bench)


def test_chains_are_distinct_and_every_fifth_has_a_caught_slip() -> None:
    chains = [bench.make_chain(i, 10) for i in range(10)]
    assert len({c.original_query for c in chains}) == 10
    assert all(
        len(c.reasoning_chain) == 10 and not c.generate_certificate for c in chains
    )
    assert [c.proof_level.value for c in chains[:2]] == ["quick", "standard"]
    verdicts = [verify_chain(c) for c in chains]
    assert [v.overall for v in verdicts] == [Overall.VERIFIED] * 4 + [
        Overall.PARTIAL
    ] + [Overall.VERIFIED] * 4 + [Overall.PARTIAL]
    slipped = verdicts[4]
    assert slipped.failure_report.failed_step_id == 6 and slipped.verified_steps == 5
    with pytest.raises(ValueError, match="at least 2"):
        bench.make_chain(0, 1)


def test_percentile_interpolates() -> None:
    assert bench.percentile([4.0, 1.0, 3.0, 2.0], 50) == 2.5
    assert bench.percentile([1.0, 2.0], 99) == pytest.approx(1.99)
    assert bench.percentile([7.0], 99) == 7.0


def test_bad_sizes_are_refused(capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        bench.main(["--clients", "0"])
    assert (
        stop.value.code == 2
        and "--clients must be at least 1" in capsys.readouterr().err
    )


@pytest.mark.slow
@pytest.mark.parametrize("mode", [[], ["--scaled"]], ids=["embedded", "scaled"])
def test_json_report_at_tiny_size(mode, capsys) -> None:
    argv = [
        "--clients",
        "3",
        "--per-client",
        "2",
        "--steps",
        "6",
        "--workers",
        "2",
        "--timeout",
        "150",
    ]
    assert bench.main([*argv, "--json", *mode]) == 0, capsys.readouterr().out
    r = json.loads(capsys.readouterr().out)
    assert r["errors"] == 0 and r["error_examples"] == []
    assert r["verifications"] == 6 and r["clients"] == 3 and r["cpu_count"] >= 1
    assert r["rounds"] == 3 and len(r["round_ratios"]) == 3
    assert r["verdicts"] == {"PARTIAL": 1, "VERIFIED": 5}
    assert r["api_verifications_per_s"] > 0 and r["direct_verifications_per_s"] > 0
    assert (
        0
        < r["api_latency_p50_ms"]
        <= r["api_latency_p99_ms"]
        <= r["api_latency_max_ms"]
    )
    assert r["throughput_ratio_api_vs_direct"] == pytest.approx(
        r["api_verifications_per_s"] / r["direct_verifications_per_s"], rel=0.02
    )
    assert r["mode"].startswith("scaled" if mode else "embedded")
    assert "ratio API / direct throughput" in bench.render(r)

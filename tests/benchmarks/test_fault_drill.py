"""The fault drill runs end to end at a tiny size against real local services: nothing lost, nothing duplicated."""

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("fault_drill_bench", ROOT / "benchmarks" / "fault_drill.py")
bench = importlib.util.module_from_spec(_spec)
sys.modules["fault_drill_bench"] = bench
_spec.loader.exec_module(bench)


def test_the_workload_is_fixed_by_its_seed_with_one_key_per_job() -> None:
    jobs = bench.workload(20, 2, seed=3)
    assert [j.key for j in jobs] == [j.key for j in bench.workload(20, 2, seed=3)]
    assert len({j.key for j in jobs}) == 22
    model = [j for j in jobs if j.body.get("translator") == "model"]
    assert len(model) == 2 and all(j.expected is None for j in model)
    maths = [j for j in jobs if j.expected is not None]
    assert {j.body["proof_level"] for j in maths} == {"quick"}
    assert sorted(j.expected for j in maths).count("PARTIAL") == 4  # one chain in five has a slip


def test_bad_sizes_are_refused(capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        bench.main(["--clients", "0"])
    assert stop.value.code == 2 and "--clients must be at least 1" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.parametrize("store", ["sqlite", "postgres"])
def test_a_tiny_drill_loses_and_duplicates_nothing(store, capsys) -> None:
    argv = ["--store", store, "--clients", "4", "--jobs", "12", "--model-jobs", "1", "--timeout", "400", "--json"]
    code = bench.main(argv)
    out = capsys.readouterr().out
    [r] = json.loads(out)
    assert code == 0, bench.render(r)
    assert r["lost"] == 0 and r["duplicated"] == 0 and r["wrong"] == 0 and r["unacknowledged"] == 0
    assert r["submitted"] == 13 and r["completed"] + r["failed"] == 13
    assert [f["fault"] for f in r["faults"] if "what" in f] == ["worker killed", "database restarted"]
    # The model-backed job met the stalled endpoint and ended with the reason; the mathematics all completed.
    assert r["completed"] >= 12 and "model endpoint" in " ".join(r["failed_reasons"])
    assert r["latency_p99_ms"] >= r["latency_p50_ms"] > 0

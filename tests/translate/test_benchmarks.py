"""The benchmarks run on the repo's data slices and meet their targets (and can miss them)."""

from pathlib import Path

import pytest

from reasonforge.lang.english import EnglishReader, Givens
from reasonforge.translate import LogicTranslator

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture
def bench(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import prontoqa
    import proofwriter

    return prontoqa, proofwriter


@pytest.mark.slow  # about 10 s: some 1,500 solver checks
def test_prontoqa_targets_on_60_chains(bench):
    prontoqa, _ = bench
    problems = prontoqa.load_problems(prontoqa.DEFAULT_DATA, limit=60)
    assert sum(p.id.startswith("ProntoQA_") for p in problems) == 30  # both files represented
    report = prontoqa.run_benchmark(problems, seed=0)
    assert report.chains == 60
    assert report.chain_verified >= 0.95, report.failures[:3]
    assert report.corrupt_negated_fact >= 0.95, report.failures[:3]
    assert report.corrupt_foreign_rule >= 0.95, report.failures[:3]
    assert report.label_accuracy >= 0.95, report.failures[:3]
    assert report.passed


class _ForgetfulReader(EnglishReader):
    def read_givens(self, text, parser):
        return Givens((), ())


class _ForgetfulTranslator(LogicTranslator):
    """Drops the theory: the benchmark must notice."""

    def __init__(self):
        super().__init__()
        self.reader = _ForgetfulReader()


def test_prontoqa_benchmark_can_fail(bench):
    prontoqa, _ = bench
    report = prontoqa.run_benchmark(prontoqa.load_problems(prontoqa.DEFAULT_DATA, limit=6), translator=_ForgetfulTranslator())
    assert not report.passed
    assert report.chain_verified < 0.95 and report.label_accuracy < 0.95


def test_both_prontoqa_row_formats_are_read(bench):
    prontoqa, _ = bench
    a = prontoqa.problem_from_row({"id": "e1", "question": "Fae is a cat.", "query": "True or false: Fae is a cat.",
                                   "chain_of_thought": ["Fae is a cat."], "answer": "True"})
    b = prontoqa.problem_from_row({"id": "P_1", "context": "Max is a yumpus.",
                                   "question": "Is the following statement true or false? Max is sour.",
                                   "explanation": ["Max is not sour."], "answer": "B"})
    assert (a.context, a.statement, a.label) == ("Fae is a cat.", "Fae is a cat.", True)
    assert (b.context, b.statement, b.label) == ("Max is a yumpus.", "Max is sour.", False)


def test_proofwriter_slice_is_covered(bench):
    _, proofwriter = bench
    report = proofwriter.run_benchmark(proofwriter.load_rows(proofwriter.DEFAULT_DATA, limit=24))
    assert report.rows == 24 and report.rows_covered == 1.0
    assert report.label_accuracy_on_covered >= 0.9
    assert report.forward_chaining_accuracy_on_covered == 1.0

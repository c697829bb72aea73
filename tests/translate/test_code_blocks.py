"""Offline code translator: fenced blocks + doctest examples → one test module per step; examples end to end."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from reasonforge import VerifyRequest, verify_chain
from reasonforge.translate import default_translator
from reasonforge.translate.code_blocks import CodeBlockTranslator, extract_step
from reasonforge.types import ArtifactLanguage, Assurance, Domain, Overall, StepStatus
from reasonforge.verify import sandbox as sb
from reasonforge.verify.code.complexity import find_claim

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
needs_sandbox = pytest.mark.skipif(sb.unavailable_reason() is not None, reason=f"sandbox unavailable: {sb.unavailable_reason()}")

STEP = """We count with a dict:
```python
def count(xs):
    '''
    >>> count([3])
    {3: 1}
    '''
    d = {}
    for x in xs:
        d[x] = d.get(x, 0) + 1
    return d
```
For example:
>>> count([1, 1, 2])
{1: 2, 2: 1}
>>> r = count([])
>>> r
{}

It runs in O(n) time.
```text
not python
```
"""


def test_extract_step_finds_code_examples_and_claim():
    got = extract_step(STEP)
    assert len(got.code) == 1 and got.functions == ["count"]
    assert got.claim == "O(n)"
    flat = [pair for block in got.examples for pair in block]
    assert ("count([3])", "{3: 1}") in flat
    assert ("count([1, 1, 2])", "{1: 2, 2: 1}") in flat
    assert ("r = count([])", None) in flat and ("r", "{}") in flat


def test_default_translator_for_code():
    assert isinstance(default_translator(Domain.CODE), CodeBlockTranslator)


def _request(steps):
    return VerifyRequest.model_validate({"domain": "code", "reasoning_chain": steps})


def test_translate_chain_builds_one_module_per_step_with_ancestors():
    req = _request([{"step_id": 1, "content": STEP},
                    {"step_id": 2, "content": "Counting again:\n>>> count('aab')\n{'a': 2, 'b': 1}"},
                    {"step_id": 3, "content": "Nothing checkable here."}])
    out = CodeBlockTranslator().translate_chain(req, {1: [], 2: [1], 3: [1, 2]})
    assert [t.language for t in out] == [ArtifactLanguage.PYTHON] * 3
    first, second, third = (t.formal_representation for t in out)
    tree = ast.parse(second)
    tests = [n.name for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("test")]
    assert "def count(xs)" in second and "test_step2_example_1" in tests and "test_step1_example_1" in tests
    assert "assert (count('aab')) == ({'a': 2, 'b': 1})" in second
    assert find_claim(first).function == "count"
    assert third == "" and out[2].translation_confidence == 0.0 and "no ```python block" in out[2].notes


def test_non_literal_expected_output_is_run_not_compared_by_its_text():
    req = _request([{"step_id": 1, "content": "```python\nclass P:\n    def __repr__(self):\n        return '<P>'\n```\n"
                                              ">>> P()\n<P>"}])
    (t,) = CodeBlockTranslator().translate_chain(req, {1: []})
    assert "repr(" not in t.formal_representation and "    P()\n" in t.formal_representation
    assert "not a literal: unread" in t.formal_representation


def test_examples_become_tests_as_doctest_runs_them():
    step = ("```python\ndef half(n):\n    if n < 0:\n        raise ValueError('negative')\n    return n // 2\n```\n"
            ">>> half(4)  # doctest: +NORMALIZE_WHITESPACE\n2\n>>> half(9)  # exact\n4\n"
            ">>> half(-1)\nTraceback (most recent call last):\n...\nValueError: negative\n"
            ">>> half(200)  # doctest: +ELLIPSIS\n10...\n>>> half(8)\n[4, ...]\n>>> print(half(6))\n3\n"
            ">>> half(7)  # doctest: +SKIP\n99")
    (t,) = CodeBlockTranslator().translate_chain(_request([{"step_id": 1, "content": step}]), {1: []})
    module = t.formal_representation
    namespace: dict = {}
    exec(compile(module, "artifact.py", "exec"), namespace)  # a directive or comment swallows no parenthesis
    namespace["test_step1_example_1"]()  # correct code passes every example doctest passes
    assert "half(7)" not in module  # skipped: doctest never runs it
    assert "half(9)  # exact\n) == (4)" in module
    for unread in ("half(4)", "half(200)", "half(8)", "print(half(6))"):
        assert f"    {unread}" in module and f"assert ({unread}" not in module
    namespace["half"] = lambda n: n // 2  # raises nothing: the traceback example refutes it
    with pytest.raises(AssertionError, match="should raise ValueError"):
        namespace["test_step1_example_1"]()


def _example(name):
    return VerifyRequest.model_validate(json.loads((EXAMPLES / f"{name}.json").read_text()))


@pytest.mark.slow
@needs_sandbox
def test_example_frequency_count_verifies():
    verdict = verify_chain(_example("frequency-count"))
    assert verdict.overall is Overall.VERIFIED, [v.error_message for v in verdict.step_verdicts]
    assert verdict.step_verdicts[2].details["complexity_fit"]["claim"] == "O(n)"


@pytest.mark.slow
@needs_sandbox
def test_example_off_by_one_fails_with_the_failing_test():
    verdict = verify_chain(_example("frequency-count-off-by-one"))
    assert verdict.overall is Overall.FAILED
    first = verdict.step_verdicts[0]
    assert first.status is StepStatus.FAILED and "test_step1_example_1" in first.error_message
    assert verdict.failure_report.failed_step_id == 1


@needs_sandbox
def test_example_vacuous_tests_verify_nothing_on_mutants():
    # tests that kill no mutant are no evidence either way: the step is unsupported, the chain not verified
    verdict = verify_chain(_example("frequency-count-vacuous-tests"))
    assert verdict.overall is Overall.FAILED
    assert verdict.step_verdicts[0].status is StepStatus.UNSUPPORTED
    assert verdict.step_verdicts[0].error_message.startswith("tests kill 0 % of mutants")


def test_a_docstring_example_ends_at_its_closing_quotes():
    step = '```python\ndef half(x):\n    """\n    >>> half(4)\n    2"""\n    return x // 2\n```'
    assert [pair for block in extract_step(step).examples for pair in block] == [("half(4)", "2")]


@pytest.mark.slow
@needs_sandbox
def test_example_frequency_count_records_what_each_step_rests_on():
    verdict = verify_chain(_example("frequency-count"))
    # every step's code is run against the question's examples: evidence the reasoning's author did not write
    assert [(v.evidence.kind, v.evidence.supplied_by) for v in verdict.step_verdicts] == [("examples", "question")] * 3
    assert "count_frequencies([5, -1, 5]) → {5: 2, -1: 1}; count_frequencies([]) → {} (question)" in (
        verdict.step_verdicts[0].evidence.aligned_claim)


@needs_sandbox
def test_the_same_chain_with_only_its_own_examples_rests_on_its_author():
    request = _example("frequency-count")
    request = request.model_copy(update={"original_query": request.original_query.split("\n>>>")[0]})
    verdict = verify_chain(request)
    assert all(v.verified for v in verdict.step_verdicts)
    assert verdict.overall is Overall.PARTIAL and verdict.assurance is Assurance.SELF_TESTED
    assert {v.evidence.supplied_by for v in verdict.step_verdicts} == {"author"}


@needs_sandbox
def test_prose_that_contradicts_the_fenced_code_fails_the_step():
    req = _request([{"step_id": 1, "content": "`largest(xs)` returns the largest element:\n```python\n"
                     "def largest(xs):\n    return min(xs)\n\ndef test_largest():\n    assert largest([3, 1]) == 1\n```"}])
    verdict = verify_chain(req)
    step = verdict.step_verdicts[0]
    assert step.status is StepStatus.FAILED and "returns the largest element" in step.error_message

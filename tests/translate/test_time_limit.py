"""Offline translators run under a time limit: an overrun, a recursion too deep or a crash costs the chain its
translations (every step unsupported, with the reason), never a hang or a traceback; long inputs always finish."""

from __future__ import annotations

import faulthandler
import re
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reasonforge.errors import ReasonForgeError
from reasonforge.pipeline.run import verify_chain
from reasonforge.registry import Spec
from reasonforge.translate import default_translator
from reasonforge.translate.code_blocks import CodeBlockTranslator
from reasonforge.translate.logic import LogicTranslator
from reasonforge.translate.protocol import time_limited, translate_within
from reasonforge.types import (
    ArtifactLanguage,
    Domain,
    ProofLevel,
    Prover,
    ReasoningStep,
    StepStatus,
    StepTranslation,
    VerifyRequest,
)

HANG_GUARD_S = 240  # kills the test process if a bound is broken: a hang guard, not a speed target


def chain(*texts: str, domain: Domain = Domain.LOGIC, level: ProofLevel = ProofLevel.STANDARD) -> VerifyRequest:
    steps = [ReasoningStep(step_id=i, content=t) for i, t in enumerate(texts, start=1)]
    return VerifyRequest(domain=domain, proof_level=level, prover=Prover.COQ, reasoning_chain=steps,
                         original_query="All men are mortal. Socrates is a man.", generate_certificate=False)


def ancestors(request: VerifyRequest) -> dict[int, tuple[int, ...]]:
    ids = [s.step_id for s in request.reasoning_chain]
    return {sid: tuple(ids[:i]) for i, sid in enumerate(ids)}


@contextmanager
def hang_guard() -> Iterator[None]:
    faulthandler.dump_traceback_later(HANG_GUARD_S, exit=True)
    try:
        yield
    finally:
        faulthandler.cancel_dump_traceback_later()


@contextmanager
def no_outer_timer() -> Iterator[None]:
    """Suspend pytest-timeout's interval timer so the main-thread alarm path is the one taken."""
    left, interval = signal.setitimer(signal.ITIMER_REAL, 0)
    try:
        with hang_guard():
            yield
    finally:
        if left:
            signal.setitimer(signal.ITIMER_REAL, left, interval)


@contextmanager
def outer_timer() -> Iterator[None]:
    """Someone else's interval timer is running: the limit must not touch it (the helper-thread path)."""
    left, interval = signal.setitimer(signal.ITIMER_REAL, 0)
    previous = signal.signal(signal.SIGALRM, lambda *_: pytest.fail("the outer timer fired"))
    signal.setitimer(signal.ITIMER_REAL, 3600)
    try:
        with hang_guard():
            yield
        assert signal.getitimer(signal.ITIMER_REAL)[0] > 3000, "the outer timer was cancelled"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if left:
            signal.setitimer(signal.ITIMER_REAL, left, interval)


PATHS = {"alarm": no_outer_timer, "thread": outer_timer}


def unsupported_with(translations: list[StepTranslation], request: VerifyRequest, words: str) -> None:
    assert [t.step_id for t in translations] == [s.step_id for s in request.reasoning_chain]
    for t in translations:
        assert t.formal_representation == "" and t.translation_confidence == 0.0 and words in (t.notes or "")
        assert t.language is ArtifactLanguage.FOL


@pytest.mark.parametrize("path", PATHS)
def test_an_endless_translator_is_stopped_at_the_limit(path):
    stop = threading.Event()

    def endless(_request, _ancestors):
        while not stop.is_set():  # ends once the test is done, so an abandoned helper thread does not spin on
            pass
        return []

    request = chain("Socrates is mortal.", "So Socrates is mortal.")
    try:
        with PATHS[path]():
            out = translate_within(endless, request, ancestors(request), language=ArtifactLanguage.FOL, limit_s=0.3)
    finally:
        stop.set()
    unsupported_with(out, request, "did not finish this chain within 0.3 s")


def test_the_alarm_interrupts_a_catastrophic_regex():
    def backtracking(_request, _ancestors):
        re.match(r"(a+)+b", "a" * 64)  # exponential: 2**64 ways to split the run
        return []

    request = chain("Socrates is mortal.")
    with no_outer_timer():
        out = translate_within(backtracking, request, ancestors(request), language=ArtifactLanguage.FOL, limit_s=0.3)
    unsupported_with(out, request, "did not finish")


@pytest.mark.parametrize("path", PATHS)
def test_recursion_too_deep_and_crashes_cost_the_translations_not_the_verdict(path):
    def deep(_request, _ancestors):
        def down(n: int) -> int:
            return down(n + 1) + 1

        return down(0)

    def crash(_request, _ancestors):
        raise ValueError("boom")

    request = chain("Socrates is mortal.")
    with PATHS[path]():
        nested = translate_within(deep, request, ancestors(request), language=ArtifactLanguage.FOL, limit_s=30)
        crashed = translate_within(crash, request, ancestors(request), language=ArtifactLanguage.FOL, limit_s=30)
    unsupported_with(nested, request, "nested too deeply")
    unsupported_with(crashed, request, "crashed (ValueError: boom)")


def test_a_settings_error_still_propagates():
    def refuse(_request, _ancestors):
        raise ReasonForgeError("bad setting", field="x")

    request = chain("Socrates is mortal.")
    with pytest.raises(ReasonForgeError, match="bad setting"):
        translate_within(refuse, request, ancestors(request), language=ArtifactLanguage.FOL)


def test_the_alarm_is_put_back_as_it_was():
    def handler(*_):
        pytest.fail("the previous handler must not run")

    request = chain("Every man is mortal. Socrates is a man. So Socrates is mortal.")
    with no_outer_timer():
        previous = signal.signal(signal.SIGALRM, handler)
        try:
            translate_within(LogicTranslator().translate_chain, request, ancestors(request),
                             language=ArtifactLanguage.FOL, limit_s=30)
            assert signal.getsignal(signal.SIGALRM) is handler
            assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
        finally:
            signal.signal(signal.SIGALRM, previous)


def test_default_translators_keep_their_type_and_their_translations():
    request = chain("Every man is mortal. Socrates is a man. So Socrates is mortal.", "So Socrates is mortal.")
    bounded = default_translator(Domain.LOGIC)
    assert isinstance(bounded, LogicTranslator) and isinstance(default_translator(Domain.CODE), CodeBlockTranslator)
    assert bounded.translate_chain(request, ancestors(request)) == LogicTranslator().translate_chain(
        request, ancestors(request))


class _Slow:
    """A translator that never finishes in time (a stand-in for a super-linear rule on hostile text)."""

    spec = Spec(name="slow", version="0")

    def translate_chain(self, request, _ancestors):
        stop = threading.Event()
        stop.wait(5)
        return [StepTranslation(step_id=s.step_id, language=ArtifactLanguage.FOL, formal_representation="⊢ P(a)")
                for s in request.reasoning_chain]


def test_an_overrunning_translator_leaves_every_step_unsupported_with_the_reason():
    request = chain("Socrates is mortal.", "So Socrates is mortal.")
    verdict = verify_chain(request, translator=time_limited(_Slow(), ArtifactLanguage.FOL, 0.2))
    assert [v.status for v in verdict.step_verdicts] == [StepStatus.UNSUPPORTED] * 2
    assert all("did not finish this chain within 0.2 s" in (v.error_message or "") for v in verdict.step_verdicts)


@pytest.mark.parametrize("text", ["It is not the case that " * 2700 + "Socrates is mortal.",
                                  "Socrates is " + "not " * 10_000 + "mortal."])
def test_ten_thousand_negations_are_unsupported_not_a_traceback(text):
    verdict = verify_chain(chain(text))
    [step] = verdict.step_verdicts
    assert step.status is StepStatus.UNSUPPORTED and step.error_message
    verdict.model_dump_json()


# ---- property: the readers finish on long hostile inputs -------------------------------------------------------
# Units a rule-based reader may scan again at every offset (digits, terms, operators, coordination, nesting).
UNITS = ["1", "x = 1 ", "= 1 ", "n is even ", "4 divides n ", "if ", "since ", "(", ")", "1+", "2^", "-", "√",
         "\\frac{", "$x$ ", "10% ", "half of ", "3 m + ", "not ", "It is not the case that ", "every cat is a ",
         "cats and ", "a or ", "1,000,", "Rex is a dog. ", "Let x = 2. ", "```python\n", "def f(x):\n  return x\n",
         "≈ 1 ", "² ", "¬", "∀x ", "P(a) ∧ ", "abc ", ", ", ". ", "\n"]
LONG = 20_000


def long_text(parts: list[str]) -> str:
    unit = "".join(parts)
    return (unit * (LONG // len(unit) + 1))[:LONG]


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(UNITS), min_size=1, max_size=4),
       st.sampled_from([(Domain.LOGIC, ProofLevel.STANDARD), (Domain.CODE, ProofLevel.STANDARD),
                        (Domain.MATHEMATICS, ProofLevel.QUICK), (Domain.MATHEMATICS, ProofLevel.FORMAL)]))
def test_every_default_translator_finishes_on_long_input(parts, target):
    domain, level = target
    request = chain("Let x = 2.", long_text(parts), domain=domain, level=level)
    translator = default_translator(domain, level=level, prover=Prover.COQ, time_limit_s=5)
    with hang_guard():
        out = translator.translate_chain(request, ancestors(request))
    assert {1, 2} <= {t.step_id for t in out}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(UNITS), min_size=1, max_size=4))
def test_the_coq_claim_phrases_finish_on_long_input(parts):
    from reasonforge.verify.coq.claims import phrases

    with hang_guard():
        phrases(long_text(parts))

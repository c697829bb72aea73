"""The translator protocol: a whole chain in, one `StepTranslation` per step out (DESIGN §3.1).

`time_limited` puts a translator under a wall-clock limit: the offline translators read untrusted text with rules
(regular expressions, recursive descent), and a text built to be slow for them, or nested deeper than Python's
recursion allows, must cost the chain its translations (every step `unsupported`, with the reason), never hang
the caller or end in a traceback.
"""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Protocol, TypeVar, runtime_checkable

from reasonforge.errors import ReasonForgeError
from reasonforge.registry import Spec
from reasonforge.types import ArtifactLanguage, CheckOutcome, StepContext, StepTranslation, VerifyRequest

if TYPE_CHECKING:
    from reasonforge.translate.question import QuestionPrograms

log = logging.getLogger(__name__)

TRANSLATION_TIME_LIMIT_S = 30.0
"""How long an offline translator may take over one chain; honest chains take milliseconds to a second."""


StepGate = Callable[[StepContext, StepTranslation, CheckOutcome], CheckOutcome]
"""The pipeline's soundness gate for one step's checked artifact (translate cannot import the pipeline, so the
pipeline hands it in): verified stays verified only when the artifact is tied to what the step says."""


@runtime_checkable
class Gateable(Protocol):
    """A translator that can hold its candidate artifacts to the soundness gate while it can still repair them."""

    def with_gate(self, gate: StepGate) -> Translator:
        """The same translator (same spec), its local checks followed by `gate`."""
        ...


@runtime_checkable
class Translator(Protocol):
    """Turns every step of a request into a formal artifact, knowing each step's ancestors."""

    spec: Spec

    def translate_chain(
        self, request: VerifyRequest, ancestors: Mapping[int, Sequence[int]]
    ) -> list[StepTranslation]:
        """Return one translation per step, in request order.

        `ancestors[step_id]` lists the step's transitive dependencies in topological order (already
        validated by the caller). An untranslatable step gets an empty `formal_representation`, a
        `translation_confidence` of 0 and `notes` that quote the sentence at fault.
        """
        ...


@runtime_checkable
class QuestionFormaliser(Protocol):
    """A translator that can also formalise a word problem from its question alone (`translate.question`)."""

    def formalise_question(self, request: VerifyRequest) -> QuestionPrograms | None:
        """Programs computing the answer of `request.original_query`, never shown the chain; None when it
        formalises no question of this request (offline, another domain)."""
        ...


@runtime_checkable
class ExampleWriter(Protocol):
    """A translator that can also write a code step's examples from the texts alone (`translate.examples`)."""

    def write_examples(self, request: VerifyRequest) -> dict[int, str] | None:
        """`>>>` examples per step id, written without the implementation; None when it writes none here."""
        ...


@runtime_checkable
class Completing(Protocol):
    """A translator that can leave alone the steps another translation of the chain already decided (proved or
    refuted): it translates only the rest, reading the decided steps' artifacts as it would its own."""

    def complete_chain(self, request: VerifyRequest, ancestors: Mapping[int, Sequence[int]],
                       decided: Mapping[int, StepTranslation], why: str = ...) -> list[StepTranslation]:
        """One translation per step in request order, as `Translator.translate_chain`; each step of `decided`
        is not asked: its translation there stands in as the later steps' ancestor, and its own is an empty
        artifact whose notes say `why` (default `DECIDED_NOTE`)."""
        ...


DECIDED_NOTE = "not asked: another translation's checked reading already decided this step"
RESTATED_NOTE = ("not asked: this family's aligner accepts only an artifact that restates its reader's own "
                 "translation, which the rules' translation already is, checked")

TranslatorT = TypeVar("TranslatorT", bound=Translator)
_Translate = Callable[[VerifyRequest, Mapping[int, Sequence[int]]], list[StepTranslation]]


class _Overran(BaseException):
    """Raised into the translation by the alarm; a BaseException, so a translator's `except Exception` cannot
    swallow it."""


def time_limited(translator: TranslatorT, language: ArtifactLanguage,
                 limit_s: float = TRANSLATION_TIME_LIMIT_S) -> TranslatorT:
    """`translator` itself, its `translate_chain` run by `translate_within` (so its type, spec and settings stay)."""
    inner: _Translate = translator.translate_chain

    def translate_chain(request: VerifyRequest, ancestors: Mapping[int, Sequence[int]]) -> list[StepTranslation]:
        return translate_within(inner, request, ancestors, language=language, limit_s=limit_s)

    translator.translate_chain = translate_chain  # type: ignore[method-assign]
    return translator


def translate_within(translate: _Translate, request: VerifyRequest, ancestors: Mapping[int, Sequence[int]], *,
                     language: ArtifactLanguage, limit_s: float = TRANSLATION_TIME_LIMIT_S) -> list[StepTranslation]:
    """`translate(request, ancestors)`, or, when it overruns `limit_s`, recurses too deeply or crashes, one empty
    (unsupported) translation per step whose notes say why. A `ReasonForgeError` (bad settings) still propagates."""
    try:
        return _run_limited(lambda: translate(request, ancestors), limit_s)
    except _Overran:
        why = (f"the offline translator did not finish this chain within {limit_s:g} s (a step too long or too "
               "intricate for its rules); no step was translated: split or shorten the long steps, or send "
               "translations")
    except RecursionError:
        why = ("a step is nested too deeply for the offline translator (Python's recursion limit); no step was "
               "translated: rephrase the deeply nested step, or send translations")
    except ReasonForgeError:
        raise
    except Exception as exc:  # a translator bug must cost the chain its translations, not the verdict
        log.exception("offline translator crashed")
        why = f"the offline translator crashed ({type(exc).__name__}: {exc}); no step was translated"
    return [
        StepTranslation(step_id=step.step_id, original_content=step.content, language=language,
                        translation_confidence=0.0, notes=why)
        for step in request.reasoning_chain
    ]


def _run_limited(call: Callable[[], list[StepTranslation]], limit_s: float) -> list[StepTranslation]:
    """`call()`, raising `_Overran` once `limit_s` has passed."""
    if _can_alarm():
        return _with_alarm(call, limit_s)
    return _in_thread(call, limit_s)


def _can_alarm() -> bool:
    # A signal reaches only the main thread, and an interval timer someone else set must be left alone.
    return (hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
            and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0))


def _with_alarm(call: Callable[[], list[StepTranslation]], limit_s: float) -> list[StepTranslation]:
    """In the main thread: SIGALRM interrupts the translation wherever it is (the regex engine checks signals too)."""

    def overran(_signum: int, _frame: object) -> None:
        raise _Overran

    previous = signal.signal(signal.SIGALRM, overran)
    try:
        signal.setitimer(signal.ITIMER_REAL, limit_s)
        try:
            return call()
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    finally:
        signal.signal(signal.SIGALRM, previous)


def _in_thread(call: Callable[[], list[StepTranslation]], limit_s: float) -> list[StepTranslation]:
    """Off the main thread (or under someone else's timer): run in a helper thread and stop waiting at the limit.
    The helper cannot be killed and runs on, its result dropped; the service runs jobs in the main thread of its
    job processes, which take the alarm path."""
    outcome: dict[str, object] = {}

    def run() -> None:
        try:
            outcome["value"] = call()
        except Exception as exc:  # noqa: BLE001 - re-raised in the caller's thread below
            outcome["error"] = exc

    helper = threading.Thread(target=run, name="reasonforge-translate", daemon=True)
    helper.start()
    helper.join(limit_s)
    if helper.is_alive():
        log.warning("offline translator still running after %g s; its result will be dropped", limit_s)
        raise _Overran
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    if "value" not in outcome:
        raise RuntimeError("the translator's thread ended without a result")
    return outcome["value"]  # type: ignore[return-value]


__all__ = ["DECIDED_NOTE", "RESTATED_NOTE", "TRANSLATION_TIME_LIMIT_S", "Completing", "ExampleWriter", "Gateable",
           "QuestionFormaliser", "StepGate", "Translator", "time_limited", "translate_within"]

"""Evidence-based equivalent-mutant detection (the verifier's side of the differential run).

Mutation score = killed / (mutants − equivalent), the usual practice, but "equivalent" must be earned:
1. while the tests run on the original, the harness records the plain-data arguments each top-level
   implementation function is called with (`harness/rf_record.py`; they travel on the nonce'd channel);
2. a differential run in the sandbox (`harness/rf_child_equivalence.py`) calls the original and each
   mutant side by side on those inputs and deterministic perturbations of them, and watches whether the
   mutated code executes at all;
3. a mutant is *distinguished* when some input gives a different outcome (kept as evidence), *likely
   equivalent* only when its change ran and every input ran without a difference, and *undecided*
   otherwise (not reached, budget exhausted, crashed, killed, conflicting reports). Undecided counts
   as distinguishable: doubt never shrinks the denominator.

The same run also classifies every mutant, killed ones included, on the recorded inputs alone: *loud*
when some recorded call differs in a way a caller sees without checking a value (raises, stops
finishing, a result of another type), *quiet* otherwise (`harness/rf_compare.py`). The checker uses it
to require tests that check values (`pytest_checker.py`). A mutant without a clean, single report stays
unclassified (None).

No recorded calls (tests that never call the implementation) → no differential run, no claim.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Callable, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError

from reasonforge.verify.code.mutants import Mutant

__all__ = ["Judgement", "RecordedCall", "ValueCheck", "differential", "mutated_span", "parse_calls", "value_check"]

CHILD = "rf_child_equivalence.py"
CONFIG = "rf_equivalence.json"
MAX_CALLS = 400
MAX_CALLS_BYTES = 512_000
MAX_RUN_S = 40.0
MAX_CLASSIFY_S = 12.0  # on top of MAX_RUN_S: the loudness pass of mutants that are not judged


class RecordedCall(BaseModel):
    """One call the tests made: arguments in the harness's tagged plain-data form (`rf_values`)."""

    model_config = ConfigDict(extra="forbid")

    function: str = Field(max_length=200)
    args: list[JsonValue]
    kwargs: dict[str, JsonValue]


class Verdict(BaseModel):
    """The differential run's report on one mutant (from the sandbox: validated, never trusted further)."""

    model_config = ConfigDict(extra="ignore")

    mutant: int = Field(ge=0)
    verdict: Literal["distinguished", "no_difference"]
    reached: bool
    traced: bool = False  # was the change watched for execution (a span was found)?
    complete: bool
    inputs: int = Field(ge=0)
    evidence: dict[str, JsonValue] | None = None


class Judgement(BaseModel):
    """What the verifier concludes about one mutant."""

    mutant: int
    status: Literal["distinguished", "equivalent", "undecided"]
    inputs: int = 0
    evidence: dict[str, JsonValue] | None = None
    reason: str = ""
    unreached: bool = False  # the change was watched and never ran on any input, all of which ran cleanly


def parse_calls(events: Sequence[dict[str, Any]], allowed: set[str]) -> list[RecordedCall]:
    """The recorded calls of `allowed` functions from a test run's events (malformed entries dropped)."""
    calls: list[RecordedCall] = []
    size = 0
    for event in events:
        if event.get("ev") != "calls" or not isinstance(event.get("calls"), list):
            continue
        for raw in event["calls"]:
            try:
                call = RecordedCall.model_validate(raw)
                size += len(json.dumps(raw))
            except (ValidationError, TypeError, ValueError):
                continue
            if call.function in allowed and size <= MAX_CALLS_BYTES and len(calls) < MAX_CALLS:
                calls.append(call)
        break  # one recorder, one event: a second one would be forged
    return calls


def mutated_span(original: str, mutant: str) -> tuple[int, int, int, int] | None:
    """(line, col, end line, end col) in `mutant` of the smallest node holding its one change from
    `original` (both as `ast.unparse` writes them), or None when there is no single change."""
    try:
        node = _diff(ast.parse(original), ast.parse(mutant))
    except (SyntaxError, RecursionError, ValueError):
        return None
    span = tuple(getattr(node, f, None) for f in ("lineno", "col_offset", "end_lineno", "end_col_offset"))
    if not all(isinstance(v, int) for v in span):
        return None
    return span  # type: ignore[return-value]  # four ints, checked above


def _diff(a: ast.AST, b: ast.AST) -> ast.AST | None:
    """The node of `b` covering every difference from `a`, or None when they are equal."""
    if type(a) is not type(b):
        return b
    changed: list[ast.AST | None] = []
    for name, va in ast.iter_fields(a):
        vb = getattr(b, name, None)
        pairs = list(zip(va, vb, strict=False)) if isinstance(va, list) and isinstance(vb, list) else [(va, vb)]
        if isinstance(va, list) and (not isinstance(vb, list) or len(va) != len(vb)):
            return b
        for x, y in pairs:
            if isinstance(x, ast.AST) and isinstance(y, ast.AST):
                sub = _diff(x, y)
                if sub is not None:
                    changed.append(sub)
            elif x != y:
                return b
    if not changed:
        return None
    if len(changed) > 1 or getattr(changed[0], "lineno", None) is None:
        return b  # several changes, or an operator node (no position): the enclosing node
    return changed[0]


def differential(original: str, mutants: Sequence[Mutant], calls: Sequence[RecordedCall], *,
                 run: Callable[..., Any], seed: int, memory_mb: int, preimport: Sequence[str] = (),
                 killed: Sequence[Mutant] = (), judge: bool = True, mutant_budget_s: float = 2.0,
                 classify_budget_s: float = 1.0, per_call_s: float = 0.1, variants: int = 40,
                 max_inputs: int = 1000) -> tuple[dict[int, Judgement], dict[int, bool | None], dict[str, Any]]:
    """Judge each of `mutants` (keyed by `Mutant.id`) by a differential run (only classify them when
    `judge` is off), and classify them and the `killed` ones as loud or quiet on the recorded inputs;
    `run` is harness_run.run_harness.

    Returns the judgements, loudness per mutant id (None: unclassified), and facts for details: inputs
    generated and kept, or why the run gave nothing."""
    if not mutants and not killed:
        return {}, {}, {}
    every = [*killed, *mutants]
    if not calls:
        return ({m.id: Judgement(mutant=m.id, status="undecided", reason="no recorded calls") for m in mutants},
                {m.id: None for m in every},
                {"note": "the tests made no recordable call of the implementation (plain-data arguments): "
                         "no mutant can be claimed equivalent"})
    unparsed = ast.unparse(ast.parse(original))
    judged_ids = {m.id for m in mutants} if judge else set()
    config = {"original": unparsed, "calls": [c.model_dump(mode="json") for c in calls], "seed": seed,
              "variants": variants, "max_inputs": max_inputs, "per_call_s": per_call_s,
              "mutant_budget_s": mutant_budget_s, "classify_budget_s": classify_budget_s,
              "prepass_budget_s": 3 * mutant_budget_s,
              "mutants": [{"source": m.source, "span": mutated_span(unparsed, m.source), "judge": m.id in judged_ids}
                          for m in every],
              "preimport": [p for p in preimport if p in ("pytest", "hypothesis")]}
    per_mutant = mutant_budget_s + classify_budget_s + 14 * per_call_s + 2.0
    per_classified = classify_budget_s + 8 * per_call_s + 1.0
    # Forks stop starting once the budget is spent; the mutants left without a report stay undecided
    # and unclassified. Classify-only mutants come first: their pass is short.
    budget = (min(MAX_RUN_S, 3 * mutant_budget_s + 3.0 + len(judged_ids) * per_mutant)
              + min(MAX_CLASSIFY_S, (len(every) - len(judged_ids)) * per_classified))
    config["budget_s"] = budget
    report = run(["{py}", "{h}/" + CHILD, CONFIG], {CONFIG: json.dumps(config)}, wall_s=budget + per_mutant + 5.0,
                 memory_mb=memory_mb)
    facts: dict[str, Any] = {}
    info = next((e for e in report.events if e.get("ev") == "inputs"), None) if report.valid else None
    if info is not None:
        facts = {k: info.get(k) for k in ("generated", "recorded", "kept", "prepass_s", "setup_s")}
    else:
        facts = {"note": f"the differential run gave no result ({report.problem or report.resource or 'no inputs'})"}
    offset = len(killed)
    judged = {m.id: (_judge(offset + k, m, report) if judge else
                     Judgement(mutant=m.id, status="undecided", reason="equivalence not judged"))
              for k, m in enumerate(mutants)}
    return judged, {m.id: _loud(k, report) for k, m in enumerate(every)}, facts


def _loud(k: int, report: Any) -> bool | None:
    """Mutant k's loudness from exactly one report of a fork that ended cleanly, else None."""
    if not report.valid:
        return None
    louds = [e for e in report.events if e.get("ev") == "loud" and e.get("mutant") == k]
    ends = [e for e in report.events if e.get("ev") == "mutant_end" and e.get("mutant") == k]
    if len(louds) != 1 or len(ends) != 1 or ends[0].get("exit") != 0 or ends[0].get("timed_out"):
        return None
    value = louds[0].get("loud")
    return value if isinstance(value, bool) else None


def _judge(k: int, mutant: Mutant, report: Any) -> Judgement:
    if not report.valid:
        return Judgement(mutant=mutant.id, status="undecided", reason="the differential run did not report")
    verdicts = [e for e in report.events if e.get("ev") == "verdict" and e.get("mutant") == k]
    ends = [e for e in report.events if e.get("ev") == "mutant_end" and e.get("mutant") == k]
    if len(verdicts) != 1 or len(ends) != 1:
        reason = "no verdict (crashed or killed)" if not verdicts else "conflicting verdicts"
        return Judgement(mutant=mutant.id, status="undecided", reason=reason)
    try:
        v = Verdict.model_validate(verdicts[0])
    except ValidationError:
        return Judgement(mutant=mutant.id, status="undecided", reason="malformed verdict")
    if v.verdict == "distinguished":
        return Judgement(mutant=mutant.id, status="distinguished", inputs=v.inputs, evidence=v.evidence)
    if ends[0].get("exit") != 0 or ends[0].get("timed_out"):
        return Judgement(mutant=mutant.id, status="undecided", inputs=v.inputs, reason="the run did not end cleanly")
    if not v.reached:
        return Judgement(mutant=mutant.id, status="undecided", inputs=v.inputs,
                         reason="the changed code never ran on any input",
                         unreached=v.traced and v.complete and v.inputs > 0)
    if not v.complete or v.inputs == 0:
        return Judgement(mutant=mutant.id, status="undecided", inputs=v.inputs,
                         reason="the time budget ended before every input ran")
    return Judgement(mutant=mutant.id, status="equivalent", inputs=v.inputs)


class ValueCheck(BaseModel):
    """Do the tests check values? Loudness of the counted mutants on the tests' own inputs (harness_run module doc)."""

    quiet_mutants: int  # counted mutants shown quiet, and survivors not shown loud
    quiet_killed: int  # killed mutants shown quiet: the tests caught a difference in a value
    loud_killed: int
    unclassified_killed: int  # killed, but no clean loudness report: given no credit
    quiet_survivor_ids: list[int] = Field(default_factory=list, exclude=True)

    @property
    def measured(self) -> bool:
        """Was some killed mutant classified? (If none was, e.g. every recorded call is too slow to repeat,
        there is no evidence either way and the check does not apply.)"""
        return self.quiet_killed + self.loud_killed > 0

    @property
    def passed(self) -> bool:
        """Not measured, no counted mutant is quiet, or the tests kill at least one quiet mutant."""
        return not self.measured or self.quiet_mutants == 0 or self.quiet_killed > 0


def value_check(dead: Sequence[Mutant], survivors: Sequence[Mutant], loud: dict[int, bool | None]) -> ValueCheck:
    """The value check over the killed mutants and the counted survivors (likely equivalent ones left out).

    Doubt goes against the tests: an unclassified survivor counts as quiet, an unclassified killed
    mutant is no evidence that the tests check values."""
    quiet_killed = [m for m in dead if loud.get(m.id) is False]
    quiet_survivors = [m for m in survivors if loud.get(m.id) is not True]
    return ValueCheck(quiet_mutants=len(quiet_killed) + len(quiet_survivors), quiet_killed=len(quiet_killed),
                      loud_killed=sum(1 for m in dead if loud.get(m.id) is True),
                      unclassified_killed=sum(1 for m in dead if loud.get(m.id) is None),
                      quiet_survivor_ids=[m.id for m in quiet_survivors])

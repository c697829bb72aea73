"""The step's own checks: what its text and its question state about the code, run against the artifact.

A python artifact carries its author's tests; nothing in them ties the code to what the step says. So the
checker also reads, with the offline reader (`step_text.py`), the step text (`StepContext.content`), the
question (`original_query`) and the examples a translator wrote from them without the implementation
(`StepContext.written_examples`):

- examples: doctests (`>>> largest([3, 1, 2])` / `3`), in prose, fenced blocks or docstrings, and examples in
  prose (`largest([3, 1, 2]) should return 3`, `→ 3`, `== 3`: `step_text.prose_examples`). An expected
  output that is a Python literal is compared by type and value (`values.same_value`: `3` is not `3.0`,
  `True` or a str whose repr is `3`); `print(E)` by the text of E's value; an expected traceback by the
  exception's type name. An expected output the comparison cannot read exactly (not a literal: the repr of
  an object, what a statement prints) is unread: noted, never compared, no evidence. A doctest is compared as
  doctest compares it or not at all (`step_text.doctest_blocks` reads SKIP, `<BLANKLINE>` and the text's
  `optionflags`): an output an option loosens (ELLIPSIS eliding with `...`, NORMALIZE_WHITESPACE on a value), a
  `...` where a value stands, a traceback whose exception name cannot be told, are unread; its `1` or `0`
  admits True or False, as doctest does unless DONT_ACCEPT_TRUE_FOR_1.
- plain claims from the phrase table (`step_text.read_claims`: "returns the largest element", "returns
  the arithmetic mean", "returns twice n", ...) of the step text and of the question (where "should
  return" is a requirement, and read): each becomes a check of one function against its reference on
  generated inputs (`CLAIM_INPUTS` lists, strings or integers, fixed seed), the reference computed here.
  The function is the one the sentence names as code (`largest` or largest(...)), whatever binds that name
  in the artifact (never another function that happens to take one argument), else the one whose docstring
  says it, else the only candidate of the step's code or the artifact (`names.Bindings.candidates`: defs
  taking one argument, lambdas, aliases); several candidates and no name → the step's claim is `UNALIGNED`,
  the question's is noted.

How they run (`payload`, `judge`): in the step-check child of every test run, original and mutants
(harness/rf_child_step.py), a process of its own that receives only the calls to evaluate and sends back
each value in marshal form; the expected outputs and references never leave the verifier. An example whose
names the artifact does not bind at run time is about other code: noted and skipped, unless it is the step
text's own (its code is missing: `UNALIGNED`) or the step is the chain's only code step (`sole`: the
artifact is not the code the question asks for). A run whose child reached into the harness (an audit
event it refuses) is void: its checks count for nothing.

What is evidence (`evidence`, `StepPlan.shortcut`; the rules are `computing.py`'s): a value example counts
when the examples of its function rule out every trivial answer (one example never does) and the artifact
computes them (no lookup of their inputs, parameters read, and the output changes when the verifier perturbs
the input's values); a traceback example is checked but shows no computation; a claim that held counts. The
supplier is the question when the question's checks alone suffice, an independent writer when the written
examples are needed, else the author (its step's examples and claims, then its tests, if they assert values
that rule out the trivial answers). With none, the step has no evidence (the gate makes it unsupported).

A mutant on which a step check fails is killed like one a test kills: the step's examples count toward the
mutation score.
"""

from __future__ import annotations

import ast
import builtins
import hashlib
import keyword
import random
import re
import secrets
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from reasonforge.types import Evidence, EvidenceKind, Formaliser, StepContext, Supplier
from reasonforge.verify.code.computing import (
    Case,
    author_tests_shortfall,
    literal_call,
    perturbed_calls,
    static_shortcut,
    trivial_answer,
)
from reasonforge.verify.code.mutants import implementation_nodes
from reasonforge.verify.code.names import Bindings, module_bindings, takes_one_argument
from reasonforge.verify.code.nesting import too_deep
from reasonforge.verify.code.step_text import (
    NUMBER_CLAIMS,
    REFERENCES,
    STRING_CLAIMS,
    TRACEBACK,
    ClaimKind,
    ReadClaim,
    code_blocks,
    defined_functions,
    doctest_blocks,
    doctest_options,
    elides,
    loosened_by,
    prose_examples,
    raised_name,
    read_claims,
    strip_fences,
)
from reasonforge.verify.code.values import read_marshal, same_number, same_value

__all__ = ["CLAIM_INPUTS", "ChecksStatus", "ClaimCheck", "ExampleCheck", "LineMode", "Origin", "StepPlan", "StepRun",
           "plan_step_checks"]

CLAIM_INPUTS = 40
MAX_PROBES = 64
_BUILTINS = frozenset(dir(builtins))
_NUMERIC = frozenset({ClaimKind.SUM, ClaimKind.MEAN, ClaimKind.MEDIAN}) | NUMBER_CLAIMS


class Origin(StrEnum):
    """Which text a check was read from."""

    STEP = "step text"
    QUESTION = "question"
    WRITTEN = "examples written from the texts"  # by a translator never shown the implementation


_SUPPLIER = {Origin.QUESTION: Supplier.QUESTION, Origin.WRITTEN: Supplier.INDEPENDENT, Origin.STEP: Supplier.AUTHOR}


class LineMode(StrEnum):
    """How one example line is judged."""

    VALUE = "value"  # a literal expected output: the value, by type and value
    PRINTED = "printed"  # print(E) with its printed text: E's value, printed
    RAISES = "raises"  # an expected traceback: the exception's type name
    UNREAD = "unread"  # an output the comparison cannot read exactly: run, not compared, no evidence
    STATEMENT = "statement"  # no expected output: run; an error ends the block


@dataclass(frozen=True)
class ExampleLine:
    """One `>>>` line: its source, expected output, how it is judged, what the child evaluates (`sent`),
    what it must give (`want`), and the call it makes when written in literals (for the evidence rules)."""

    source: str
    expected: str | None
    mode: LineMode
    sent: str
    want: Any = None
    call: tuple[str, tuple[Any, ...], tuple[tuple[str, Any], ...]] | None = None
    true_for_1: bool = False  # doctest's `1` (`0`) admits True (False)
    why: str = ""  # why an unread output is unread, where it is not for being no literal


@dataclass(frozen=True)
class ExampleCheck:
    """One doctest block: its lines, the names it uses that the artifact must bind, and where it was read."""

    id: str
    origin: Origin
    lines: tuple[tuple[str, str | None], ...]
    names: tuple[str, ...] = ()
    parsed: tuple[ExampleLine, ...] = ()

    def describe(self) -> str:
        """The block as the evidence lists it: `call → output` per line with an output."""
        shown = [f"{src} → {exp}" for src, exp in self.lines if exp is not None]
        return f"{'; '.join(shown)} ({self.origin.value})"


@dataclass(frozen=True)
class ClaimCheck:
    """One read claim, placed on `function`, with the inputs it is checked on."""

    id: str
    claim: ReadClaim
    function: str
    inputs: tuple[Any, ...]
    origin: Origin = Origin.STEP

    def describe(self) -> str:
        """The claim as the evidence lists it."""
        kind = ("strings" if self.claim.kind in STRING_CLAIMS else "integers" if self.claim.kind in NUMBER_CLAIMS
                else "lists of ints")
        return (f"{self.function}(x) == {REFERENCES[self.claim.kind]} on {len(self.inputs)} generated {kind} "
                f"({self.origin.value}: \"{self.claim.phrase}\")")

    def expected(self, value: Any) -> Any:
        """The reference's output on input `value`."""
        return _reference(self.claim.kind, value)


@dataclass(frozen=True)
class Probe:
    """An example's call on perturbed inputs: `function` computes when some probe's output differs from
    the example's own (line `line` of example `example`). A `twin` is the example's own call, spelled
    otherwise: a function gives it what it gave the example, or its reports are not its computation."""

    id: str
    function: str
    example: str
    line: int
    source: str
    twin: bool = False


class ChecksStatus(StrEnum):
    """What one run of the step's checks says."""

    PASSED = "passed"
    FAILED = "failed"  # a check of the texts does not hold (or the run did not report): the step is refuted
    DISPUTED = "disputed"  # only a written example failed: it may be the wrong one
    UNPLACED = "unplaced"  # an example or claim the step must answer names what the artifact does not bind
    UNREAD = "unread"  # a value the checks ask for came back as something that is not plain data: not comparable
    VOID = "void"  # the artifact reached into the harness: nothing the run reported counts


@dataclass(frozen=True)
class StepRun:
    """One run's judgement of the step's checks, and what it leaves out of the evidence."""

    status: ChecksStatus
    message: str = ""
    skipped: frozenset[str] = frozenset()  # checks whose names the artifact does not bind (other code)
    unread: frozenset[tuple[str, int]] = frozenset()  # (check, line) whose value could not be read
    notes: tuple[str, ...] = ()


@dataclass
class StepPlan:
    """The checks read for one step, what was read and not checked (`notes`), and why the step cannot be
    verified at all (`unaligned`), if so. `sole`: the step is the chain's only one (final, no ancestors), so
    a question's example or claim it cannot place means the artifact is not the step."""

    examples: list[ExampleCheck] = field(default_factory=list)
    claims: list[ClaimCheck] = field(default_factory=list)
    probes: list[Probe] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    unaligned: str | None = None
    sole: bool = False
    salt: str = field(default_factory=lambda: secrets.token_hex(8))

    def sent_id(self, check: str) -> str:
        """The id block `check` is sent under: opaque (nothing in it says which check, or what kind, it is),
        the same for the original and every mutant of one check, new for the next check."""
        return "b" + hashlib.sha256(f"{self.salt}:{check}".encode()).hexdigest()[:12]

    @property
    def checks(self) -> int:
        """How many checks run."""
        return len(self.examples) + len(self.claims)

    def payload(self) -> dict[str, Any]:
        """The step-check child's input (harness/rf_child_step.py): the calls, never what they should give;
        identical for the original and every mutant."""
        if not self.checks:
            return {}
        blocks: list[dict[str, Any]] = [{"id": e.id, "names": list(e.names),
                   "lines": [[line.sent, line.mode is not LineMode.STATEMENT] for line in e.parsed]}
                  for e in self.examples]
        blocks += [{"id": f"{c.id}.{j}", "names": [c.function], "lines": [[f"{c.function}({v!r})", True]]}
                   for c in self.claims for j, v in enumerate(c.inputs)]
        blocks += [{"id": p.id, "names": [p.function], "lines": [[p.source, True]]} for p in self.probes]
        for block in blocks:
            block["id"] = self.sent_id(str(block["id"]))
        return {"blocks": sorted(blocks, key=lambda b: b["id"])}  # in an order that says nothing either

    def judge(self, events: list[dict[str, Any]]) -> StepRun:
        """What one run's step-check events (the step child's) say about the texts' checks."""
        tampered = next((e for e in events if e.get("ev") == "tamper"), None)
        if tampered is not None:
            return StepRun(ChecksStatus.VOID, "the artifact reached into the harness that runs the step's checks "
                           f"({_text(tampered.get('m'))} was refused): nothing that run reported counts")
        broken = next((e for e in events if e.get("ev") == "import_error"), None)
        if broken is not None:
            return StepRun(ChecksStatus.FAILED, f"the artifact did not import for the step's checks "
                           f"({_text(broken.get('m'))})")
        if not any(e.get("ev") == "step_done" for e in events):
            return StepRun(ChecksStatus.FAILED, "the step's checks did not finish: the artifact ended or stopped "
                           "their run")
        judging = _Judging(self, _reported(self, events))
        for example in self.examples:
            problem = judging.example(example)
            if problem is not None:
                return problem
        for claim in self.claims:
            problem = judging.claim(claim)
            if problem is not None:
                return problem
        if judging.unread:
            return StepRun(ChecksStatus.UNREAD, f"{judging.unread_notes[0]}: a value that is neither the expected "
                           "literal nor anything comparable with it is not a pass, and no refutation either",
                           skipped=frozenset(judging.skipped), unread=frozenset(judging.unread))
        return StepRun(ChecksStatus.PASSED, skipped=frozenset(judging.skipped), unread=frozenset(judging.unread),
                       notes=tuple(judging.notes))

    def shortcut(self, tree: ast.Module, events: list[dict[str, Any]], run: StepRun) -> str | None:
        """Why the artifact gives its examples without computing them (`computing.py`), or None: a lookup or
        ignored parameters in its code, or an output the verifier's perturbations of the input never change."""
        by_function: dict[str, list[Case]] = {}
        for example in self._counted_examples(run):
            for line in example.parsed:
                if line.call is not None and line.mode in (LineMode.VALUE, LineMode.PRINTED):
                    name, args, kwargs = line.call
                    want = _printed_value(line.want) if line.mode is LineMode.PRINTED else line.want
                    by_function.setdefault(name, []).append(Case(name, args, kwargs, want))
        for name, cases in by_function.items():
            reason = static_shortcut(tree, name, cases)
            if reason is not None:
                return reason
        values = _values(self, events)
        moved: dict[str, bool] = {}
        for probe in self.probes:
            if probe.example in run.skipped:
                continue
            base = values.get((probe.example, probe.line))
            got = values.get((probe.id, 0))
            if base is None or got is None or "t" in (base[0], got[0]):
                continue
            if probe.twin:
                if got[0] != base[0] or (got[0] in ("v", "x") and not same_value(got[1], base[1])):
                    return (f"the artifact gave the same call, `{probe.source}`, two answers in one run "
                            f"({_outcome(base)}, then {_outcome(got)}): what it reports is not what it computes")
                continue
            if base[0] != "v":
                continue
            moved.setdefault(probe.function, False)
            if got[0] == "v" and not same_value(got[1], base[1]):  # a raise is no value: it shows no computing
                moved[probe.function] = True
        still = sorted(name for name, changed in moved.items() if not changed)
        if still:
            return (f"{still[0]} gives the same output on every input the verifier derived from its examples by "
                    "changing their values: its output does not depend on its input's values, so the examples "
                    "show nothing computed")
        return None

    def evidence(self, tree: ast.Module, run: StepRun | None, tests: int, *, mutants: bool = False) -> Evidence | None:
        """The verified step's evidence (see the module doc), or None when nothing counts; `mutants`: the checks
        also ran on every mutant (standard level and up)."""
        notes = list(self.notes) + (list(run.notes) if run is not None else [])
        counted = self._counted_examples(run) if run is not None else []
        claims = [c for c in self.claims if run is not None and c.id not in run.skipped
                  and not any((c.id, j) in run.unread for j in range(len(c.inputs)))]
        supplier, uncounted = _supplier(counted, claims, run)
        notes += uncounted
        note = "; ".join(dict.fromkeys(notes)) or None
        if supplier is not None:
            ran = [e for e in self.examples if run is None or e.id not in run.skipped]
            checked = [e.describe() for e in ran] + [c.describe() for c in claims]
            where = " and against every mutant" if mutants else ""
            written = sum(e.origin is Origin.WRITTEN for e in ran)
            read = len(checked) - written
            sources = ", ".join(x for x in (
                f"{read} read from the step text and question" if read else "",
                f"{written} written from them by a translator never shown the implementation" if written else ""
            ) if x)
            return Evidence(kind=EvidenceKind.EXAMPLES, aligned_claim=_cap("; ".join(checked)),
                            formaliser=Formaliser.OFFLINE_READER if read else Formaliser.EXAMPLE_WRITER,
                            supplied_by=supplier,
                            note=_cap(f"{len(checked)} check(s) ({sources}), run with the artifact's {tests} test(s)"
                                      f"{where}" + (f"; {note}" if note else "")))
        implementation = [f.name for f in implementation_nodes(tree)] + sorted(module_bindings(tree).others)
        shortfall = author_tests_shortfall(tree, implementation)
        if shortfall is not None:
            return None
        signatures = ", ".join(_signature(f) for f in implementation_nodes(tree)) or "the artifact's module"
        return Evidence(kind=EvidenceKind.AUTHOR_TESTS,
                        aligned_claim=_cap(f"{signatures}: author's tests only ({tests} test(s))"),
                        formaliser=Formaliser.ARTIFACT, supplied_by=Supplier.AUTHOR,
                        note=_cap(note or "the step text and question state no example or claim the offline reader "
                                  "can check; the verdict rests on the artifact author's own tests"))

    def no_evidence(self, tree: ast.Module, run: StepRun | None) -> str:
        """Why `evidence` found nothing (for the message of a step that is verified without evidence)."""
        implementation = [f.name for f in implementation_nodes(tree)] + sorted(module_bindings(tree).others)
        counted = self._counted_examples(run) if run is not None else []
        _, uncounted = _supplier(counted, [], run)
        tests = author_tests_shortfall(tree, implementation) or "the author's tests are no evidence"
        return "; ".join([*uncounted, tests]) if uncounted else tests

    def _counted_examples(self, run: StepRun | None) -> list[ExampleCheck]:
        skipped = run.skipped if run is not None else frozenset()
        return [e for e in self.examples if e.id not in skipped]


def plan_step_checks(context: StepContext | None, tree: ast.Module, *, seed: int = 0) -> StepPlan:
    """The checks the step text and question state for the artifact `tree` (see the module docstring)."""
    plan = StepPlan()
    if context is None:
        plan.notes.append("no step context was given: nothing from the step text or question is checked")
        return plan
    plan.sole = context.final and not context.ancestors
    bindings = module_bindings(tree)
    for origin, text in ((Origin.STEP, context.content), (Origin.QUESTION, context.original_query),
                         (Origin.WRITTEN, context.written_examples)):
        _read_examples(plan, origin, text or "")
    # an unnamed claim of the question is about the function its examples call, when they call one
    called = {name for e in plan.examples if e.origin is Origin.QUESTION for name in e.names}
    _read_claims(plan, Origin.STEP, context.content or "", bindings, seed)
    _read_claims(plan, Origin.QUESTION, context.original_query or "", bindings, seed,
                 implied=called.pop() if len(called) == 1 else None)
    _plan_probes(plan)
    return plan


# ----------------------------------------------------------------------------------------- reading


def _read_examples(plan: StepPlan, origin: Origin, text: str) -> None:
    doctests = doctest_blocks(text)
    for k, block in enumerate([*doctests, *prose_examples(text)]):
        lines = tuple(block)
        if not any(exp is not None for _, exp in lines):
            continue
        shown = lines[0][0]
        try:
            trees = [ast.parse(src) for src, _ in lines]
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            plan.notes.append(f"{origin.value} example `{_cap(shown, 80)}` is not valid Python: not checked")
            continue
        deep = next((why for tree in trees if (why := too_deep(tree, f"{origin.value} example")) is not None), None)
        if deep is not None:  # its source is unparsed to be sent, and read as literals
            plan.notes.append(f"{deep}: not checked")
            continue
        names = sorted(_free_names(trees) - _BUILTINS)
        if not names or not _exercises(trees, lines, set(names)):
            plan.notes.append(f"{origin.value} example `{shown}` checks a value that no code of the artifact "
                              "computes: it says nothing about the step, not counted")
            continue
        parsed = _parse_lines(lines, trees, names, doctest=k < len(doctests))
        for line in parsed:
            if line.mode is LineMode.UNREAD:
                plan.notes.append(f"{origin.value} example `{line.source}`: its output `{line.expected}` is not a "
                                  f"literal the comparison can read exactly{line.why}: run, not compared, no evidence")
        plan.examples.append(ExampleCheck(id=f"e{len(plan.examples) + 1}", origin=origin, lines=lines,
                                          names=tuple(names), parsed=parsed))


def _parse_lines(lines: tuple[tuple[str, str | None], ...], trees: list[ast.Module], names: list[str], *,
                 doctest: bool = False) -> tuple[ExampleLine, ...]:
    """How each line is judged. A doctest's output is compared as doctest compares it, or not at all: under an
    option that loosens the comparison (`step_text.loosened_by`), or eliding with `...`, it is unread; a `1` or `0`
    it writes admits True or False (doctest's default, DONT_ACCEPT_TRUE_FOR_1 aside)."""
    out: list[ExampleLine] = []
    env: dict[str, Any] = {}  # names earlier lines bound to literals (`>>> xs = [3, 1]`)
    for (source, expected), tree in zip(lines, trees, strict=True):
        expr = tree.body[0].value if len(tree.body) == 1 and isinstance(tree.body[0], ast.Expr) else None
        if expected is None:
            out.append(ExampleLine(source, None, LineMode.STATEMENT, source))
            _bind_literals(tree, env)
            continue
        if expected.startswith(TRACEBACK):
            name = raised_name(expected)
            if name is None:
                out.append(ExampleLine(source, expected, LineMode.UNREAD, source,
                                       why=" (no exception name the reader can tell from the traceback)"))
            else:
                out.append(ExampleLine(source, expected, LineMode.RAISES, source, name))
            continue
        if expr is None:
            out.append(ExampleLine(source, expected, LineMode.UNREAD, source))
            continue
        printed = _printed_argument(expr)
        loosened = loosened_by(source, expected)
        if loosened == "ELLIPSIS" or (loosened is not None and printed is None):
            # a printed text is compared with its whitespace normalised already: NORMALIZE_WHITESPACE changes nothing
            out.append(ExampleLine(source, expected, LineMode.UNREAD, source,
                                   why=f" (doctest's {loosened} option is in effect on it)"))
            continue
        if printed is not None:
            call = literal_call(printed, names, env)
            out.append(ExampleLine(source, expected, LineMode.PRINTED, ast.unparse(printed), _norm(expected), call))
            continue
        try:
            literal = ast.literal_eval(expected)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            out.append(ExampleLine(source, expected, LineMode.UNREAD, source))
            continue
        if elides(expected):
            out.append(ExampleLine(source, expected, LineMode.UNREAD, source,
                                   why=" (its `...` elides what was printed: no value is written so)"))
            continue
        true_for_1 = (doctest and expected.strip() in ("0", "1")
                      and "DONT_ACCEPT_TRUE_FOR_1" not in doctest_options(source))
        out.append(ExampleLine(source, expected, LineMode.VALUE, source, literal, literal_call(expr, names, env),
                               true_for_1=true_for_1))
    return tuple(out)


def _printed_argument(expr: ast.expr) -> ast.expr | None:
    """E, when the line is `print(E)` (one positional argument, no keywords)."""
    if (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "print"
            and len(expr.args) == 1 and not expr.keywords and not isinstance(expr.args[0], ast.Starred)):
        return expr.args[0]
    return None


def _bind_literals(tree: ast.Module, env: dict[str, Any]) -> None:
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            try:
                env[stmt.targets[0].id] = ast.literal_eval(stmt.value)
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                env.pop(stmt.targets[0].id, None)


def _read_claims(plan: StepPlan, origin: Origin, text: str, bindings: Bindings, seed: int,
                 implied: str | None = None) -> None:
    own = defined_functions(text)
    requirement = origin is Origin.QUESTION
    claims = [c for f in own for c in read_claims(ast.get_docstring(f) or "", function=f.name,
                                                     requirement=requirement)]
    prose = strip_fences(text)
    if code_blocks(text) == [text]:
        prose = ""  # the text is code (a stub with its docstring): no prose beyond the docstrings
    elif own and prose.strip() == text.strip():
        prose = ""
    claims += read_claims(prose, requirement=requirement)
    if not claims and origin is Origin.STEP and re.search(r"\b(?:returns?|computes?|finds?|gives?)\b", text,
                                                          re.IGNORECASE):
        plan.notes.append("no claim in the step text matches the reader's phrase table: its prose is not checked")
    own_one_arg = [f.name for f in own if f.name in bindings.defs and takes_one_argument(bindings.defs[f.name])]
    for claim in claims:
        target = _place(claim, origin, bindings, own_one_arg, implied)
        if isinstance(target, _Unplaced):
            if target.blocking and plan.unaligned is None:
                plan.unaligned = target.reason
            elif not target.blocking:
                plan.notes.append(target.reason)
            continue
        plan.claims.append(ClaimCheck(id=f"c{len(plan.claims) + 1}", claim=claim, function=target,
                                      inputs=tuple(_claim_inputs(claim.kind, seed, plan.salt)), origin=origin))


@dataclass(frozen=True)
class _Unplaced:
    reason: str
    blocking: bool


_CODE_NAME = re.compile(r"`([A-Za-z_]\w*)(?:\([^`]*\))?`|(?<![\w.`])([A-Za-z_]\w*)\(")


def _place(claim: ReadClaim, origin: Origin, bindings: Bindings, own_one_arg: list[str],
           implied: str | None = None) -> str | _Unplaced:
    said = f"the {origin.value} says \"{claim.phrase}\""
    blocking = origin is Origin.STEP  # a question's claim may be about another step's code
    # a function is named as code (`largest` or largest(...)), never by an English word it shares a name with
    # (`name` always counts; a bare name( only when the artifact binds it: "the value(s)" is English)
    named = [claim.function] if claim.function else list(dict.fromkeys(
        m.group(1) or m.group(2) for m in _CODE_NAME.finditer(claim.sentence)
        if m.group(1) or m.group(2) in bindings.names))
    named = [n for n in named if not keyword.iskeyword(n) and (n not in _BUILTINS or n in bindings.names)]
    if not named and implied is not None:
        named = [implied]
    if len(named) > 1:
        known = [n for n in named if n in bindings.others or (n in bindings.defs and takes_one_argument(bindings.defs[n]))]
        if len(known) != 1:
            return _Unplaced(f"{said} in a sentence naming {', '.join(named)}: the reader cannot tell which function "
                             "it is about; name one function per claim", blocking)
        named = known
    if named:
        name = named[0]
        if name in bindings.defs and name not in bindings.others and not takes_one_argument(bindings.defs[name]):
            return _Unplaced(f"{said} of {name}, which does not take one argument: the claim is not checked", False)
        return name  # whatever binds it, looked up at run time; unbound → the artifact lacks it
    pool = own_one_arg or bindings.candidates()
    if len(pool) == 1 and not bindings.dynamic:
        return pool[0]
    if not pool:
        return _Unplaced(f"{said}, but no function of the artifact takes one argument: the claim is not checked",
                         False)
    return _Unplaced(f"{said} without naming the function, and the artifact binds several that could be it "
                     f"({', '.join(pool)}{', and names bound at run time' if bindings.dynamic else ''}): name it "
                     f"(`{pool[0]}(xs)` returns ...)", blocking)


def _exercises(trees: list[ast.Module], lines: tuple[tuple[str, str | None], ...], reach: set[str]) -> bool:
    """Whether every line of an example whose output is checked uses a name the artifact must bind, or one an
    earlier line bound from such a name (`>>> r = f(3)` then `>>> r`). `>>> 1 + 1` / `2` checks Python, not
    the step."""
    reach = set(reach)
    for tree, (_, expected) in zip(trees, lines, strict=True):
        loads = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        if expected is not None and not loads & reach:
            return False
        if loads & reach:
            reach.update(n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
    return True


def _free_names(trees: list[ast.Module]) -> set[str]:
    bound: set[str] = set()
    used: set[str] = set()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                (bound if isinstance(node.ctx, ast.Store | ast.Del) else used).add(node.id)
            elif isinstance(node, ast.Import | ast.ImportFrom):
                bound.update((a.asname or a.name).split(".")[0] for a in node.names)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                bound.add(node.name)
            elif isinstance(node, ast.arg):
                bound.add(node.arg)
    return used - bound


def _plan_probes(plan: StepPlan) -> None:
    """A twin of each example call written in literals, then its perturbations (`computing.perturbed_calls`)."""
    calls = [(example, i, line.call) for example in plan.examples for i, line in enumerate(example.parsed)
             if line.call is not None and line.mode in (LineMode.VALUE, LineMode.PRINTED)]
    for example, i, (name, args, kwargs) in calls:
        if len(plan.probes) < MAX_PROBES:
            parts = [f" {a!r}" for a in args] + [f" {k}={v!r}" for k, v in kwargs]
            plan.probes.append(Probe(id=f"p{len(plan.probes) + 1}", function=name, example=example.id, line=i,
                                     source=f"({name})({','.join(parts)}{',' if parts else ''})", twin=True))
    for example, i, (name, args, kwargs) in calls:
        for source in perturbed_calls(Case(function=name, args=args, kwargs=kwargs), seed=f"{example.id}:{i}"):
            if len(plan.probes) >= MAX_PROBES:
                return
            plan.probes.append(Probe(id=f"p{len(plan.probes) + 1}", function=name, example=example.id, line=i,
                                     source=source))


# --------------------------------------------------------------------------------------- claims' inputs

_NON_EMPTY = {ClaimKind.MAX, ClaimKind.MIN, ClaimKind.MEAN, ClaimKind.MEDIAN}


def _claim_inputs(kind: ClaimKind, seed: int, salt: str = "") -> list[Any]:
    """A few fixed inputs, then random ones drawn anew for each check (`salt`): a lookup of them cannot be
    written in advance."""
    rng = random.Random(f"rf-claim:{seed}:{salt}:{kind.value}")
    if kind in STRING_CLAIMS:
        fixed: list[Any] = ["", "a", "ab", "abc", "racecar", "Hello, World"]
        letters = "abcdefghijklmnopqrstuvwxyzAB _"
        return fixed + ["".join(rng.choice(letters) for _ in range(rng.randint(0, 12)))
                        for _ in range(CLAIM_INPUTS - len(fixed))]
    if kind in NUMBER_CLAIMS:
        numbers: list[Any] = [0, 1, -1, 2, -3, 7, 10, -12, 100]
        return numbers + [rng.randint(-50, 50) for _ in range(CLAIM_INPUTS - len(numbers))]
    if kind is ClaimKind.MEDIAN:  # odd lengths: "the median" of an even list is a convention, not a fact
        fixed = [[5], [3, 1, 2], [-3, -7, 0], [2, 2, 1], [9, 1, 5, 3, 7]]
        return fixed + [[rng.randint(-20, 20) for _ in range(rng.choice((1, 3, 5, 7)))]
                        for _ in range(CLAIM_INPUTS - len(fixed))]
    fixed = [[5], [-3, -7], [2, 2, 1], [0, -1, 1], [1, 2, 3, 4], [4, 3, 2, 1]]
    if kind not in _NON_EMPTY:
        fixed.append([])
    low = 1 if kind in _NON_EMPTY else 0
    return fixed + [[rng.randint(-20, 20) for _ in range(rng.randint(low, 8))] for _ in range(CLAIM_INPUTS - len(fixed))]


def _reference(kind: ClaimKind, value: Any) -> Any:
    if kind is ClaimKind.MAX:
        return max(value)
    if kind is ClaimKind.MIN:
        return min(value)
    if kind is ClaimKind.SORTED:
        return sorted(value)
    if kind is ClaimKind.SORTED_DESC:
        return sorted(value, reverse=True)
    if kind is ClaimKind.SUM:
        return sum(value)
    if kind in (ClaimKind.REVERSED_LIST, ClaimKind.REVERSED_STR):
        return value[::-1]
    if kind is ClaimKind.MEAN:
        return sum(value) / len(value)
    if kind is ClaimKind.MEDIAN:
        return sorted(value)[len(value) // 2]
    if kind is ClaimKind.ABS:
        return abs(value)
    if kind is ClaimKind.DOUBLE:
        return 2 * value
    if kind is ClaimKind.TRIPLE:
        return 3 * value
    if kind is ClaimKind.SQUARE:
        return value * value
    return len(value)


# ---------------------------------------------------------------------------------------- judging


def _reported(plan: StepPlan, events: list[dict[str, Any]]) -> dict[tuple[str, int], list[tuple[str, Any]]]:
    """What the run reported, by (check id, line): every report, so that a second one is seen."""
    checks = {plan.sent_id(e.id): e.id for e in plan.examples}
    checks.update({plan.sent_id(f"{c.id}.{j}"): f"{c.id}.{j}" for c in plan.claims for j in range(len(c.inputs))})
    checks.update({plan.sent_id(p.id): p.id for p in plan.probes})
    out: dict[tuple[str, int], list[tuple[str, Any]]] = {}
    for e in events:
        block = checks.get(str(e.get("b")))
        if e.get("ev") == "sv" and block is not None and isinstance(e.get("i"), int):
            out.setdefault((block, e["i"]), []).append((str(e.get("r")), e.get("m")))
    return out


def _values(plan: StepPlan, events: list[dict[str, Any]]) -> dict[tuple[str, int], tuple[str, Any]]:
    """Each (check, line) reported exactly once, as (kind, value read back): kind "v" with the value, "x"
    with the exception's name, "u" unreadable, "t" out of time; a malformed value reads as "u"."""
    return {key: _read(*got[0]) for key, got in _reported(plan, events).items() if len(got) == 1}


def _read(kind: str, payload: Any) -> tuple[str, Any]:
    if kind not in ("v", "x", "n"):
        return ("t", None) if kind == "t" else ("u", None)
    try:
        return kind, read_marshal(bytes.fromhex(str(payload)))
    except ValueError:
        return "u", None


def _text(payload: Any) -> str:
    kind, value = _read("x", payload)
    return value if kind == "x" and isinstance(value, str) else "something"


class _Judging:
    """The comparisons of one run (see `StepPlan.judge`)."""

    def __init__(self, plan: StepPlan, results: dict[tuple[str, int], list[tuple[str, Any]]]) -> None:
        self.plan = plan
        self.results = results
        self.skipped: set[str] = set()
        self.unread: set[tuple[str, int]] = set()
        self.notes: list[str] = []
        self.unread_notes: list[str] = []

    def _one(self, block: str, i: int) -> tuple[str, Any] | None | str:
        got = self.results.get((block, i), [])
        if len(got) > 1:
            return "reported twice"
        return _read(*got[0]) if got else None

    def _unbound(self, block: str, what: str, origin: Origin) -> StepRun | None:
        got = self._one(block, -1)
        if got is None:
            return None
        if isinstance(got, str) or got[0] != "n":
            return StepRun(ChecksStatus.FAILED, f"{what}: its run reported nothing readable")
        names = ", ".join(str(n) for n in got[1]) if isinstance(got[1], list) else "its names"
        if origin is Origin.STEP or self.plan.sole:
            whose = "the step text's" if origin is Origin.STEP else f"the {origin.value}'s"
            return StepRun(ChecksStatus.UNPLACED, f"{whose} {what} uses {names}, which the artifact does not "
                           "bind: the artifact is not the code the step describes")
        self.skipped.add(block)
        self.notes.append(f"{origin.value} {what} uses {names}, which this artifact does not bind: not checked here")
        return StepRun(ChecksStatus.PASSED)

    def example(self, example: ExampleCheck) -> StepRun | None:
        what = f"example `{example.lines[0][0]}`"
        unbound = self._unbound(example.id, what, example.origin)
        if unbound is not None:
            return None if unbound.status is ChecksStatus.PASSED else unbound
        failed = ChecksStatus.DISPUTED if example.origin is Origin.WRITTEN else ChecksStatus.FAILED
        for i, line in enumerate(example.parsed):
            where = f"the {example.origin.value}'s example `{line.source}`"
            got = self._one(example.id, i)
            if isinstance(got, str):
                return StepRun(ChecksStatus.FAILED, f"{where} was {got}")
            if line.mode is LineMode.STATEMENT:
                if got is not None:
                    return StepRun(failed, f"{where} {_outcome(got)}")
                continue
            if got is None:
                return StepRun(failed, f"{where} did not run (an earlier line of its block raised)")
            problem = self._line(example.id, i, line, got)
            if problem:
                return StepRun(failed, f"{where} should give {line.expected}, but {problem}")
        return None

    def _line(self, block: str, i: int, line: ExampleLine, got: tuple[str, Any]) -> str | None:
        kind, value = got
        if line.mode is LineMode.UNREAD:
            return None
        if line.mode is LineMode.RAISES:
            if kind == "x" and line.want and str(value).split(".")[-1] == line.want:
                return None
            return _outcome(got)
        if kind == "u":
            self.unread.add((block, i))  # not plain data: not this literal, but no reading of what it is
            self.unread_notes.append(f"the example `{line.source}` returned a value that is not plain data (or is "
                                     "too large)")
            return None
        if kind != "v":
            return _outcome(got)
        if line.mode is LineMode.PRINTED:
            shown = _norm(str(value))
            return None if shown == line.want else f"it printed {shown!r}"
        if line.true_for_1 and type(value) is bool and value == line.want:
            return None
        return None if same_value(value, line.want) else f"it returned {_short(value)}"

    def claim(self, claim: ClaimCheck) -> StepRun | None:
        what = f"claim \"{claim.claim.phrase}\""
        for j in range(len(claim.inputs)):
            unbound = self._unbound(f"{claim.id}.{j}", what, claim.origin)
            if unbound is not None:
                if unbound.status is not ChecksStatus.PASSED:
                    return unbound
                self.skipped.add(claim.id)
                return None
        for j, value in enumerate(claim.inputs):
            want = claim.expected(value)
            head = f"the {claim.origin.value} says {claim.function} \"{claim.claim.phrase}\", but {claim.function}({value!r})"
            got = self._one(f"{claim.id}.{j}", 0)
            if got is None or isinstance(got, str):
                return StepRun(ChecksStatus.FAILED, f"{head} reported {'nothing' if got is None else got}")
            kind, result = got
            if kind == "u":
                self.unread.add((claim.id, j))
                self.unread_notes.append(f"{claim.function}({value!r}) returned a value that is not plain data (the "
                                         f"claim \"{claim.claim.phrase}\")")
                continue
            if kind != "v":
                return StepRun(ChecksStatus.FAILED, f"{head} {_outcome(got)} (expected {want!r})")
            same = same_number(result, want) if claim.claim.kind in _NUMERIC else same_value(result, want)
            if not same:
                return StepRun(ChecksStatus.FAILED, f"{head} returned {_short(result)} (expected {want!r})")
        return None


def _outcome(got: tuple[str, Any]) -> str:
    kind, value = got
    if kind == "x":
        return f"it raised {value}"
    if kind == "t":
        return "it did not finish in time"
    if kind == "u":
        return "it returned a value that is not plain data"
    return f"it returned {_short(value)}"


def _supplier(counted: list[ExampleCheck], claims: list[ClaimCheck], run: StepRun | None
              ) -> tuple[Supplier | None, list[str]]:
    """The strongest supplier whose checks alone are evidence, and why the examples are not, when none is."""
    unread = run.unread if run is not None else frozenset()
    why: list[str] = []
    for supplier, origins in ((Supplier.QUESTION, {Origin.QUESTION}),
                              (Supplier.INDEPENDENT, {Origin.QUESTION, Origin.WRITTEN}),
                              (Supplier.AUTHOR, set(Origin))):
        if any(c.origin in origins for c in claims):
            return supplier, []
        cases: dict[str, list[Case]] = {}
        for example in counted:
            if example.origin not in origins:
                continue
            for i, line in enumerate(example.parsed):
                if line.call is None or (example.id, i) in unread or line.mode not in (LineMode.VALUE, LineMode.PRINTED):
                    continue
                name, args, kwargs = line.call
                want = _printed_value(line.want) if line.mode is LineMode.PRINTED else line.want
                cases.setdefault(name, []).append(Case(name, args, kwargs, want))
        reasons = {name: trivial_answer(_distinct(found)) for name, found in cases.items()}
        if any(reason is None for reason in reasons.values()):
            return supplier, []
        why = [f"the examples of {name} cannot tell it from {reason}" for name, reason in reasons.items()]
    return None, why


def _distinct(cases: list[Case]) -> list[Case]:
    out: list[Case] = []
    for case in cases:
        if not any(same_value((c.args, c.kwargs), (case.args, case.kwargs)) for c in out):
            out.append(case)
    return out


def _printed_value(text: Any) -> Any:
    try:
        return ast.literal_eval(str(text))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return text


def _norm(text: str) -> str:
    return " ".join(text.split())


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 200 else text[:199] + "…"


def _signature(f: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    return f"def {f.name}({ast.unparse(f.args)})"


def _cap(text: str, n: int = 2000) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"

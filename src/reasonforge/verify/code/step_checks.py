"""The step's own checks: what its text and its question state about the code, run against the artifact.

A python artifact carries its author's tests; nothing in them ties the code to what the step says. So the
checker also reads, with the offline reader (`step_text.py`), the step text (`StepContext.content`) and the
question (`original_query`):

- doctest examples (`>>> largest([3, 1, 2])` / `3`), in prose, fenced blocks or docstrings, from both texts.
  Each runs in the artifact's module namespace inside every test run (the original's and each mutant's,
  see harness/rf_step.py), and the verifier compares what came out with what the text wrote: a Python
  literal by value (`==`, a bool only equals a bool), anything else by its repr or printed output, an
  expected traceback by the exception's type. An example of the question whose names the artifact does
  not define is about some other step's code and is skipped (noted); one of the step text is a claim
  about code the artifact lacks, and the step cannot be verified (`UNALIGNED`).
- plain claims of the step text from the phrase table (`step_text.read_claims`: "returns the largest
  element", "returns the list sorted", ...): each becomes a property check of one function against its
  obvious reference on generated inputs (`CLAIM_INPUTS` lists or strings, fixed seed), compared by the
  verifier. The function is the one whose docstring says it, else the one the sentence names, else the only
  one-argument function the step's own code (or, failing that, the artifact) defines; several candidates
  and no name → `UNALIGNED` (a claim we can read but not place is not verified by some other function).

A mutant on which a step check fails is killed like one a test kills: the step's examples count toward the
mutation score. A verified step records `evidence` (`types.Evidence`): EXAMPLES with every example and claim
checked (supplied by the question, an independent writer, or the author when all come from its own step), or
AUTHOR_TESTS (the function signatures, "author's tests only") when the texts offered nothing the reader could
check; the note says what was read and not checked.
"""

from __future__ import annotations

import ast
import builtins
import random
import re
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from reasonforge.types import Evidence, EvidenceKind, Formaliser, StepContext, Supplier
from reasonforge.verify.code.mutants import implementation_nodes
from reasonforge.verify.code.step_text import (
    REFERENCES,
    ClaimKind,
    ReadClaim,
    defined_functions,
    doctest_blocks,
    read_claims,
    strip_fences,
)
from reasonforge.verify.code.values import decode_value, encode_value

__all__ = ["CLAIM_INPUTS", "ClaimCheck", "ExampleCheck", "Origin", "StepPlan", "plan_step_checks"]

CLAIM_INPUTS = 40
_BUILTINS = frozenset(dir(builtins))
_TRACEBACK = "Traceback (most recent call last)"
_SKIP = re.compile(r"#\s*doctest:.*\+SKIP", re.IGNORECASE)


class Origin(StrEnum):
    """Which text a check was read from."""

    STEP = "step text"
    QUESTION = "question"
    WRITTEN = "examples written from the texts"  # by a translator never shown the implementation


@dataclass(frozen=True)
class ExampleCheck:
    """One doctest block: its lines (source, expected output or None) and where it was read."""

    id: str
    origin: Origin
    lines: tuple[tuple[str, str | None], ...]

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

    def describe(self) -> str:
        """The claim as the evidence lists it."""
        kind = "strings" if self.claim.kind in _STRINGS else "lists of ints"
        return (f"{self.function}(x) == {REFERENCES[self.claim.kind]} on {len(self.inputs)} generated {kind} "
                f"({Origin.STEP.value}: \"{self.claim.phrase}\")")

    def expected(self, value: Any) -> Any:
        """The reference's output on input `value`."""
        return _reference(self.claim.kind, value)


@dataclass
class StepPlan:
    """The checks read for one step, what was read and not checked (`notes`), and why the step cannot be
    verified at all (`unaligned`), if so."""

    examples: list[ExampleCheck] = field(default_factory=list)
    claims: list[ClaimCheck] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    unaligned: str | None = None
    disputed: bool = False  # set by `judge`: the check that failed is a written example, not the texts' own

    @property
    def checks(self) -> int:
        """How many checks run."""
        return len(self.examples) + len(self.claims)

    def payload(self) -> dict[str, Any]:
        """What the harness child runs (harness/rf_step.py); identical for the original and every mutant."""
        if not self.checks:
            return {}
        return {"examples": [{"id": e.id, "lines": [[src, exp is not None] for src, exp in e.lines]}
                             for e in self.examples],
                "claims": [{"id": c.id, "function": c.function, "inputs": [encode_value(v) for v in c.inputs]}
                           for c in self.claims]}

    def judge(self, events: list[dict[str, Any]]) -> str | None:
        """Why the run's step-check results (events) disagree with the texts, or None when every check holds.
        A check without exactly one result counts as failed: a run that did not report cannot agree."""
        self.disputed = False
        reported: dict[str, list[dict[str, Any]]] = {}
        for e in events:
            if e.get("ev") == "step_check":
                reported.setdefault(str(e.get("id")), []).append(e)
        for example in self.examples:
            got = reported.get(example.id, [])
            if len(got) != 1:
                self.disputed = example.origin is Origin.WRITTEN
                return f"the {example.origin.value}'s example `{example.lines[0][0]}` did not report a result"
            problem = _judge_example(example, got[0])
            if problem:
                self.disputed = example.origin is Origin.WRITTEN
                return problem
        for claim in self.claims:
            got = reported.get(claim.id, [])
            if len(got) != 1:
                return f"the step's claim \"{claim.claim.phrase}\" did not report a result"
            problem = _judge_claim(claim, got[0])
            if problem:
                return problem
        return None

    def evidence(self, tree: ast.Module, tests: int, *, mutants: bool = False) -> Evidence:
        """The verified step's evidence; `mutants`: the checks also ran on every mutant (standard level and up).
        Its supplier is the question when one of the checks is the question's, an independent writer when one was
        written from the texts without the implementation, else the author (its own step's examples and claims)."""
        note = "; ".join(self.notes) or None
        if self.checks:
            checked = [e.describe() for e in self.examples] + [c.describe() for c in self.claims]
            where = " and against every mutant" if mutants else ""
            written = sum(e.origin is Origin.WRITTEN for e in self.examples)
            read = self.checks - written
            sources = ", ".join(x for x in (
                f"{read} read from the step text and question" if read else "",
                f"{written} written from them by a translator never shown the implementation" if written else ""
            ) if x)
            origins = {e.origin for e in self.examples} | ({Origin.STEP} if self.claims else set())
            supplied = (Supplier.QUESTION if Origin.QUESTION in origins
                        else Supplier.INDEPENDENT if Origin.WRITTEN in origins else Supplier.AUTHOR)
            return Evidence(kind=EvidenceKind.EXAMPLES, aligned_claim=_cap("; ".join(checked)),
                            formaliser=Formaliser.OFFLINE_READER if read else Formaliser.EXAMPLE_WRITER,
                            supplied_by=supplied,
                            note=_cap(f"{self.checks} check(s) ({sources}), run with the artifact's {tests} test(s)"
                                      f"{where}" + (f"; {note}" if note else "")))
        signatures = ", ".join(_signature(f) for f in implementation_nodes(tree)) or "the artifact's module"
        return Evidence(kind=EvidenceKind.AUTHOR_TESTS,
                        aligned_claim=_cap(f"{signatures}: author's tests only ({tests} test(s))"),
                        formaliser=Formaliser.ARTIFACT, supplied_by=Supplier.AUTHOR,
                        note=_cap(note or "the step text and question state no example or claim the offline reader "
                                  "can check; the verdict rests on the artifact author's own tests"))


def plan_step_checks(context: StepContext | None, tree: ast.Module, *, seed: int = 0) -> StepPlan:
    """The checks the step text and question state for the artifact `tree` (see the module docstring)."""
    plan = StepPlan()
    if context is None:
        plan.notes.append("no step context was given: nothing from the step text or question is checked")
        return plan
    names = _module_names(tree)
    functions = {f.name: f for f in tree.body if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)}
    defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
               and not n.name.lower().startswith("test")}
    for origin, text in ((Origin.STEP, context.content), (Origin.QUESTION, context.original_query),
                         (Origin.WRITTEN, context.written_examples)):
        _read_examples(plan, origin, text or "", names, defined)
    _read_claims(plan, context.content or "", functions, seed)
    return plan


# ----------------------------------------------------------------------------------------- reading


def _read_examples(plan: StepPlan, origin: Origin, text: str, names: set[str], defined: set[str]) -> None:
    for block in doctest_blocks(text):
        lines = tuple((src, exp) for src, exp in block if not _SKIP.search(src))
        if not any(exp is not None for _, exp in lines):
            continue
        shown = lines[0][0]
        try:
            trees = [ast.parse(src) for src, _ in lines]
        except (SyntaxError, ValueError):
            plan.notes.append(f"{origin.value} example `{shown}` is not valid Python: not checked")
            continue
        missing = sorted(_free_names(trees) - names)
        if missing:
            if origin is not Origin.STEP:
                plan.notes.append(f"{origin.value} example `{shown}` uses {', '.join(missing)}, which this artifact "
                                  "does not define: not checked here")
                continue
            if plan.unaligned is None:
                plan.unaligned = (f"the step text's example `{shown}` uses {', '.join(missing)}, which the artifact "
                                  "does not define: the artifact is not the code the step describes")
            continue
        if not _exercises(trees, lines, defined):
            plan.notes.append(f"{origin.value} example `{shown}` checks a value the artifact's functions do not "
                              "compute: it says nothing about the step, not counted")
            continue
        plan.examples.append(ExampleCheck(id=f"e{len(plan.examples) + 1}", origin=origin, lines=lines))


def _read_claims(plan: StepPlan, text: str, functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef],
                 seed: int) -> None:
    own = defined_functions(text)
    claims = [c for f in own for c in read_claims(ast.get_docstring(f) or "", function=f.name)]
    prose = strip_fences(text)
    if not (own and prose.strip() == text.strip()):  # a step that is all code has no prose beyond its docstrings
        claims += read_claims(prose)
    if not claims and re.search(r"\b(?:returns?|computes?|finds?|gives?)\b", text, re.IGNORECASE):
        plan.notes.append("no claim in the step text matches the reader's phrase table: its prose is not checked")
    one_arg = {name for name, f in functions.items() if _takes_one_argument(f)}
    own_one_arg = [f.name for f in own if f.name in one_arg]
    for claim in claims:
        target = _place(claim, functions, one_arg, own_one_arg)
        if isinstance(target, _Unplaced):
            if target.blocking and plan.unaligned is None:
                plan.unaligned = target.reason
            elif not target.blocking:
                plan.notes.append(target.reason)
            continue
        plan.claims.append(ClaimCheck(id=f"c{len(plan.claims) + 1}", claim=claim, function=target,
                                      inputs=tuple(_claim_inputs(claim.kind, seed))))


@dataclass(frozen=True)
class _Unplaced:
    reason: str
    blocking: bool


def _place(claim: ReadClaim, functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef], one_arg: set[str],
           own_one_arg: list[str]) -> str | _Unplaced:
    said = f"the step says \"{claim.phrase}\""
    # a function is named as code (`largest` or largest(...)), never by an English word it shares a name with
    named = [claim.function] if claim.function else [
        n for n in functions if re.search(rf"`{re.escape(n)}`|(?<![\w.]){re.escape(n)}\s*\(", claim.sentence)]
    if len(named) == 1:
        name = named[0]
        if name not in functions:
            return _Unplaced(f"{said} of {name}, which the artifact does not define", blocking=True)
        if name not in one_arg:
            return _Unplaced(f"{said} of {name}, which does not take one argument: the claim is not checked", False)
        return name
    if len(named) > 1:
        named_one = [n for n in named if n in one_arg]
        if len(named_one) == 1:
            return named_one[0]
        return _Unplaced(f"{said} in a sentence naming {', '.join(named)}: the reader cannot tell which function "
                         "it is about; name one function per claim", blocking=True)
    pool = own_one_arg or sorted(one_arg)
    if len(pool) == 1:
        return pool[0]
    if not pool:
        return _Unplaced(f"{said}, but no function of the artifact takes one argument: the claim is not checked",
                         False)
    return _Unplaced(f"{said} without naming the function, and the artifact defines several that take one argument "
                     f"({', '.join(pool)}): name it (`{pool[0]}(xs)` returns ...)", blocking=True)


def _takes_one_argument(f: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    if isinstance(f, ast.AsyncFunctionDef) or f.name.startswith("test"):
        return False
    a = f.args
    positional = len(a.posonlyargs) + len(a.args)
    required = positional - len(a.defaults)
    kw_required = sum(1 for d in a.kw_defaults if d is None)
    return kw_required == 0 and required <= 1 and (positional >= 1 or a.vararg is not None)


def _exercises(trees: list[ast.Module], lines: tuple[tuple[str, str | None], ...], defined: set[str]) -> bool:
    """Whether every line of an example whose output is checked uses the artifact's code: one of its functions
    or classes, or a name an earlier line bound (`>>> r = f(3)` then `>>> r`). `>>> 1 + 1` / `2` checks
    Python, not the step."""
    reach = set(defined)
    for tree, (_, expected) in zip(trees, lines, strict=True):
        loads = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        if expected is not None and not loads & reach:
            return False
        if loads & reach:
            reach.update(n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
    return True


def _module_names(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        else:
            names.update(n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
    return names


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
    return used - bound - _BUILTINS


# --------------------------------------------------------------------------------------- claims' inputs

_NON_EMPTY = {ClaimKind.MAX, ClaimKind.MIN}
_STRINGS = {ClaimKind.REVERSED_STR, ClaimKind.LENGTH_STR}


def _claim_inputs(kind: ClaimKind, seed: int) -> list[Any]:
    rng = random.Random(f"rf-claim:{seed}:{kind.value}")
    if kind in _STRINGS:
        fixed: list[Any] = ["", "a", "ab", "abc", "racecar", "Hello, World"]
        letters = "abcdefghijklmnopqrstuvwxyzAB _"
        return fixed + ["".join(rng.choice(letters) for _ in range(rng.randint(0, 12)))
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
    return len(value)


# ---------------------------------------------------------------------------------------- judging


def _judge_example(example: ExampleCheck, event: dict[str, Any]) -> str | None:
    results = {r.get("i"): r for r in event.get("lines", []) if isinstance(r, dict)}
    for i, (source, expected) in enumerate(example.lines):
        result = results.get(i)
        where = f"the {example.origin.value}'s example `{source}`"
        if expected is None:
            if result is not None and result.get("error"):
                return f"{where} raised {result['error']}"
            continue
        if result is None:
            return f"{where} did not run (an earlier line of its block raised)"
        problem = _compare(source, expected, result)
        if problem:
            return f"{where} should give {expected}, but {problem}"
    return None


def _compare(source: str, expected: str, result: dict[str, Any]) -> str | None:
    """Why `result` is not the `expected` output of `source`, or None. An expression's output is its value
    (a `print(...)` call's is what it printed); a statement's is what it printed."""
    error = result.get("error")
    if expected.startswith(_TRACEBACK):
        wanted = _exception_name(expected)
        if error and wanted and str(error).split(":", 1)[0].split(".")[-1] == wanted:
            return None
        return f"it {'raised ' + str(error) if error else 'returned ' + str(result.get('repr', 'nothing'))}"
    if error:
        return f"it raised {error}"
    text = _norm(expected)
    printed = _norm(str(result.get("printed") or ""))
    if "repr" not in result or _prints(source):
        return None if printed == text else (f"it printed {printed!r}" if printed else "it printed nothing")
    try:
        literal = ast.literal_eval(expected)
        has_literal = True
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        has_literal = False
    if has_literal and "value" in result:
        try:
            value = decode_value(result["value"])
        except ValueError:
            return f"it returned {result.get('repr')} (unreadable)"
        return None if _same(value, literal) else f"it returned {result.get('repr')}"
    return None if _norm(str(result.get("repr", ""))) == text else f"it returned {result.get('repr')}"


def _prints(source: str) -> bool:
    try:
        node = ast.parse(source, mode="eval").body
    except SyntaxError:
        return True  # a statement: its output is what it prints
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print"


def _same(value: Any, literal: Any) -> bool:
    if isinstance(literal, bool) or isinstance(value, bool):
        return type(value) is type(literal) and value == literal
    try:
        return bool(value == literal)
    except Exception:  # noqa: BLE001 - plain data compares; anything else does not match
        return False


def _exception_name(expected: str) -> str | None:
    tail = expected[len(_TRACEBACK):]
    found = re.findall(r"([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning|Iteration))\b", tail)
    return found[-1].split(".")[-1] if found else None


def _judge_claim(claim: ClaimCheck, event: dict[str, Any]) -> str | None:
    calls = event.get("calls", [])
    if not isinstance(calls, list) or len(calls) != len(claim.inputs):
        return f"the step's claim \"{claim.claim.phrase}\" reported {len(calls) if isinstance(calls, list) else 0} " \
               f"results for {len(claim.inputs)} inputs"
    for value, result in zip(claim.inputs, calls, strict=True):
        want = claim.expected(value)
        head = f"the step says {claim.function} \"{claim.claim.phrase}\", but {claim.function}({value!r})"
        if not isinstance(result, dict):
            return f"{head} reported nothing readable"
        if result.get("error"):
            return f"{head} raised {result['error']} (expected {want!r})"
        if "value" not in result:
            return f"{head} returned {result.get('repr')} (expected {want!r})"
        try:
            got = decode_value(result["value"])
        except ValueError:
            return f"{head} returned an unreadable value (expected {want!r})"
        if not _same(got, want) or type(got) is not type(want) and not isinstance(want, int | float):
            return f"{head} returned {result.get('repr')} (expected {want!r})"
    return None


def _norm(text: str) -> str:
    return " ".join(text.split())


def _signature(f: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    return f"def {f.name}({ast.unparse(f.args)})"


def _cap(text: str, n: int = 2000) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"

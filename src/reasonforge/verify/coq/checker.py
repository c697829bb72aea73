"""The `coq` chain checker: every step a Coq theorem, the chain one workspace, compiled by `coqc` in the sandbox.

A step is verified when, all together:
1. its artifact passes the anti-gaming rules (`coq_policy`: no `Admitted`/`admit`, no assumptions
   outside the Context, no `Require` outside the standard library, no notations, modules, kernel
   switches, ...) and states at least one Theorem/Lemma/Fact/Remark/Corollary/Proposition/Example
   (a step of definitions only is `unsupported`), without redeclaring a name of the Context or of an
   ancestor step;
2. its file compiles (`coq_workspace`: the Context and every ancestor step imported);
3. `Print Assumptions`, run by the checker on all its theorems, lists nothing but the Context's givens
   and the allowed standard axioms (`coq_audit.STANDARD_AXIOMS`), and the givens it uses are not
   contradictory (a `lia`/`nia`/`tauto`/`congruence` probe for `False`, quantified givens instantiated);
4. its theorems state what its text claims (`align`, binders respected), and the text claims something
   the checker can read;
5. every Context declaration its proof uses is a given of the question (read from
   `ChainStep.context.original_query`), and every definition its theorems speak of is a given or a binding
   a step's text makes (`grounding`, `judge`).

Outcomes: a rule broken, a compile error, a forbidden axiom, a misaligned theorem or a definition that makes
the claim true by fiat is `failed` (with the line *within the artifact* and Coq's message); a step whose
Context or ancestor did not compile is `error` ("cannot compile: depends on step N which failed"); time,
memory and sandbox problems are `error`; a claim the checker cannot read, a statement it cannot read, or a
proof resting on a Context declaration the question does not give is `unsupported`. A verified step records
`evidence` (types.Evidence, kind THEOREM): the aligned theorem statements and how each claim was covered.
Nothing is ever compiled outside the sandbox unless the caller passes `unsafe_no_sandbox=True` for
trusted local use (mirroring `sandbox.run_sandboxed`).

Two ways to compile (`mode`), same files, same audit, same verdicts: `per-file` runs one `coqc` per
file in one sandboxed driver (the plan's Context/Step/Chain workspace, the reference behaviour) and
`warm`, see `coq_warm` (one process for the whole chain).
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from reasonforge.errors import ReasonForgeError, ToolUnavailableError
from reasonforge.lang.math.expr import ExpressionError
from reasonforge.registry import Spec, checkers
from reasonforge.types import (
    ArtifactLanguage,
    ChainStep,
    CheckLimits,
    CheckOutcome,
    ErrorKind,
    ProofLevel,
    StepContext,
    StepStatus,
)
from reasonforge.verify.coq.audit import (
    STANDARD_AXIOMS,
    Assumptions,
    marked_sections,
    parse_assumptions,
    printed_type,
)
from reasonforge.verify.coq.claims import StepClaims, mentioned_names, step_claims
from reasonforge.verify.coq.diag import FileRun, first_error, resource_problem
from reasonforge.verify.coq.givens import Givens, read_givens
from reasonforge.verify.coq.grounding import read_context
from reasonforge.verify.coq.judge import Judge
from reasonforge.verify.coq.lex import CoqLexError, tokenize
from reasonforge.verify.coq.policy import ArtifactFacts, PolicyViolation, inspect_artifact, stdlib_modules
from reasonforge.verify.coq.toolchain import CoqToolchain, find_coq
from reasonforge.verify.coq.warm import compile_workspace
from reasonforge.verify.coq.workspace import ChainPlan, Workspace, module_of, per_file_workspace

__all__ = ["CHECKER_VERSION", "CoqChecker", "LemmaRun", "check_coq_chain", "unavailable_reason"]

CHECKER_VERSION = "2.0.0"
Mode = Literal["per-file", "warm"]
_T = TypeVar("_T")


@dataclass(frozen=True)
class LemmaRun:
    """What compiling one standalone lemma file showed (`CoqChecker.prove`): proved or not, why not, the file's
    own output (what its tactics printed), whether a time limit stopped it, and its compile time."""

    proved: bool
    message: str | None = None
    output: str = ""
    timed_out: bool = False
    elapsed_ms: int | None = None


@dataclass
class _Step:
    """One step while it is being checked: its facts from the lexer and, once known, its outcome."""

    step: ChainStep
    facts: ArtifactFacts | None = None
    outcome: CheckOutcome | None = None
    details: dict[str, Any] = field(default_factory=dict)


def _outcome(status: StepStatus, message: str | None = None, error_kind: ErrorKind | None = None,
             **details: Any) -> CheckOutcome:
    return CheckOutcome(status=status, message=message, error_kind=error_kind, details=details)


@checkers.checker(ArtifactLanguage.COQ)
class CoqChecker:
    """Checks `coq` artifacts chain by chain (see the module docstring)."""

    def __init__(self, *, mode: Mode = "warm", coqc: str | None = None, unsafe_no_sandbox: bool = False,
                 standard_axioms: Sequence[str] = STANDARD_AXIOMS,
                 claims: Callable[[str], StepClaims] = step_claims) -> None:
        self.mode: Mode = mode
        self.coqc = coqc
        self.unsafe_no_sandbox = unsafe_no_sandbox
        self.standard_axioms = tuple(standard_axioms)
        self.claims = claims
        self.spec = Spec(name="coq", version=CHECKER_VERSION,
                         args={"mode": mode, "standard_axioms": list(self.standard_axioms)})

    # ------------------------------------------------------------------------------------ contract
    def check(self, artifact: str, *, level: ProofLevel, limits: CheckLimits,
              context: StepContext | None = None) -> CheckOutcome:
        """A single artifact as a one-step chain without a Context (its text and question from `context`)."""
        step = ChainStep(step_id=1, content=context.content if context is not None else "", artifact=artifact,
                         context=context.model_copy(update={"ancestors": []}) if context is not None else None)
        return self.check_chain([step], context="", level=level, limits=limits)[1]

    def check_chain(self, steps: Sequence[ChainStep], *, context: str, level: ProofLevel,
                    limits: CheckLimits) -> dict[int, CheckOutcome]:
        """Each step's own status, keyed by step id (never `invalidated`: the cascade decides that)."""
        started = time.perf_counter()
        try:
            tool = find_coq(self.coqc)
        except ToolUnavailableError as exc:
            return {s.step_id: _outcome(StepStatus.ERROR, exc.message, error_kind=ErrorKind.TOOL_UNAVAILABLE) for s in steps}
        base = {"checker": "coq", "coq_version": tool.version, "mode": self.mode}
        outcomes = self._check(list(steps), context, limits, tool)
        elapsed = round((time.perf_counter() - started) * 1000, 1)
        return {sid: o.model_copy(update={"details": {**base, **o.details, "chain_elapsed_ms": elapsed}})
                for sid, o in outcomes.items()}

    def prove(self, lemmas: Mapping[int, str], *, limits: CheckLimits) -> dict[int, LemmaRun]:
        """Compile standalone lemma files (no Context, no step text), keyed as given: the same artifact rules,
        sandbox, compile modes and `Print Assumptions` audit as a chain's steps, without the alignment with a
        step's text (the caller states the lemmas itself). A lemma is proved when its file breaks no rule,
        compiles within the limits, and its theorems rest on no axiom but the allowed standard ones."""
        try:
            tool = find_coq(self.coqc)
        except ToolUnavailableError as exc:
            return {key: LemmaRun(False, exc.message) for key in lemmas}
        steps = [ChainStep(step_id=key, content="", artifact=text) for key, text in lemmas.items()]
        compiled = self._compile(steps, "", limits, tool)
        if isinstance(compiled, dict):
            return {sid: LemmaRun(False, o.message or o.status.value, timed_out=o.error_kind is ErrorKind.RESOURCE)
                    for sid, o in compiled.items()}
        work, ws, runs, _ = compiled
        audit = _audit_sections(runs, ws)
        out: dict[int, LemmaRun] = {}
        for sid, w in work.items():
            run = runs.get(module_of(sid)) if sid in ws.steps else None
            if w.outcome is not None or run is None or run.skipped:
                why = w.outcome.message if w.outcome is not None else "it was not compiled"
                out[sid] = LemmaRun(False, why or "it was not compiled")
                continue
            if run.rc != 0:
                failure = self._compile_failure(w, ws.steps[sid], run, limits)
                out[sid] = LemmaRun(False, failure.message or "it did not compile", output=run.output,
                                    timed_out=failure.error_kind is ErrorKind.RESOURCE, elapsed_ms=run.elapsed_ms)
                continue
            mine = audit.get(module_of(sid))
            if mine is None or "assumptions" not in mine:
                out[sid] = LemmaRun(False, "the checker could not audit it", output=run.output)
                continue
            assumptions = parse_assumptions(mine["assumptions"])
            # no Context here: any Context name would be a declaration nobody gave
            bad = self._forbidden(assumptions) or next(
                (f"it depends on {a}, which nothing gives" for a in assumptions.axioms if _context_name(a)), None)
            out[sid] = LemmaRun(bad is None, bad, output=run.output, elapsed_ms=run.elapsed_ms)
        return out

    # ------------------------------------------------------------------------------------- stages
    def _check(self, steps: list[ChainStep], context: str, limits: CheckLimits,
               tool: CoqToolchain) -> dict[int, CheckOutcome]:
        compiled = self._compile(steps, context, limits, tool)
        if isinstance(compiled, dict):
            return compiled
        work, ws, runs, ctx = compiled
        self._interpret(work, ws, runs, ctx, limits)
        return {sid: w.outcome or _outcome(StepStatus.ERROR, "the checker reached no verdict for this step")
                for sid, w in work.items()}

    def _compile(self, steps: list[ChainStep], context: str, limits: CheckLimits, tool: CoqToolchain
                 ) -> dict[int, CheckOutcome] | tuple[dict[int, _Step], Workspace, dict[str, FileRun], ArtifactFacts]:
        """The rules applied and the workspace compiled; or, when nothing could be compiled, every outcome."""
        stdlib = stdlib_modules(tool.coqlib)
        try:
            ctx = inspect_artifact(context, stdlib=stdlib, allow_assumptions=True)
        except CoqLexError as exc:
            return self._all(steps, StepStatus.ERROR, f"the Context (step 0) is not valid Coq: {exc}")
        ctx.violations += _unterminated(context)
        if ctx.violations:
            return self._all(steps, StepStatus.ERROR, f"the Context (step 0) breaks a rule at {ctx.violations[0]}",
                             context_violations=[str(v) for v in ctx.violations])
        work = {s.step_id: _Step(s) for s in steps}
        self._police(work, ctx, stdlib)
        runnable = [sid for sid, w in work.items() if w.outcome is None]
        if not runnable:
            return {sid: w.outcome for sid, w in work.items() if w.outcome is not None}
        plan = self._plan(work, runnable, context, ctx, limits, tool)
        ws = per_file_workspace(plan)
        try:
            runs = compile_workspace(plan, ws, tool, limits, mode=self.mode, unsafe_no_sandbox=self.unsafe_no_sandbox)
        except ReasonForgeError as exc:
            for sid in runnable:
                work[sid].outcome = _outcome(StepStatus.ERROR, exc.message, error_kind=ErrorKind.SANDBOX_UNAVAILABLE)
            return {sid: w.outcome for sid, w in work.items() if w.outcome is not None}
        return work, ws, runs, ctx

    def _all(self, steps: Sequence[ChainStep], status: StepStatus, message: str, **details: Any) -> dict[int, CheckOutcome]:
        return {s.step_id: _outcome(status, message, **details) for s in steps}

    def _police(self, work: dict[int, _Step], ctx: ArtifactFacts, stdlib: frozenset[str]) -> None:
        """Apply the artifact rules; a step that breaks one fails before anything is compiled."""
        for w in work.values():
            try:
                facts = inspect_artifact(w.step.artifact, stdlib=stdlib)
            except CoqLexError as exc:
                w.outcome = _outcome(StepStatus.FAILED, f"line {exc.line}, column {exc.column}: the artifact is not "
                                     f"valid Coq: {exc}", error_line=exc.line, error_kind=ErrorKind.LEX)
                continue
            facts.violations += _unterminated(w.step.artifact)
            w.facts = facts
        for w in work.values():
            if w.outcome is not None or w.facts is None:
                continue
            taken: dict[str, str] = {name: "the Context" for name in ctx.declared}
            for a in w.step.ancestors:
                anc = work.get(a)
                if anc is not None and anc.facts is not None:
                    taken.update({name: f"step {a}" for name in anc.facts.declared})
            clashes = [PolicyViolation(*_first_use(w.step.artifact, n), f"`{n}` is already declared by {taken[n]}; a "
                                       "step may not redeclare (shadow) it: pick a new name")
                       for n in w.facts.declared if n in taken]
            violations = w.facts.violations + clashes
            if violations:
                v = violations[0]
                w.outcome = _outcome(StepStatus.FAILED, f"line {v.line}, column {v.column}: {v.message}",
                                     error_line=v.line, error_kind=ErrorKind.FORBIDDEN,
                                     violations=[str(x) for x in violations[:20]])
            elif not w.facts.theorems:
                w.outcome = _outcome(StepStatus.UNSUPPORTED, "the artifact states no Theorem, Lemma, Fact, Remark, "
                                     "Corollary, Proposition or Example; a step must prove at least one statement",
                                     error_kind=ErrorKind.NO_THEOREM)
        # A step whose ancestor was refused cannot import it.
        refused = {sid: w.outcome.status for sid, w in work.items() if w.outcome is not None}
        for w in work.values():
            bad = next((a for a in w.step.ancestors if a in refused), None)
            if w.outcome is None and bad is not None:
                why = "failed" if refused[bad] is StepStatus.FAILED else f"was not compiled ({refused[bad].value})"
                w.outcome = _outcome(StepStatus.ERROR, f"cannot compile: depends on step {bad}, which {why}",
                                     error_kind=ErrorKind.DEPENDENCY)

    def _plan(self, work: dict[int, _Step], runnable: list[int], context: str, ctx: ArtifactFacts,
              limits: CheckLimits, tool: CoqToolchain) -> ChainPlan:
        facts = {sid: work[sid].facts or ArtifactFacts() for sid in runnable}
        return ChainPlan(
            nonce=secrets.token_hex(16), context=context, context_assumptions=tuple(ctx.assumptions),
            context_definitions=tuple(ctx.definitions), context_requires=tuple(ctx.requires),
            artifacts={sid: work[sid].step.artifact for sid in runnable},
            theorems={sid: tuple(f.theorems) for sid, f in facts.items()},
            definitions={sid: tuple(f.definitions) for sid, f in facts.items()},
            imports={sid: tuple(a for a in work[sid].step.ancestors if a in facts) for sid in runnable},
            requires={sid: tuple(f.requires) for sid, f in facts.items()},
            order=tuple(runnable), timeout_s=limits.timeout_s, env=tool.env)

    # --------------------------------------------------------------------------------- verdicts
    def _interpret(self, work: dict[int, _Step], ws: Workspace, runs: dict[str, FileRun], ctx: ArtifactFacts,
                   limits: CheckLimits) -> None:
        ctx_run = runs.get("Context")
        if ctx_run is None or ctx_run.rc != 0:
            if ctx_run is None:
                why = "it was never compiled"
            else:
                err = first_error(ctx_run.output)
                where = f"line {err.line}: " if err and err.line else ""
                why = resource_problem(ctx_run, limits.timeout_s) or (
                    f"{where}{err.message}" if err else ctx_run.output[-500:])
            message = f"the Context (step 0) does not compile: {why}"
            for sid in ws.order:
                work[sid].outcome = _outcome(StepStatus.ERROR, message, error_kind=ErrorKind.CONTEXT)
            return
        audit = _audit_sections(runs, ws)
        givens = _guarded(read_givens, _question(work), Givens())
        entries = read_context(audit.get("Context", {}), ctx, givens)
        parameters = {name for name, e in entries.items() if e.kind == "parameter"}
        vacuous = _vacuous(audit)
        unread = StepClaims(uncompared=["the reader could not read the step's text"])
        judge = Judge(givens, entries, {sid: _guarded(self.claims, w.step.content, unread) for sid, w in work.items()},
                      {sid: list(w.step.ancestors) for sid, w in work.items()}, _ancestor_names(work))
        for sid in ws.order:
            w = work[sid]
            step_file = ws.steps[sid]
            run = runs.get(step_file.module)
            w.details.update(file=f"{step_file.module}.v", files=sorted(n for n in ws.files if n.endswith(".v")),
                             imports=list(step_file.imports))
            if run is not None and run.elapsed_ms is not None:
                w.details["compile_ms"] = run.elapsed_ms
            if run is None or run.skipped:
                failed = next((a for a in w.step.ancestors if a in ws.steps and runs.get(ws.steps[a].module) is not None
                               and runs[ws.steps[a].module].rc not in (0, None)), None)
                why = f"depends on step {failed}, which failed" if failed else "its Context or an ancestor did not compile"
                w.outcome = _outcome(StepStatus.ERROR, f"cannot compile: {why}", error_kind=ErrorKind.DEPENDENCY, **w.details)
                continue
            if run.rc != 0:
                w.outcome = self._compile_failure(w, step_file, run, limits)
                continue
            w.outcome = self._audit_step(w, sid, audit, parameters, vacuous, judge)

    def _compile_failure(self, w: _Step, step_file: Any, run: FileRun, limits: CheckLimits) -> CheckOutcome:
        problem = resource_problem(run, limits.timeout_s)
        if problem:
            return _outcome(StepStatus.ERROR, f"timeout or resource limit: {problem}", error_kind=ErrorKind.RESOURCE, **w.details)
        err = first_error(run.output)
        if err is None:
            return _outcome(StepStatus.FAILED, f"coqc failed without an error message: {run.output[-500:]}",
                            error_kind=ErrorKind.COMPILE, **w.details)
        last = step_file.artifact_lines
        if "Open proofs remain" in err.message or "pending proofs" in err.message:
            return _outcome(StepStatus.FAILED, f"line {last}: a proof is still open at the end of the artifact; finish "
                            "it and close it with `Qed`", error_kind=ErrorKind.COMPILE, error_line=last,
                            coq_error=err.message, **w.details)
        if err.line is None:
            return _outcome(StepStatus.FAILED, f"line {last}: {err.message}", error_kind=ErrorKind.COMPILE,
                            error_line=last, coq_error=err.message, **w.details)
        line = err.line - step_file.header_lines
        if line < 1:
            return _outcome(StepStatus.ERROR, f"the checker's import line failed: {err.message}", error_kind=ErrorKind.HEADER,
                            coq_error=err.message, **w.details)
        if line > last:
            return _outcome(StepStatus.FAILED, "a theorem the artifact states does not exist after compiling: is its "
                            f"proof finished with `Qed` (and not inside `Fail`)? Coq: {err.message}",
                            error_kind=ErrorKind.MISSING_THEOREM, coq_error=err.message, **w.details)
        return _outcome(StepStatus.FAILED, f"line {line}, column {err.column}: {err.message}", error_kind=ErrorKind.COMPILE,
                        error_line=line, error_column=err.column, coq_error=err.message, **w.details)

    def _audit_step(self, w: _Step, sid: int, audit: dict[str, dict[str, str]], parameters: set[str],
                    vacuous: str | None, judge: Judge) -> CheckOutcome:
        assert w.facts is not None
        module = module_of(sid)
        mine = audit.get(module)
        if mine is None or "assumptions" not in mine:
            problem = audit.get("_problems", {}).get(module, "the audit produced no result for this step")
            return _outcome(StepStatus.ERROR, f"the checker could not audit this step: {problem}",
                            error_kind=ErrorKind.AUDIT, **w.details)
        assumptions = parse_assumptions(mine["assumptions"])
        w.details["assumptions"] = "closed under the global context" if assumptions.closed else assumptions.axioms
        bad = self._forbidden(assumptions)
        if bad:
            return _outcome(StepStatus.FAILED, bad, error_kind=ErrorKind.ASSUMPTIONS, **w.details)
        used = [name for a in assumptions.axioms if (name := _context_name(a))]
        used_hypotheses = [g for g in used if g not in parameters]
        if used_hypotheses and "probe" not in audit.get("Context", {}):
            # No verdict from the probe is no evidence of consistency: never verify on givens it did not look at.
            return _outcome(StepStatus.ERROR, "the checker's consistency probe on the givens gave no result, so a "
                            f"proof using {', '.join(used_hypotheses)} cannot be trusted", error_kind=ErrorKind.AUDIT,
                            **w.details)
        if vacuous and used_hypotheses:
            return _outcome(StepStatus.FAILED, f"the givens are contradictory ({vacuous}), so this step's proof, which "
                            f"uses {', '.join(used_hypotheses)}, proves nothing", error_kind=ErrorKind.VACUOUS, **w.details)
        printed = {t: printed_type(mine.get(f"check {t}", "")) for t in w.facts.theorems}
        statements = {t: s for t, s in printed.items() if s}
        verdict = judge.judge(sid, statements, mine, used)
        return CheckOutcome(status=verdict.status, message=verdict.message, error_kind=verdict.error_kind,
                            evidence=verdict.evidence, details={**w.details, **verdict.details})

    def _forbidden(self, assumptions: Assumptions) -> str | None:
        if assumptions.other:
            return ("Print Assumptions reports more than axioms (" + "; ".join(assumptions.other[:3]) + "): the proof "
                    "relies on a switched-off kernel check or something the checker does not accept")
        allowed = list(self.standard_axioms)
        for name in assumptions.axioms:
            if name.startswith("Context."):
                continue
            if any(full == name or full.endswith("." + name) for full in allowed):
                continue
            return (f"the proof depends on the axiom {name}, which is neither a given of the Context nor an allowed "
                    f"standard axiom ({', '.join(a.rsplit('.', 1)[-1] for a in allowed)})")
        return None


# ------------------------------------------------------------------------------------------ helpers
def _first_use(text: str, name: str) -> tuple[int, int]:
    """Line and column of the first identifier `name` in an artifact (1, 1 if not found)."""
    try:
        return next(((t.line, t.column) for t in tokenize(text) if t.kind == "ident" and t.text == name), (1, 1))
    except CoqLexError:
        return 1, 1


def _unterminated(text: str) -> list[PolicyViolation]:
    """A last sentence without its `.` would run into the checker's own lines: refuse it."""
    try:
        toks = tokenize(text)
    except CoqLexError:
        return []
    if toks and toks[-1].kind != "end" and toks[-1].text != "}":
        return [PolicyViolation(toks[-1].line, toks[-1].column, "the last sentence does not end with `.`")]
    return []


def _audit_sections(runs: Mapping[str, FileRun], ws: Workspace) -> dict[str, dict[str, str]]:
    """Per module (`Context`, `Step3`) its audit texts by tag; from Chain.v, or the per-step fallback files."""
    out: dict[str, dict[str, str]] = {"_problems": {}}
    sources: list[FileRun] = []
    chain = runs.get("Chain")
    if chain is not None and chain.rc == 0:
        sources.append(chain)
    else:
        for sid in ws.order:
            run = runs.get(f"Audit{sid}")
            if run is None:
                continue
            if run.rc == 0:
                sources.append(run)
            else:
                err = first_error(run.output)
                out["_problems"][module_of(sid)] = err.message if err else (resource_problem(run, 0) or "audit failed")
        for name in ("Head", "Probe"):  # warm mode: the Context's audit and the probe run on their own
            run = runs.get(name)
            if run is not None and run.rc == 0:
                sources.append(run)
    for run in sources:
        for tag, text in marked_sections(run.output, ws.nonce):
            words = tag.split()
            if words[0] in ("check", "def") and len(words) == 3:
                out.setdefault(words[1], {})[f"{words[0]} {words[2]}"] = text
            elif words[0] == "assumptions" and len(words) == 2:
                out.setdefault(words[1], {})["assumptions"] = text
            elif words[0] in ("ctx-hyp", "ctx-def") and len(words) == 2:
                out.setdefault("Context", {})[f"{words[0]} {words[1]}"] = text
            elif words[0] in ("vacuous", "consistent"):
                out.setdefault("Context", {})["probe"] = words[0]
    return out


def _guarded(read: Callable[[str], _T], text: str, fallback: _T) -> _T:
    """`read(text)`, or `fallback` (which claims and gives nothing) when the reader cannot read the text."""
    try:
        return read(text)
    except (ExpressionError, RecursionError, ValueError):
        return fallback


def _question(work: Mapping[int, _Step]) -> str:
    """The question (its givens), from the steps' contexts; empty when the caller gave none."""
    return next((w.step.context.original_query for w in work.values() if w.step.context is not None), "")


def _ancestor_names(work: Mapping[int, _Step]) -> dict[int, set[str]]:
    """For each step, every name its ancestors' texts mention (their texts from the context, else the chain)."""
    texts = {sid: w.step.content for sid, w in work.items()}
    out: dict[int, set[str]] = {}
    for sid, w in work.items():
        contents = ([a.content for a in w.step.context.ancestors] if w.step.context is not None
                    else [texts[a] for a in w.step.ancestors if a in texts])
        out[sid] = set().union(*(_guarded(mentioned_names, c, set[str]()) for c in contents)) if contents else set()
    return out


def _context_name(axiom: str) -> str | None:
    """`x` for the Context's `Context.x` (or `RF.Context.x`) in Print Assumptions, else None."""
    head, _, name = axiom.removeprefix("RF.").partition(".")
    return name if head == "Context" and name else None


def _vacuous(audit: dict[str, dict[str, str]]) -> str | None:
    if audit.get("Context", {}).get("probe") == "vacuous":
        return "lia, nia, tauto or congruence proves False from the Context's hypotheses"
    return None


def unavailable_reason(coqc: str | None = None) -> str | None:
    """Why Coq artifacts cannot be checked on this host (no coqc, no sandbox), or None when they can."""
    try:
        find_coq(coqc)
    except ToolUnavailableError as exc:
        return exc.message
    from reasonforge.verify import sandbox

    try:
        sandbox.run_sandboxed(["/bin/true"], {}, sandbox.Limits(wall_s=20))
    except sandbox.SandboxUnavailable as exc:
        return f"the sandbox is unavailable: {exc.message}"
    return None


def check_coq_chain(steps: Sequence[ChainStep], *, context: str = "", level: ProofLevel = ProofLevel.FORMAL,
                    limits: CheckLimits | None = None, **options: Any) -> dict[int, CheckOutcome]:
    """Check a chain of `coq` artifacts (CoqChecker without the registry)."""
    return CoqChecker(**options).check_chain(steps, context=context, level=level, limits=limits or CheckLimits())

"""The `lean4` checker: output parsing on recorded real Lean output, lexing and refusals, workspace layout,
the REPL protocol against a local process replaying recorded REPL sessions, the sandboxed compile plumbing
with a stand-in `lean`, and real Lean runs when a toolchain is installed (skipped otherwise)."""

from __future__ import annotations

import json
import shutil
import stat
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reasonforge import StepTranslation, VerifyRequest, verify_chain
from reasonforge.registry import checkers
from reasonforge.types import ArtifactLanguage, ChainStep, CheckLimits, CheckOutcome, ErrorKind, ProofLevel, StepStatus
from reasonforge.verify import sandbox as sb
from reasonforge.verify.lean.checker import ALLOWED_AXIOMS, UNALIGNED_MESSAGE, LeanChecker, _unaligned, judge_axioms
from reasonforge.verify.lean.compile import CompileResult, judge_messages, judge_run
from reasonforge.verify.lean.diag import (
    Diagnostic,
    is_resource_limit,
    is_sorry_warning,
    parse_axioms,
    parse_json_message,
    parse_output,
)
from reasonforge.verify.lean.lex import Declaration, quote_name, scan_artifact, tokenize
from reasonforge.verify.lean.repl import LeanReplPool, ReplCrashed, ReplProcess, ReplResponse, ReplTimeout
from reasonforge.verify.lean.toolchain import NOT_INSTALLED, LeanSettings, discover
from reasonforge.verify.lean.workspace import (
    chain_file,
    context_module,
    lakefile,
    render_workspace,
    step_module,
    toolchain_pin,
)

DATA = Path(__file__).parent / "data"
TRANSCRIPTS = DATA / "repl"
FAKE_REPL = [sys.executable, str(DATA / "fake_repl.py"), str(TRANSCRIPTS)]
LIMITS = CheckLimits(timeout_s=10)
NO_LEAN = LeanSettings(lean="reasonforge-no-such-lean")
needs_lean = pytest.mark.skipif(shutil.which("lean") is None, reason="lean not installed")
needs_sandbox = pytest.mark.skipif(sb.unavailable_reason() is not None,
                                   reason=f"sandbox unavailable: {sb.unavailable_reason()}")
# The first command of the REPL's test/app_type_mismatch2.in: a proof the kernel rejects.
KERNEL_REJECTS = "example : 1 = 0 := by\n  cases 1\n  rfl\n  have: true := by\n    apply ?succ\n    trivial"


def read(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


def step(sid: int, artifact: str, ancestors: tuple[int, ...] = ()) -> ChainStep:
    return ChainStep(step_id=sid, content=f"step {sid}", artifact=artifact, dependencies=list(ancestors[-1:]),
                     ancestors=list(ancestors))


def recorded_answers(name: str) -> list[dict]:
    text = (TRANSCRIPTS / f"{name}.expected.out").read_text(encoding="utf-8")
    return [json.loads(block) for block in text.split("\n\n") if block.strip()]


# ------------------------------------------------------------------------------ recorded diagnostics


def test_lean_cli_output_with_ranges_and_multiline_messages():
    found = parse_output(read("lean4_1007.lean.expected.out"))
    assert len(found) == 9
    assert [d.line for d in found[:3]] == [8, 9, 11]
    assert (found[0].column, found[0].end_line, found[0].end_column, found[0].file) == (9, 8, 17, "1007.lean")
    assert all(is_sorry_warning(d) and d.severity == "warning" for d in found[:8])
    error = found[8]
    assert error.severity == "error" and not is_sorry_warning(error)
    assert error.message.splitlines() == ["failed to synthesize", "  IsLin fun x => sum fun i => norm x",
                                          "use `set_option diagnostics true` to get diagnostic information"]


def test_type_mismatch_mentioning_sorry_ax_is_an_error_not_a_sorry_warning():
    found = parse_output(read("lean4_2040.lean.expected.out"))
    assert [d.severity for d in found] == ["error"] * 4
    mismatch = found[3]
    assert (mismatch.line, mismatch.column, mismatch.end_line, mismatch.end_column) == (18, 2, 20, 22)
    assert "but is expected to have type" in mismatch.message and "sorryAx" in mismatch.message
    assert not any(is_sorry_warning(d) for d in found)


def test_trace_lines_belong_to_the_message_before_them():
    [only] = parse_output(read("lean4_1079.lean.expected.out"))
    assert only.message.startswith("alternative 'isFalse' has not been provided\n[Meta.Tactic.simp.rewrite]")
    assert only.message.endswith("False → False ==> True")


def test_lake_build_log():
    found = parse_output(read("sail_arm_lean_build_log.txt"))
    positioned = [d for d in found if d.line is not None]
    assert [d.line for d in positioned] == [63553, 74457, 74466, 74732, 79012, 90053, 92055]
    assert all(d.severity == "error" and d.file.endswith("/Armv9/V8Base.lean") for d in positioned)
    termination = positioned[4]
    assert termination.message.startswith("failed to prove termination") and "⊢ (BitVec.length" in termination.message
    assert "Additional diagnostic information" in positioned[3].message  # after a blank line inside the message
    assert [is_resource_limit(d) for d in positioned] == [False] * 5 + [True, False]
    assert found[0].severity == "info" and found[0].message.startswith(".> LEAN_PATH=")  # lake's `trace:` line
    assert found[-1].line is None and found[-1].message.startswith("Lean exited with code 1")
    assert not any("Built Armv9" in d.message for d in found)  # progress lines are not messages


def test_lake_heartbeat_timeouts_are_resource_limits():
    found = parse_output(read("coursia_pr1704_lake_timeout.txt"))
    assert [(d.file, d.line, d.column) for d in found[:2]] == [("Conway/KochenSpecker.lean", 203, 6),
                                                               ("Conway/KochenSpecker.lean", 161, 0)]
    assert [is_resource_limit(d) for d in found] == [True, True, False, False]


@pytest.mark.parametrize("name", ["loogle_issue3_timeout.txt", "lean4_issue11183_timeout.txt"])
def test_heartbeat_messages_of_several_lean_versions(name):
    text = read(name)
    diag = parse_json_message({"severity": "error", "pos": {"line": 3, "column": 2}, "data": text})
    assert is_resource_limit(diag)
    assert not is_resource_limit(diag.model_copy(update={"severity": "warning"}))


def test_sorry_warnings_in_a_leandojo_log():
    found = parse_output(read("leandojo_issue221_sorry.txt"))
    assert len(found) == 20 and sum(map(is_sorry_warning, found)) == 19
    assert "[linter.unusedVariables]" in found[0].message and not is_sorry_warning(found[0])


def test_repl_json_messages():
    kernel, sorry = recorded_answers("app_type_mismatch2")[:2]
    [error] = ReplResponse.from_raw(kernel).messages
    assert (error.severity, error.line, error.column, error.end_column) == ("error", 1, 0, 7)
    assert error.message.startswith("(kernel) application type mismatch")
    assert [is_sorry_warning(m) for m in ReplResponse.from_raw(sorry).messages] == [True]
    backticked = ReplResponse.from_raw(recorded_answers("dup_sorries")[0])  # newer Lean: `sorry` in backticks
    assert backticked.env == 0 and is_sorry_warning(backticked.messages[0])
    info = ReplResponse.from_raw(recorded_answers("options")[0]).messages[0]
    assert info.severity == "info" and info.message.startswith("constructor List.cons")


def test_lean_json_lines_and_their_variants():
    line = json.dumps({"severity": "information", "pos": {"line": 4, "column": 0}, "endPos": None,
                       "fileName": "ReasonForge/Chain.lean", "caption": "", "data": "x", "kind": "[anonymous]"})
    [diag] = parse_output(line + "\nnot a message\n")
    assert (diag.severity, diag.line, diag.file, diag.end_line) == ("info", 4, "ReasonForge/Chain.lean", None)
    assert is_sorry_warning(Diagnostic(severity="warning", message="anything", kind="hasSorry"))
    assert parse_json_message({"severity": "fatal"}) is None and parse_json_message([1]) is None


def test_print_axioms_answers_recorded():
    reports = {r.name: r.axioms for r in parse_axioms(read("print_axioms.txt"))}
    assert reports["Classical.em"] == ["Classical.choice", "propext", "Quot.sound"]
    assert reports["contra"] == ["sorryAx"] and reports["false_theorem"] == ["Lean.ofReduceBool"]
    assert reports["Graphiti.run'_refines"] == ["propext", "Classical.choice", "Quot.sound"]  # a name with '
    assert reports["one_add_one"] == ["Lean.ofReduceBool", "Lean.trustCompiler"]
    assert reports["lambda_eq"] == []
    assert len(reports) == 12


def test_print_axioms_wrapped_over_lines():
    # Lean wraps long lists at its format width (this shape is how #guard_msgs docstrings record it).
    text = "'A.very.long.name' depends on axioms: [propext,\n Classical.choice,\n Quot.sound]"
    assert parse_axioms(text)[0].axioms == ["propext", "Classical.choice", "Quot.sound"]


# ------------------------------------------------------------------------------------------ judging


def test_judge_maps_lines_into_the_artifact_and_classifies():
    module = step_module(3, "theorem a : True := trivial\ntheorem b : True := trivial\n", [1, 2])
    assert module.header_lines == 3 and module.source.startswith("import ReasonForge.Context\nimport ReasonForge.Step1\n")
    err = Diagnostic(severity="error", message="unknown identifier 'x'\nmore", line=5, column=4)
    verdict = judge_messages([err], module)
    assert verdict.status is StepStatus.FAILED and verdict.message == "line 2: unknown identifier 'x'"
    assert verdict.messages[0]["line"] == 2
    [timeout] = parse_output(read("coursia_pr1704_lake_timeout.txt"))[:1]
    assert judge_messages([timeout.model_copy(update={"line": 4})], module).status is StepStatus.ERROR
    sorry = parse_output(read("lean4_1007.lean.expected.out"))[0].model_copy(update={"line": 4})
    verdict = judge_messages([sorry], module)
    assert verdict.status is StepStatus.FAILED and "line 1" in verdict.message and "incomplete" in verdict.message
    header = judge_messages([err.model_copy(update={"line": 2})], module)
    assert header.status is StepStatus.ERROR and "imports failed" in header.message
    assert judge_messages([], module).status is None


def test_judge_run_limits_and_silent_failures():
    module = step_module(1, "theorem a : True := trivial", [])
    timed = CompileResult(diagnostics=[], exit_code=None, timed_out=True, limit="wall-clock")
    assert judge_run(timed, module, 20).message.startswith("timeout")
    silent = CompileResult(diagnostics=[], exit_code=134, stderr_tail="Stack overflow detected. Aborting.")
    verdict = judge_run(silent, module, 20)
    assert verdict.status is StepStatus.ERROR and "134" in verdict.message and "Stack overflow" in verdict.message
    assert judge_run(CompileResult(diagnostics=[], exit_code=0), module, 20).status is None


def decl(name: str) -> Declaration:
    return Declaration(kind="theorem", parts=tuple(name.split(".")), line=1)


def test_judge_axioms_on_recorded_answers():
    reports = {r.name: r.axioms for r in parse_axioms(read("print_axioms.txt"))}
    assert judge_axioms(1, [decl("Classical.em")], reports, []).status is StepStatus.VERIFIED
    assert judge_axioms(1, [decl("lambda_eq")], reports, []).status is StepStatus.VERIFIED
    sorry = judge_axioms(1, [decl("contra")], reports, [])
    assert sorry.status is StepStatus.FAILED and "sorryAx" in sorry.message
    native = judge_axioms(1, [decl("one_add_one")], reports, [])
    assert native.status is StepStatus.FAILED and "native_decide" in native.message
    assert judge_axioms(1, [decl("A2")], reports, []).status is StepStatus.FAILED
    assert judge_axioms(1, [decl("A2")], reports, ["A0", "A1", "A2"]).status is StepStatus.VERIFIED  # Context axioms
    missing = judge_axioms(1, [decl("nowhere")], reports, [])
    assert missing.status is StepStatus.ERROR and "no `#print axioms` answer" in missing.message
    assert set(ALLOWED_AXIOMS) == {"propext", "Classical.choice", "Quot.sound"}


# ------------------------------------------------------------------------------------------ lexing


def refused(src: str, **kw) -> list[str]:
    return [v.what for v in scan_artifact(src, **kw).violations]


def test_comments_and_strings_are_not_code():
    src = ('/- outer /- sorry -/ still comment: native_decide -/\n'
           '-- sorry in a line comment\n'
           'def s : String := "sorry -- not a comment /- nor this"\n'
           'def c : Char := \'"\'\n'
           'def r : String := r#"sorry "quoted" admit"#\n'
           "theorem h' (x' : Nat) : x' = x' := rfl\n"
           "example : 1#1 = 1#1 := rfl\n")
    assert refused(src) == []


@pytest.mark.parametrize("src, what", [
    ("theorem t : False := sorry", "sorry"),
    ("theorem t : False := by admit", "admit"),
    ("theorem t : 2 + 2 = 4 := by native_decide", "native_decide"),
    ("theorem t : 2 + 2 = 4 := by decide +native", "native"),
    ("theorem t : False := «sorry»", "sorry"),
    ("theorem t : False := sorryAx False", "sorryAx"),
    ("theorem t : False := Lean.ofReduceBool _ _ rfl", "ofReduceBool"),
    ("@[implemented_by g] def f : Nat := 0", "implemented_by"),
    ('@[extern "c_f"] def f : Nat := 0', "extern"),
    ("attribute [csimp] foo", "csimp"),
    ("unsafe def f : Nat := 0", "unsafe"),
    ("axiom cheat : False", "axiom"),
    ("constant c : Nat", "constant"),
    ("opaque c : Nat", "opaque"),
    ("import Mathlib", "import"),
    ("#exit", "#exit"),
    ("#eval IO.println 1", "#eval"),
    ('#print "\'t\' does not depend on any axioms"', "#print"),
    ("#print axioms t", "#print"),
    ("set_option debug.skipKernelTC true", "set_option debug.skipKernelTC"),
    ("set_option warn.sorry false", "set_option warn.sorry"),
    ("elab \"x\" : term => pure default", "elab"),
    ("macro \"x\" : term => `(0)", "macro"),
    ("syntax \"x\" : term", "syntax"),
    ("macro_rules | `(x) => `(0)", "macro_rules"),
    ("run_cmd pure ()", "run_cmd"),
    ("example : True := by run_tac pure ()", "run_tac"),
    ("initialize pure ()", "initialize"),
    ("private theorem t : True := trivial", "private"),
    ('def s := s!"{sorry}"', "sorry"),
    ("prelude", "prelude"),
    ("def f : Nat := eval% 2 + 2", "eval%"),
    ("def f : Nat := unsafeBaseIO (pure 0)", "unsafeBaseIO"),
    ("def t : Lean.Elab.Tactic.TacticM Unit := pure ()", "Elab"),
    ("open Lean Meta in\ntheorem t : True := trivial", "Meta"),
    ("simproc reduceFoo (foo _) := fun e => pure .continue", "simproc"),
    ("example : ∀ n : Nat, n = n := by plausible", "plausible"),
    ("def main : IO Unit := pure ()", "IO"),
    ("/- never closed", "lexing"),
    ('def s := "never closed', "lexing"),
])
def test_refused_constructs(src, what):
    assert what in refused(src)


def test_allowed_constructs():
    src = ("open Nat in\ntheorem t (n : ℕ) : n + 0 = n := by simp\n"
           "set_option maxHeartbeats 400000 in\ntheorem u : True := by decide\n"
           "set_option linter.unusedVariables false\nnoncomputable def f : ℕ → ℕ := fun x => x\n"
           "instance : Inhabited Nat := ⟨0⟩\nlocal notation \"‖\" x \"‖\" => f x\n")
    assert refused(src) == []


def test_context_may_postulate_but_not_cheat():
    assert refused("axiom x : Nat\naxiom hx : x = 3\nopaque y : Nat", is_context=True) == []
    assert refused("axiom cheat : False := by sorry", is_context=True) == ["sorry"]
    assert scan_artifact("namespace P\naxiom x : Nat\nend P", is_context=True).axioms == ["P.x"]


def test_declarations_with_namespaces_sections_and_quoting():
    src = ("namespace A.B\ntheorem one : True := trivial\nsection\nlemma two : True := trivial\nend\n"
           "theorem _root_.top : True := trivial\nend A.B\ntheorem «has space» : True := trivial\n"
           "instance named : Inhabited Nat := ⟨0⟩\ninstance : Inhabited Int := ⟨0⟩\n"
           "deriving instance Repr for Nat\nexample : True := trivial\n@[simp] def d : Nat := 1\n")
    report = scan_artifact(src)
    assert [(d.kind, d.name) for d in report.declarations] == [
        ("theorem", "A.B.one"), ("lemma", "A.B.two"), ("theorem", "top"), ("theorem", "«has space»"),
        ("instance", "named"), ("example", ""), ("def", "d")]
    assert [d.name for d in report.checkable] == ["A.B.one", "A.B.two", "top", "«has space»", "named", "d"]
    assert quote_name(("Foo", "a b", "c'")) == "Foo.«a b».c'"


LEAN_PIECES = list("-/\"'«»{}!#rs()[]@:=\\ \nabcx01_.") + ["sorry", "s!\"", "r#\"", "/-", "-/", "--", "'\\"]
LEAN_SOUP = st.lists(st.sampled_from(LEAN_PIECES), max_size=40).map("".join)


@settings(max_examples=300, deadline=None)
@given(LEAN_SOUP)
def test_no_prefix_can_hide_a_trailing_sorry(prefix):
    # Whatever comes before, a `sorry` in code after it is refused: either it is seen, or the prefix
    # leaves something open (comment, string, «name») and the whole artifact is refused as unlexable.
    report = scan_artifact(prefix + "\ntheorem z : False := sorry\n")
    assert report.violations


@settings(max_examples=200, deadline=None)
@given(LEAN_SOUP)
def test_lexer_never_crashes(text):
    scan_artifact(text)


def test_tokens_carry_positions():
    tokens = tokenize("-- c\n  theorem x : True := trivial")
    assert (tokens[0].text, tokens[0].line, tokens[0].column) == ("theorem", 2, 2)


# ------------------------------------------------------------------------------------------ workspace


def test_workspace_files():
    ctx = context_module("axiom x : Nat", ["Mathlib"])
    assert ctx.source == "import Mathlib\naxiom x : Nat\n" and ctx.olean == "build/ReasonForge/Context.olean"
    assert ctx.path == "ReasonForge/Context.lean" and ctx.artifact_line(2) == 1 and ctx.artifact_line(1) is None
    chain = chain_file([1, 3], {1: [decl("one")], 3: [decl("A.three"), decl("A.four")]})
    assert chain.source.splitlines() == ["import ReasonForge.Context", "import ReasonForge.Step1",
                                         "import ReasonForge.Step3", "#print axioms one", "#print axioms A.three",
                                         "#print axioms A.four"]
    assert chain.queries == {4: (1, "one"), 5: (3, "A.three"), 6: (3, "A.four")}
    text = lakefile("some/project")
    assert 'require mathlib from "some/project"' in text and "lean_lib ReasonForge" in text


def test_rendered_workspace_replays_with_lake():
    steps = [step(1, "theorem one : True := trivial"), step(2, "theorem two : True := one", (1,))]
    files = render_workspace("", steps, {1: [decl("one")], 2: [decl("two")]}, imports=[],
                             lean_version="Lean (version 4.9.0, x86_64-unknown-linux-gnu, commit abc, Release)")
    assert sorted(files) == ["ReasonForge.lean", "ReasonForge/Chain.lean", "ReasonForge/Context.lean",
                             "ReasonForge/Step1.lean", "ReasonForge/Step2.lean", "lakefile.lean", "lean-toolchain"]
    assert files["ReasonForge/Step2.lean"] == "import ReasonForge.Context\nimport ReasonForge.Step1\ntheorem two : True := one\n"
    assert files["lean-toolchain"] == "leanprover/lean4:v4.9.0\n" and "require" not in files["lakefile.lean"]
    assert toolchain_pin("Lean (version 4.0.0-fake, fake_lean.py)") is None
    assert LeanChecker(NO_LEAN).workspace(steps, context="")["ReasonForge/Chain.lean"].endswith(
        "#print axioms one\n#print axioms two\n")


def test_settings_from_environment():
    settings = LeanSettings.from_env({"REASONFORGE_LEAN": "my-lean", "REASONFORGE_LEAN_PROJECT": "proj",
                                      "REASONFORGE_LEAN_REPL": "lake env repl", "REASONFORGE_LEAN_IMPORTS": ""})
    assert settings.lean == "my-lean" and settings.project == Path("proj")
    assert settings.repl == ("lake", "env", "repl") and settings.header_imports == ()
    assert LeanSettings(project=Path("p")).header_imports == ("Mathlib",)
    assert LeanSettings.from_env({}).header_imports == ()


# ------------------------------------------------------------------------------ checker without lean


def test_not_installed_is_an_error_on_every_checked_step():
    chain = [step(1, "theorem t : True := trivial"), step(2, "theorem u : False := sorry", (1,))]
    outcomes = LeanChecker(NO_LEAN).check_chain(chain, context="", level=ProofLevel.FORMAL, limits=LIMITS)
    assert list(outcomes) == [1, 2]
    assert outcomes[1].status is StepStatus.ERROR and outcomes[1].message == NOT_INSTALLED
    assert outcomes[2].status is StepStatus.FAILED and "sorry" in outcomes[2].message  # refused before Lean
    assert discover(NO_LEAN) is None


def test_refused_context_and_redeclared_names():
    chain = [step(1, "theorem t : True := trivial"), step(2, "theorem t : True := trivial", (1,))]
    outcomes = LeanChecker(NO_LEAN).check_chain(chain, context="", level=ProofLevel.FORMAL, limits=LIMITS)
    assert outcomes[2].status is StepStatus.FAILED and "step 1 already declares" in outcomes[2].message
    outcomes = LeanChecker(NO_LEAN).check_chain(chain, context="axiom c : False := sorry",
                                                level=ProofLevel.FORMAL, limits=LIMITS)
    assert {o.status for o in outcomes.values()} == {StepStatus.ERROR}
    assert "Context is refused" in outcomes[1].message


def test_registered_for_lean4():
    checker = checkers.get(ArtifactLanguage.LEAN4)
    assert isinstance(checker, LeanChecker) and checker.spec.name == "lean4"
    assert hasattr(checker, "check_chain") and not hasattr(checker, "check")


@pytest.mark.skipif(shutil.which("lean") is not None, reason="lean is installed: the steps would be checked")
def test_pipeline_reports_missing_lean_on_the_steps():
    request = VerifyRequest.model_validate({
        "domain": "mathematics", "proof_level": "formal", "prover": "lean4",
        "reasoning_chain": [{"step_id": 1, "content": "1 + 1 = 2"}]})
    translation = StepTranslation(step_id=1, language="lean4", formal_representation="theorem t : 1 + 1 = 2 := rfl")
    verdict = verify_chain(request, translations=[translation])
    [only] = verdict.step_verdicts
    assert only.status is StepStatus.ERROR and only.error_message == NOT_INSTALLED
    assert only.checker_spec.name == "lean4"


# ---------------------------------------------------------------------------- REPL protocol and pool


def test_repl_client_replays_a_recorded_session():
    process = ReplProcess(FAKE_REPL)
    process.start()
    try:
        requests = [json.loads(b) for b in (TRANSCRIPTS / "options.in").read_text().split("\n\n") if b.strip()]
        answers = [process.send(r, timeout=10) for r in requests]
        assert answers == recorded_answers("options")
        assert [ReplResponse.from_raw(a).env for a in answers] == [0, 1, 2, 3]
    finally:
        process.close()
    assert not process.alive


def test_pool_runs_the_header_once_per_process(tmp_path, monkeypatch):
    log = tmp_path / "requests.jsonl"
    monkeypatch.setenv("FAKE_REPL_LOG", str(log))
    header = "theorem thm1 : 1 = 1 := sorry"
    with LeanReplPool(FAKE_REPL) as pool:
        first = pool.run(header, "theorem thm2 : 2 = 2 := sorry", timeout=10)
        second = pool.run(header, "theorem thm2 : 2 = 2 := sorry", timeout=10)
    sent = [json.loads(line) for line in log.read_text().splitlines()]
    assert sent == [{"cmd": header}, {"cmd": "theorem thm2 : 2 = 2 := sorry", "env": 0},
                    {"cmd": "theorem thm2 : 2 = 2 := sorry", "env": 0}]
    assert (first.env, second.env) == (1, 2) and is_sorry_warning(second.messages[0])


def test_pool_evicts_the_least_recently_used_process(tmp_path, monkeypatch):
    log = tmp_path / "requests.jsonl"
    monkeypatch.setenv("FAKE_REPL_LOG", str(log))
    with LeanReplPool(FAKE_REPL, max_processes=1) as pool:
        with pool.session("theorem thm1 : 1 = 1 := sorry") as first:
            first_process = first.process
        with pool.session("#print List.cons") as second:
            assert second.header_env == 0
        assert not first_process.alive
        with pool.session("theorem thm1 : 1 = 1 := sorry") as again:
            assert again.process.alive and again.process is not first_process
    headers = [json.loads(line)["cmd"] for line in log.read_text().splitlines()]
    assert headers == ["theorem thm1 : 1 = 1 := sorry", "#print List.cons", "theorem thm1 : 1 = 1 := sorry"]


def test_crash_is_reported_and_the_next_use_restarts():
    with LeanReplPool(FAKE_REPL) as pool:
        with pytest.raises(ReplCrashed, match="exit status 3"):
            pool.run("", "no such command", timeout=10)
        assert pool.run("", "set_option pp.universes true", timeout=10).env == 0


def test_timeout_kills_the_process(monkeypatch):
    monkeypatch.setenv("FAKE_REPL_HANG_ON", "List.cons")
    process = ReplProcess(FAKE_REPL)
    process.start()
    with pytest.raises(ReplTimeout, match="within 0.5 s"):
        process.send({"cmd": "#print List.cons"}, timeout=0.5)
    assert not process.alive


def passed(outcome) -> bool:
    """Compiled and audited: the checker's own verdict, reported unsupported since it aligns no statement."""
    return (outcome.status is StepStatus.UNSUPPORTED and outcome.details.get("checker_status") == "verified"
            and outcome.error_kind == ErrorKind.UNALIGNED)


def test_a_compiled_step_is_never_verified_without_alignment():
    ok = CheckOutcome(status=StepStatus.VERIFIED, details={"axioms": {}})
    out = _unaligned(ok)
    assert passed(out) and out.message == UNALIGNED_MESSAGE and "evidence" not in out.details
    failed = CheckOutcome(status=StepStatus.FAILED, message="boom")
    assert _unaligned(failed) is failed


def test_checker_on_a_warm_repl():
    chain = [step(1, "set_option pp.universes true"), step(2, KERNEL_REJECTS, (1,)),
             step(3, "theorem thm2 : 2 = 2 := rfl", (1, 2))]
    with LeanReplPool(FAKE_REPL) as pool:
        checker = LeanChecker(NO_LEAN, pool=pool)
        assert checker.spec.args["backend"] == "repl"
        outcomes = checker.check_chain(chain, context="", level=ProofLevel.FORMAL, limits=LIMITS)
    assert passed(outcomes[1]) and outcomes[1].details["backend"] == "repl"
    assert outcomes[2].status is StepStatus.FAILED
    assert outcomes[2].message == "line 1: (kernel) application type mismatch"
    assert outcomes[3].status is StepStatus.ERROR and "builds on step 2" in outcomes[3].message


def test_checker_repl_timeout_leaves_the_rest_unchecked(monkeypatch):
    monkeypatch.setenv("FAKE_REPL_HANG_ON", "pp.universes")
    chain = [step(1, "set_option pp.universes true"), step(2, KERNEL_REJECTS)]
    settings = NO_LEAN.model_copy(update={"repl": tuple(FAKE_REPL), "min_wall_s": 0.5})
    outcomes = LeanChecker(settings).check_chain(chain, context="", level=ProofLevel.FORMAL,
                                                 limits=CheckLimits(timeout_s=0.5))
    assert outcomes[1].status is StepStatus.ERROR and outcomes[1].message.startswith("timeout")
    assert outcomes[2].status is StepStatus.ERROR and "timed out on step 1" in outcomes[2].message


# ------------------------------------------------------------- compile plumbing with a stand-in lean


@pytest.fixture(scope="module")
def fake_toolchain():
    """A world-readable prefix holding bin/lean = fake_lean.py (the sandbox user must read it)."""
    root = Path(tempfile.mkdtemp(prefix="reasonforge-fake-lean-"))
    (root / "bin").mkdir()
    lean = root / "bin" / "lean"
    shutil.copy(DATA / "fake_lean.py", lean)
    lean.chmod(0o755)
    (root / "axioms.json").write_text(json.dumps({"uses_sorry": ["sorryAx"], "classical": ["Classical.choice"],
                                                  "compiled": ["Lean.ofReduceBool"], "given": ["x_is_3"]}))
    for path in (root, root / "bin"):
        path.chmod(path.stat().st_mode | stat.S_IRWXU | stat.S_IRGRP | stat.S_IXGRP | stat.S_IROTH | stat.S_IXOTH)
    (root / "axioms.json").chmod(0o644)
    yield root
    shutil.rmtree(root, ignore_errors=True)


@needs_sandbox
def test_compile_plumbing_with_a_stand_in_lean(fake_toolchain):
    settings = LeanSettings(lean=str(fake_toolchain / "bin" / "lean"), min_wall_s=15)
    chain = [
        step(1, "theorem classical : True := trivial"),
        step(2, "theorem uses_sorry : True := trivial", (1,)),
        step(3, "-- FAKE_ERROR\ntheorem three : True := trivial", (1,)),
        step(4, "theorem four : True := trivial", (1, 3)),
        step(5, "theorem five : True := trivial\n-- FAKE_SORRY", (1,)),
        step(6, "theorem given : True := trivial\ntheorem compiled : True := trivial", (1,)),
        step(7, "-- FAKE_TIMEOUT", ()),
        step(8, "example : True := trivial", (1,)),
    ]
    checker = LeanChecker(settings)
    outcomes = checker.check_chain(chain, context="axiom x_is_3 : 3 = 3", level=ProofLevel.FORMAL, limits=LIMITS)
    status = {sid: o.status for sid, o in outcomes.items()}
    assert status == {1: StepStatus.UNSUPPORTED, 2: StepStatus.FAILED, 3: StepStatus.FAILED, 4: StepStatus.ERROR,
                      5: StepStatus.FAILED, 6: StepStatus.FAILED, 7: StepStatus.ERROR, 8: StepStatus.UNSUPPORTED}
    assert passed(outcomes[1]) and passed(outcomes[8])
    assert outcomes[1].details["axioms"] == {"classical": ["Classical.choice"]}
    assert outcomes[1].details["lean_version"].startswith("Lean (version 4.0.0-fake")
    assert "sorryAx" in outcomes[2].message
    assert outcomes[3].message == "line 1: unknown identifier 'nope'"  # header lines subtracted
    assert "builds on step 3" in outcomes[4].message
    assert "incomplete" in outcomes[5].message and outcomes[5].message.startswith("line 2")
    assert "Lean.ofReduceBool" in outcomes[6].message  # `given` alone would pass: x_is_3 is a Context axiom
    assert "resources" in outcomes[7].message


@needs_sandbox
def test_context_failure_and_wall_clock_timeout(fake_toolchain):
    settings = LeanSettings(lean=str(fake_toolchain / "bin" / "lean"), min_wall_s=2)
    outcomes = LeanChecker(settings).check_chain([step(1, "theorem t : True := trivial")],
                                                 context="-- FAKE_ERROR", level=ProofLevel.FORMAL, limits=LIMITS)
    assert outcomes[1].status is StepStatus.ERROR and outcomes[1].message.startswith("the Context does not compile")
    outcomes = LeanChecker(settings).check_chain([step(1, "-- FAKE_HANG")], context="", level=ProofLevel.FORMAL,
                                                 limits=CheckLimits(timeout_s=2))
    assert outcomes[1].status is StepStatus.ERROR and outcomes[1].message.startswith("timeout")


# ---------------------------------------------------------------------------------- real Lean runs


@needs_lean
@needs_sandbox
def test_real_lean_chain():
    chain = [
        step(1, "theorem one_add_one : 1 + 1 = 2 := rfl"),
        step(2, "theorem uses_step_one : 1 + 1 = 2 ∧ True := ⟨one_add_one, trivial⟩", (1,)),
        step(3, "theorem wrong : 1 + 1 = 3 := by decide", (1,)),
        step(4, "theorem em' (p : Prop) : p ∨ ¬p := Classical.em p"),
        step(5, "theorem later : True := by\n  have := wrong\n  trivial", (1, 3)),
    ]
    outcomes = LeanChecker(LeanSettings()).check_chain(chain, context="", level=ProofLevel.FORMAL,
                                                       limits=CheckLimits(timeout_s=60))
    assert passed(outcomes[1]), outcomes[1]
    assert passed(outcomes[2]), outcomes[2]
    assert outcomes[3].status is StepStatus.FAILED and outcomes[3].message.startswith("line 1")
    assert passed(outcomes[4]) and "Classical.choice" in outcomes[4].details["axioms"]["em'"]
    assert outcomes[5].status is StepStatus.ERROR


@needs_lean
@needs_sandbox
def test_real_lean_context_axioms_and_sorry_from_a_dependency():
    context = "axiom x : Nat\naxiom hx : x = 3"
    chain = [step(1, "theorem x_plus : x + 1 = 4 := by rw [hx]")]
    outcomes = LeanChecker(LeanSettings()).check_chain(chain, context=context, level=ProofLevel.FORMAL,
                                                       limits=CheckLimits(timeout_s=60))
    assert passed(outcomes[1]), outcomes[1]
    assert set(outcomes[1].details["axioms"]["x_plus"]) <= {"hx", "propext", "Quot.sound", "Classical.choice", "x"}


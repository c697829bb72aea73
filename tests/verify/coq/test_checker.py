"""The Coq chain checker: lexing and the anti-gaming rules, reading printed statements, alignment, the
framed outputs, and real sandboxed coqc runs of the good/bad suite in both compile modes."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reasonforge import VerifyRequest, verify_chain
from reasonforge.registry import checkers
from reasonforge.types import ArtifactLanguage, ChainStep, CheckLimits, Overall, StepStatus
from reasonforge.verify import coq as coq_checker
from reasonforge.verify.coq.align import align
from reasonforge.verify.coq.audit import definition_body, marked_sections, parse_assumptions, printed_type
from reasonforge.verify.coq.claims import step_claims
from reasonforge.verify.coq.diag import file_runs, first_error
from reasonforge.verify.coq.lex import CoqLexError, sentences, tokenize
from reasonforge.verify.coq.policy import inspect_artifact
from reasonforge.verify.coq.terms import Unsupported, statement_of

SUITE = json.loads((Path(__file__).parent / "data" / "suite.json").read_text())
EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
REASON = coq_checker.unavailable_reason()
needs_coq = pytest.mark.skipif(REASON is not None, reason=f"Coq checks need coqc and the sandbox: {REASON}")
MODES = ("warm", "per-file")
Z = "From Coq Require Import ZArith Lia.\nOpen Scope Z_scope.\n"
STDLIB = frozenset({"Coq.ZArith.ZArith", "Coq.micromega.Lia", "Coq.Logic.Classical", "Coq.QArith.QArith",
                    "Coq.extraction.Extraction"})


def chain(mode, steps, context="", timeout_s=20.0):
    return coq_checker.check_coq_chain(steps, context=context, mode=mode, limits=CheckLimits(timeout_s=timeout_s))


def step(sid, content, artifact, ancestors=()):
    return ChainStep(step_id=sid, content=content, artifact=artifact, dependencies=list(ancestors)[-1:],
                     ancestors=list(ancestors))


# ------------------------------------------------------------------------------------------- lexer
def test_comments_nest_and_hide_strings_that_look_like_closers():
    toks = tokenize('(* outer (* inner *) "*)" still *) Theorem t : True.')
    assert [t.text for t in toks] == ["Theorem", "t", ":", "True", "."]
    assert toks[0].line == 1


def test_sentences_end_at_a_dot_before_a_blank_only():
    sents = sentences("Check Z.add.\nCheck 1.5.\nProof. lia. Qed.")
    assert [s.idents() for s in sents] == [["Check", "Z.add"], ["Check"], ["Proof"], ["lia"], ["Qed"]]


@pytest.mark.parametrize(("text", "line"), [("Theorem t.\n(* open", 2), ('idtac "never\nclosed.', 1)])
def test_unterminated_comment_or_string_is_refused_with_its_line(text, line):
    with pytest.raises(CoqLexError) as info:
        tokenize(text)
    assert info.value.line == line


# ------------------------------------------------------------------------------------------- rules
def facts(text, **kw):
    return inspect_artifact(text, stdlib=STDLIB, **kw)


def test_forbidden_words_in_comments_and_strings_are_ignored():
    f = facts('(* Admitted. Axiom x : False. *)\nTheorem t : True.\nProof. idtac "admit". exact I. Qed.\n')
    assert f.violations == [] and f.theorems == ["t"]


@pytest.mark.parametrize(("text", "fragment"), [
    ("Theorem t : False.\nProof. admit. Qed.", "admit"),
    ("Theorem t : False.\nAdmitted.", "Admitted"),
    ("Axiom a : False.", "Axiom"),
    ("Local Parameter p : nat.", "Parameter"),
    ("Section S. Context (n : nat). End S.", "Context"),
    ("Require Import Foo.", "Require"),
    ("From RF Require Import Step2.", "Require"),
    ("From Coq Require Import Extraction.", "Require"),
    ("Load foo.", "Load"),
    ("Declare ML Module \"x\".", "Declare"),
    ("Add LoadPath \"/tmp\" as X.", "load path"),
    ("Notation \"'two'\" := 3.", "notations"),
    ("Number Notation nat Nat.of_num_uint Nat.to_num_uint : nat_scope.", "notations"),
    ("Unset Guard Checking.", "kernel checks"),
    ("#[bypass_check(positivity)] Inductive T := c : (T -> False) -> T.", "bypass_check"),
    ("Module M. End M.", "modules"),
    ("Export Set Implicit Arguments.", "Export Set"),
    ("#[global] Set Implicit Arguments.", "global"),
    ("Timeout 5 Theorem t : True.", "Timeout"),
    ("Set Default Timeout 100.", "Default Timeout"),
    ("Reset Initial.", "Reset"),
    ("End Step3.", "does not close a section"),
    ("Section S.", "never closed"),
    ("Redirect \"out\" Print nat.", "Redirect"),
    ("Theorem t : 2 + 2 = 4.\nProof. native_compute. reflexivity. Qed.", "vm_compute"),
])
def test_each_rule_is_enforced_with_a_fix_in_the_message(text, fragment):
    f = facts(text)
    assert f.violations, text
    assert any(fragment in v.message for v in f.violations), [v.message for v in f.violations]


def test_odd_spacing_does_not_smuggle_a_keyword_it_only_makes_other_tokens():
    # Coq reads `Adm(* *)itted` as two identifiers, so it is no `Admitted` (and fails to compile).
    assert facts("Theorem t : True.\nProof. Adm(* *)itted.").violations == []
    assert facts("Theorem t : True.\nProof.\n  - admit.").violations  # after a bullet still found


def test_context_may_declare_givens_but_not_local_variables_at_top_level():
    assert facts("Parameter n : nat.\nAxiom h : n = 2.", allow_assumptions=True).violations == []
    bad = facts("Variable n : nat.", allow_assumptions=True)
    assert "Parameter" in bad.violations[0].message
    assert facts("Section S. Variable n : nat. End S.", allow_assumptions=True).violations == []


def test_require_resolves_to_standard_library_modules_only():
    f = facts("From Coq Require Import ZArith Lia.\nRequire Import Coq.Logic.Classical.")
    assert f.violations == [] and f.requires == ["Coq.ZArith.ZArith", "Coq.micromega.Lia", "Coq.Logic.Classical"]


def test_names_found_for_theorems_definitions_and_shadowing():
    f = facts("Definition a := 1.\nLemma l : True. Proof. exact I. Qed.\n#[local] Theorem t : True. Proof. exact I. Qed.\n"
              "Inductive color := red | green.")
    assert f.theorems == ["l", "t"] and f.definitions == ["a"]
    assert {"a", "l", "t", "color", "red", "green"} <= set(f.declared)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("()*\".  \nAdmitedxyzQ{}-+#[]:=|")), max_size=80))
def test_no_text_crashes_the_rules(text):
    try:
        inspect_artifact(text, stdlib=STDLIB)
    except CoqLexError:
        pass


# ------------------------------------------------------------------------------------ statements
@pytest.mark.parametrize(("printed", "hyps", "concl"), [
    (("@eq BinNums.Z (BinInt.Z.add (BinNums.Zpos (BinNums.xO BinNums.xH)) (BinNums.Zpos (BinNums.xO BinNums.xH))) "
      "(BinNums.Zpos (BinNums.xO (BinNums.xO BinNums.xH)))"), [], ["2 + 2 = 4"]),
    (("forall (k : BinNums.Z) (_ : @eq BinNums.Z Context.n (BinInt.Z.mul (BinNums.Zpos (BinNums.xO BinNums.xH)) k)), "
      "BinInt.Z.divide (BinNums.Zpos (BinNums.xO (BinNums.xO BinNums.xH))) (BinInt.Z.pow Context.n "
      "(BinNums.Zpos (BinNums.xO BinNums.xH)))"), ["n = 2 * k"], ["4 divides n ^ 2"]),
    ("@ex BinNums.Z (fun k : BinNums.Z => @eq BinNums.Z Context.n (BinInt.Z.mul (BinNums.Zpos (BinNums.xO BinNums.xH)) k))",
     [], ["n = 2 * k"]),
    ("and (@eq nat (Init.Nat.sub (S (S (S O))) (S O)) (S (S O))) (Nat.Even (S (S O)))", [], ["3 - 1 = 2", "2 is even"]),
    (("Qeq (Qdiv (Qmake (Zpos (xO (xO (xO (xO (xI xH)))))) xH) (Qmake (Zpos (xO xH)) xH)) "
      "(Qmake (Zpos (xO (xO (xO (xI xH))))) xH)"), [], ["48 / 2 = 24"]),
    ("Rlt (IZR (Zpos (xI xH))) (IZR (Zpos (xI (xO xH))))", [], ["3 < 5"]),
])
def test_printed_statements_are_read(printed, hyps, concl):
    st_ = statement_of(printed)
    assert [str(h) for h in st_.hypotheses] == hyps
    assert [str(c) for c in st_.conclusions] == concl


@pytest.mark.parametrize("printed", ["forall f : forall _ : nat, nat, @eq nat (f O) (f O)",
                                     "match x with | O => True | S _ => False end", "@eq nat (Step3.f O) O"])
def test_unread_statements_say_so(printed):
    with pytest.raises(Unsupported):
        statement_of(printed)


def test_a_workspace_name_never_passes_for_a_standard_one():
    # A step defining its own `Zpos` prints as Step2.Zpos: it is a symbol, never the constructor.
    st_ = statement_of("@eq BinNums.Z (Step2.Zpos) (BinNums.Zpos BinNums.xH)")
    assert str(st_.conclusions[0]) == "Zpos = 1"


# ------------------------------------------------------------------------------------- alignment
def test_alignment_cases():
    claims = step_claims("So z² = 9 + 16 = 25")
    z2 = "@eq BinNums.Z (BinInt.Z.pow Context.z (BinNums.Zpos (BinNums.xO BinNums.xH))) (BinNums.Zpos (BinNums.xI (BinNums.xO (BinNums.xO (BinNums.xI BinNums.xH)))))"
    assert align(claims.claims, claims.texts, {"t": z2}, [], {}).status == "aligned"
    wrong = step_claims("So z² = 9 + 16 = 26")
    result = align(wrong.claims, wrong.texts, {"t": z2}, [], {})
    assert result.status == "misaligned" and "but the step claims 9 + 16 = 26" in result.message
    assert align([], [], {"t": z2}, [], {}).status == "skipped"
    assert align(claims.claims, claims.texts, {"t": "@eq nat (Step1.f O) O"}, [], {}).status == "unread"


def test_a_theorem_may_assume_only_givens_ancestor_claims_or_the_steps_own_conditions():
    premise = "forall (_ : @eq BinNums.Z Context.x (BinNums.Zpos (BinNums.xI BinNums.xH))), @eq BinNums.Z (BinInt.Z.add Context.x (BinNums.Zpos BinNums.xH)) (BinNums.Zpos (BinNums.xO (BinNums.xO BinNums.xH)))"
    own = step_claims("If x = 3 then x + 1 = 4")
    assert align(own.claims, own.texts, {"t": premise}, [], {}, own.premises).status == "aligned"
    bare = step_claims("So x + 1 = 4")
    result = align(bare.claims, bare.texts, {"t": premise}, [], {})
    assert result.status == "misaligned" and "assumes x = 3" in result.message
    # A condition the known bindings make false is not an allowed assumption (it would be vacuous).
    assert align(own.claims, own.texts, {"t": premise}, [], {"x": 5}, own.premises).status == "misaligned"


# ---------------------------------------------------------------------------------- framed output
def test_only_markers_with_this_runs_nonce_count():
    out = ("@@RF abc begin Step1\nok\n@@RF abc end Step1 0 12\n@@RF forged end Step2 0\n"
           "@@RF abc begin Step2\nFile \"./Step2.v\", line 3, characters 4-9:\nError: boom\n@@RF abc end Step2 1\n")
    runs = file_runs(out, "abc")
    assert runs["Step1"].rc == 0 and runs["Step1"].elapsed_ms == 12
    assert runs["Step2"].rc == 1
    err = first_error(runs["Step2"].output)
    assert (err.line, err.column, err.message) == (3, 5, "boom")
    assert [t for t, _ in marked_sections("@@RF n x\nbody\n@@RF m y\n@@RF n z\n", "n")] == ["x", "z"]


def test_audit_outputs_are_read_and_unknown_ones_fail_closed():
    assert parse_assumptions("Closed under the global context").closed
    a = parse_assumptions("Axioms:\nContext.h : Context.n = 2\nClassical_Prop.classic\n  : forall P : Prop, P \\/ ~ P")
    assert a.axioms == ["Context.h", "Classical_Prop.classic"] and a.other == []
    assert parse_assumptions("Fixpoint f relies on an unsafe fixpoint.").other
    assert printed_type("Step1.t\n     : @eq nat O O") == "@eq nat O O"
    assert definition_body("Context.x = BinNums.Zpos BinNums.xH\n     : BinNums.Z") == "BinNums.Zpos BinNums.xH"


# ------------------------------------------------------------------------------ real coqc: suite
@functools.cache
def suite_outcomes(mode, kind):
    cases = SUITE[kind]
    steps = [step(i + 1, c["content"], c["artifact"]) for i, c in enumerate(cases)]
    out = chain(mode, steps)
    return {c["id"]: out[i + 1] for i, c in enumerate(cases)}


def test_the_suites_are_big_enough():
    assert len(SUITE["good"]) >= 20 and len(SUITE["bad"]) >= 20


@needs_coq
@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
def test_good_suite_is_verified(mode):
    outcomes = suite_outcomes(mode, "good")
    wrong = {k: (o.status.value, o.message) for k, o in outcomes.items() if o.status is not StepStatus.VERIFIED}
    assert not wrong
    classic = outcomes["classic"].details["assumptions"]
    assert classic == ["Classical_Prop.classic"]
    assert outcomes["z-add"].details["assumptions"] == "closed under the global context"
    assert outcomes["z-add"].details["alignment"]["status"] == "aligned"
    assert outcomes["classic"].details["alignment"]["status"] == "skipped"


@needs_coq
@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", SUITE["bad"], ids=[c["id"] for c in SUITE["bad"]])
def test_bad_suite_gets_the_right_status(mode, case):
    outcome = suite_outcomes(mode, "bad")[case["id"]]
    assert outcome.status.value == case["status"], outcome.message
    assert case["message"] in (outcome.message or "")


@needs_coq
@pytest.mark.slow
@pytest.mark.parametrize("kind", ["good", "bad"])
def test_warm_and_per_file_reach_the_same_verdicts_and_messages(kind):
    warm, cold = suite_outcomes("warm", kind), suite_outcomes("per-file", kind)
    assert {k: (o.status, o.message) for k, o in warm.items()} == {k: (o.status, o.message) for k, o in cold.items()}


# ------------------------------------------------------------------------- real coqc: chains
PYTH_CONTEXT = (Z + "Definition x : Z := 3.\nDefinition y : Z := 4.\nParameter z : Z.\nAxiom z_nonneg : 0 <= z.\n"
                "Axiom pythagoras : x ^ 2 + y ^ 2 = z ^ 2.\n")


@needs_coq
@pytest.mark.parametrize("mode", MODES)
def test_error_lines_are_those_of_the_artifact_and_dependants_of_a_broken_step_are_errors(mode):
    steps = [
        step(1, "So z² = 25", Z + "Theorem s1 : z ^ 2 = 25.\nProof.\n  rewrite <- pythagoras.\n  unfold x, y.\n  lia.\n  reflexivity.\nQed.\n"),
        step(2, "Therefore z = 5", Z + "Theorem s2 : z = 5.\nProof. pose proof s1. pose proof z_nonneg. nia. Qed.\n", [1]),
        step(3, "So z² = 25", Z + "Theorem s3 : z ^ 2 = 25.\nProof. rewrite <- pythagoras. reflexivity. Qed.\n"),
    ]
    out = chain(mode, steps, PYTH_CONTEXT)
    assert out[1].status is StepStatus.FAILED
    assert out[1].details["error_line"] == 8 and out[1].message.startswith("line 8, column 3: ")
    assert out[2].status is StepStatus.ERROR and "depends on step 1, which failed" in out[2].message
    assert out[3].status is StepStatus.VERIFIED
    assert set(out[3].details["assumptions"]) == {"Context.z", "Context.pythagoras"}


@needs_coq
@pytest.mark.parametrize("mode", MODES)
def test_a_misaligned_ancestor_still_compiles_its_dependants(mode):
    steps = [step(1, "So z² = 26", Z + "Theorem s1 : z ^ 2 = 25.\nProof. rewrite <- pythagoras. reflexivity. Qed.\n"),
             step(2, "Therefore z = 5", Z + "Theorem s2 : z = 5.\nProof. pose proof s1. pose proof z_nonneg. nia. Qed.\n", [1])]
    out = chain(mode, steps, PYTH_CONTEXT)
    assert out[1].status is StepStatus.FAILED and "but the step claims z^2 = 26" in out[1].message
    assert out[2].status is StepStatus.VERIFIED


@needs_coq
@pytest.mark.parametrize("mode", MODES)
def test_contradictory_givens_fail_the_steps_that_use_them(mode):
    context = Z + "Parameter n : Z.\nAxiom h1 : n = 1.\nAxiom h2 : n = 2.\n"
    steps = [step(1, "So 1 = 2", Z + "Theorem s : 1 = 2.\nProof. rewrite <- h1 at 1. rewrite <- h2. reflexivity. Qed.\n"),
             step(2, "So 2 + 2 = 4", Z + "Theorem u : 2 + 2 = 4.\nProof. reflexivity. Qed.\n")]
    out = chain(mode, steps, context)
    assert out[1].status is StepStatus.FAILED and "givens are contradictory" in out[1].message
    assert out[2].status is StepStatus.VERIFIED


@needs_coq
@pytest.mark.parametrize("mode", MODES)
def test_context_problems_are_errors_on_every_step(mode):
    broken = chain(mode, [step(1, "", Z + "Theorem t : True. Proof. exact I. Qed.\n")], Z + "Parameter n : Z.\nAxiom h : n = true.\n")
    assert broken[1].status is StepStatus.ERROR and broken[1].message.startswith("the Context (step 0) does not compile: line 4")
    shadow = chain(mode, [step(1, "", Z + "Definition x : Z := 5.\nTheorem t : x = 5. Proof. reflexivity. Qed.\n")],
                   PYTH_CONTEXT)
    assert shadow[1].status is StepStatus.FAILED and "already declared by the Context" in shadow[1].message


@needs_coq
@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
def test_runaway_steps_are_timeout_errors_and_the_others_still_verify(mode):
    spin = "Ltac spin := idtac; spin.\nTheorem t : True.\nProof. spin. exact I. Qed.\n"
    compute = Z + "Theorem u : Z.iter 100000000 (fun v => v + 1) 0 = 100000000.\nProof. vm_compute. reflexivity. Qed.\n"
    ok = Z + "Theorem w : 1 + 1 = 2.\nProof. reflexivity. Qed.\n"
    out = chain(mode, [step(1, "", spin), step(2, "", compute), step(3, "1 + 1 = 2", ok)], timeout_s=3)
    for sid in (1, 2):
        assert out[sid].status is StepStatus.ERROR and "limit" in out[sid].message, out[sid].message
    assert out[3].status is StepStatus.VERIFIED


@needs_coq
@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
def test_a_chatty_artifact_cannot_crowd_out_the_other_steps_results(mode):
    chatty = "From Coq Require Import ZArith.\n" + "Search Z.\n" * 12 + "Theorem t : True.\nProof. exact I. Qed.\n"
    ok = Z + "Theorem w : 1 + 1 = 2.\nProof. reflexivity. Qed.\n"
    out = chain(mode, [step(1, "", chatty), step(2, "1 + 1 = 2", ok)])
    assert out[1].status is StepStatus.VERIFIED and out[2].status is StepStatus.VERIFIED


@needs_coq
@pytest.mark.slow
def test_hostile_inputs_end_with_a_status_never_a_crash():
    weird = ["", "\x00", "Theorem", "(* " * 500 + "*)" * 500, "Theorem t : True.\n" * 300, "é" * 5000,
             "Goal True. Proof. exact I. Qed.", "Check (fun x => x).", "Theorem t : 1 = 1. Proof. reflexivity. Qed"]
    out = chain("warm", [step(i + 1, "", w) for i, w in enumerate(weird)])
    assert set(out) == set(range(1, len(weird) + 1))
    assert all(o.status in (StepStatus.FAILED, StepStatus.UNSUPPORTED, StepStatus.ERROR) for o in out.values())


def test_missing_coqc_and_missing_sandbox_are_errors_with_the_reason(monkeypatch):
    out = coq_checker.CoqChecker(coqc="/nonexistent/coqc").check_chain(
        [step(1, "", "Theorem t : True. Proof. exact I. Qed.")], context="", level="formal", limits=CheckLimits())
    assert out[1].status is StepStatus.ERROR and "coqc is not installed" in out[1].message
    if REASON is not None:
        return
    from reasonforge.verify import sandbox

    def refuse(*args, **kwargs):
        raise sandbox.SandboxUnavailable("no namespaces here")

    monkeypatch.setattr(sandbox, "run_sandboxed", refuse)
    out = coq_checker.check_coq_chain([step(1, "", "Theorem t : True. Proof. exact I. Qed.")])
    assert out[1].status is StepStatus.ERROR and "sandbox is unavailable" in out[1].message


# ----------------------------------------------------------------------------- through verify_chain
def test_registry_gives_the_chain_checker():
    assert hasattr(checkers.get(ArtifactLanguage.COQ), "check_chain")


@needs_coq
def test_parity_example_with_its_own_translations_verifies():
    request = VerifyRequest.model_validate_json((EXAMPLES / "parity-coq.json").read_text())
    verdict = verify_chain(request)
    assert verdict.overall is Overall.VERIFIED, [(v.step_id, v.error_message) for v in verdict.step_verdicts]
    assert verdict.step_verdicts[2].details["spec"]["name"] == "coq"


@needs_coq
def test_a_wrong_translation_fails_at_the_checker_and_invalidates_dependants():
    data = json.loads((EXAMPLES / "parity-coq.json").read_text())
    data["translations"][2]["formal_representation"] = data["translations"][2]["formal_representation"].replace(
        "4 * k ^ 2.", "5 * k ^ 2.")
    verdict = verify_chain(VerifyRequest.model_validate(data))
    assert [v.status for v in verdict.step_verdicts] == [StepStatus.VERIFIED, StepStatus.FAILED, StepStatus.INVALIDATED]
    assert verdict.failure_report.failed_step_id == 2

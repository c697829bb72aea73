"""The Coq chain checker: lexing and the anti-gaming rules, reading printed statements, alignment, the
framed outputs, and real sandboxed coqc runs of the good/bad suite in both compile modes."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from reasonforge import VerifyRequest, verify_chain
from reasonforge.registry import checkers
from reasonforge.types import (
    ArtifactLanguage,
    ChainStep,
    CheckLimits,
    Domain,
    ErrorKind,
    EvidenceKind,
    Overall,
    ProofLevel,
    ReasoningStep,
    StepContext,
    StepStatus,
)
from reasonforge.verify import coq as coq_checker
from reasonforge.verify.coq.align import MAX_CLAIMS, MAX_FACTS, Knowledge
from reasonforge.verify.coq.align import align_theorems as align
from reasonforge.verify.coq.audit import definition_body, marked_sections, parse_assumptions, printed_type
from reasonforge.verify.coq.claims import step_claims
from reasonforge.verify.coq.diag import file_runs, first_error
from reasonforge.verify.coq.givens import read_givens
from reasonforge.verify.coq.lex import CoqLexError, sentences, tokenize
from reasonforge.verify.coq.policy import inspect_artifact
from reasonforge.verify.coq.terms import Atom, Unsupported, statement_of

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


def step(sid, content, artifact, ancestors=(), question=None, texts=None):
    """A chain step; with `question`, its context (the question, and the ancestors' texts from `texts`)."""
    context = None
    if question is not None:
        context = StepContext(step_id=sid, content=content, original_query=question, domain=Domain.MATHEMATICS,
                              proof_level=ProofLevel.FORMAL,
                              ancestors=[ReasoningStep(step_id=a, content=(texts or {}).get(a, "")) for a in ancestors])
    return ChainStep(step_id=sid, content=content, artifact=artifact, dependencies=list(ancestors)[-1:],
                     ancestors=list(ancestors), context=context)


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
Z2 = ("@eq BinNums.Z (BinInt.Z.pow Context.z (BinNums.Zpos (BinNums.xO BinNums.xH))) (BinNums.Zpos (BinNums.xI "
      "(BinNums.xO (BinNums.xO (BinNums.xI BinNums.xH)))))")
K9 = "@eq BinNums.Z k (BinNums.Zpos (BinNums.xI (BinNums.xO (BinNums.xO BinNums.xH))))"
TWO = "(BinNums.Zpos (BinNums.xO BinNums.xH))"


def test_alignment_cases():
    claims = step_claims("So z² = 9 + 16 = 25")
    aligned = align(claims, {"t": Z2}, Knowledge())
    assert aligned.status == "aligned" and aligned.statements == {"t": "t : z ^ 2 = 25"}
    assert [by for _, by in aligned.covered] == ["theorem t", "exact arithmetic"]
    wrong = step_claims("So z² = 9 + 16 = 26")
    result = align(wrong, {"t": Z2}, Knowledge())
    assert result.status == "misaligned" and "but the step claims 9 + 16 = 26" in result.message
    assert align(step_claims("We now think about it."), {"t": Z2}, Knowledge()).status == "unreadable"
    assert align(claims, {"t": "@eq nat (Step1.f O) O"}, Knowledge()).status == "unread"


@pytest.mark.timeout(120)  # a hang guard: these texts took minutes when every relation rescanned its sentence
def test_the_readers_stay_linear_on_long_texts_and_keep_their_reading():
    claims = step_claims("Suppose n is even " * 3000 + ". If x = 3 then x + 1 = 4")
    premises = [str(p) for p in claims.premises]
    assert [str(c) for c in claims.claims] == ["x + 1 = 4"] and premises.count("x = 3") == 1
    assert len(premises) == 3001  # each "n is even" is a condition the step assumes
    givens = read_givens("Suppose n is even. " * 3000 + "Prove that if x = 3 then x > 2.")
    assert "x > 2" in givens.goals and sum(t == "n is even" for t in givens.texts) == 3000


def test_a_step_of_too_many_relations_is_unreadable_not_compared_for_minutes():
    many = step_claims(". ".join(f"z + {i} = {i}" for i in range(MAX_CLAIMS + 1)))
    result = align(many, {"t": Z2}, Knowledge())
    assert result.status == "unreadable" and f"at most {MAX_CLAIMS} per step" in result.message
    facts = [(Atom("=", sympy.Symbol(f"y{i}") - i, f"y{i} = {i}"), "a given of the question") for i in range(MAX_FACTS)]
    crowded = align(step_claims("So z² = 25"), {"t": Z2}, Knowledge(facts))
    assert crowded.status == "unreadable" and f"at most {MAX_FACTS}" in crowded.message
    assert align(step_claims("So z² = 25"), {"t": Z2}, Knowledge(facts[:10])).status == "aligned"


def test_a_theorem_may_assume_only_givens_ancestor_claims_or_the_steps_own_conditions():
    premise = "forall (_ : @eq BinNums.Z Context.x (BinNums.Zpos (BinNums.xI BinNums.xH))), @eq BinNums.Z (BinInt.Z.add Context.x (BinNums.Zpos BinNums.xH)) (BinNums.Zpos (BinNums.xO (BinNums.xO BinNums.xH)))"
    own = step_claims("If x = 3 then x + 1 = 4")
    assert align(own, {"t": premise}, Knowledge()).status == "aligned"
    bare = step_claims("So x + 1 = 4")
    result = align(bare, {"t": premise}, Knowledge())
    assert result.status == "misaligned" and "assumes x = 3" in result.message
    # A condition the known bindings make false is not an allowed assumption (it would be vacuous).
    assert align(own, {"t": premise}, Knowledge(bindings={"x": sympy.Integer(5)})).status == "misaligned"


@pytest.mark.parametrize(("printed", "text", "status"), [
    # `exists k, k = 9` is some k, not the k the text speaks of
    (f"@ex BinNums.Z (fun k : BinNums.Z => {K9})", "So k = 9", "misaligned"),
    # ... unless the text introduces k existentially, over a domain the binder fits
    (f"@ex BinNums.Z (fun k : BinNums.Z => {K9})", "So k = 9 for some integer k", "aligned"),
    (f"@ex QArith_base.Q (fun k : QArith_base.Q => {K9})", "So k = 9 for some integer k", "misaligned"),
    # a universal over nat or Z says nothing about a k not known to lie there
    ("forall k : nat, @eq nat (Nat.add k (S O)) (Nat.add (S O) k)", "So k + 1 = 1 + k", "aligned"),
    ("forall k : nat, Peano.le O k", "So k ≥ 0", "misaligned"),
    ("forall k : nat, Peano.le O k", "If k is a natural number then k ≥ 0", "aligned"),
    (f"forall k : BinNums.Z, forall _ : @eq BinNums.Z k {TWO}, {K9}", "So k = 9", "misaligned"),
    # a second binder of the same name is refused rather than read as the first
    (f"forall k : BinNums.Z, forall k : BinNums.Z, {K9}", "So k = 9", "unread"),
])
def test_binders_are_respected(printed, text, status):
    assert align(step_claims(text), {"t": printed}, Knowledge()).status == status


def test_a_known_value_admits_a_binder_only_when_it_lies_in_the_type():
    own = step_claims("So k ≥ 0")
    nat = {"t": "forall k : nat, Peano.le O k"}
    assert align(own, nat, Knowledge(bindings={"k": sympy.Integer(3)})).status == "aligned"
    assert align(own, nat, Knowledge(domains={"k": "natural"})).status == "aligned"
    assert align(own, nat, Knowledge(domains={"k": "rational"})).status == "misaligned"
    # an integer known to be nonnegative is a natural number
    nonneg = Atom("<=", -sympy.Symbol("k"))
    square = {"t": "forall k : nat, Peano.le O (Nat.mul k k)"}
    result = align(step_claims("So k * k ≥ 0"), square, Knowledge(facts=[(nonneg, "a given")], domains={"k": "integer"}))
    assert result.status == "aligned" and result.covered == [("k*k >= 0", "theorem t")]
    assert align(step_claims("So k * k ≥ 0"), square, Knowledge(domains={"k": "integer"})).status == "misaligned"


def test_an_ancestors_witness_is_the_texts_name():
    # Step 1 said "n = 2k for some integer k": step 2's k is that witness, and its fact may be assumed.
    own = step_claims("Then n² = 4k².")
    hyp = f"forall (k : BinNums.Z) (_ : @eq BinNums.Z Context.n (BinInt.Z.mul {TWO} k)), "
    concl = (f"@eq BinNums.Z (BinInt.Z.pow Context.n {TWO}) (BinInt.Z.mul (BinNums.Zpos (BinNums.xO (BinNums.xO "
             f"BinNums.xH))) (BinInt.Z.pow k {TWO}))")
    fact = Atom("=", sympy.Symbol("n") - 2 * sympy.Symbol("k@1"))
    known = Knowledge(facts=[(fact, "step 1")], domains={"k@1": "integer"})
    assert align(own, {"t": hyp + concl}, known, {"k": "k@1"}).status == "aligned"
    assert align(own, {"t": hyp + concl}, Knowledge(domains={"k@1": "integer"}), {"k": "k@1"}).status == "misaligned"


def test_claims_the_reader_cannot_compare_leave_the_step_unreadable():
    for text in ("So x ≈ 3.14", "It is not true that 3 + 3 = 6", "Every proposition is true or false."):
        assert align(step_claims(text), {"t": Z2}, Knowledge()).status == "unreadable", text


def test_the_questions_givens_exclude_what_it_asks():
    parity = read_givens("Prove that if n is an even integer, then n² is divisible by 4.")
    assert parity.texts == ["n is even"] and parity.domains == {"n": "integer"}
    asked = read_givens("Prove that x = 9 given that x = 2.")
    assert asked.texts == ["x = 2"] and asked.goals == ["x = 9"]
    assert read_givens("Show that 2 + 2 = 5.").texts == []
    assert read_givens("Prove that n is even.").texts == []
    assert read_givens("What is x if 2x = 6?").texts == ["2*x = 6"]


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
    assert outcomes["z-add"].details["assumptions"] == "closed under the global context"
    assert outcomes["z-add"].details["alignment"]["status"] == "aligned"
    evidence = outcomes["z-add"].evidence
    assert evidence.kind == "theorem" and evidence.formaliser == "artifact"
    assert evidence.aligned_claim == outcomes["z-add"].evidence.aligned_claim == "t : 2 + 2 = 4"
    assert outcomes["existential-witness"].evidence.aligned_claim == "t : exists (k : Z), 6 = 2 * k"


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
PYTH_QUESTION = "Let x = 3 and y = 4. z is a nonnegative integer with x² + y² = z². Find z."


def pyth(sid, content, artifact, ancestors=()):
    return step(sid, content, artifact, ancestors, question=PYTH_QUESTION)


@needs_coq
@pytest.mark.parametrize("mode", MODES)
def test_error_lines_are_those_of_the_artifact_and_dependants_of_a_broken_step_are_errors(mode):
    steps = [
        pyth(1, "So z² = 25", Z + "Theorem s1 : z ^ 2 = 25.\nProof.\n  rewrite <- pythagoras.\n  unfold x, y.\n  lia.\n  reflexivity.\nQed.\n"),
        pyth(2, "Therefore z = 5", Z + "Theorem s2 : z = 5.\nProof. pose proof s1. pose proof z_nonneg. nia. Qed.\n", [1]),
        pyth(3, "So z² = 25", Z + "Theorem s3 : z ^ 2 = 25.\nProof. rewrite <- pythagoras. reflexivity. Qed.\n"),
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
    steps = [pyth(1, "So z² = 26", Z + "Theorem s1 : z ^ 2 = 25.\nProof. rewrite <- pythagoras. reflexivity. Qed.\n"),
             pyth(2, "Therefore z = 5", Z + "Theorem s2 : z = 5.\nProof. pose proof s1. pose proof z_nonneg. nia. Qed.\n", [1])]
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
    chatty = "From Coq Require Import ZArith.\n" + "Search Z.\n" * 12 + "Theorem t : 1 + 1 = 2.\nProof. reflexivity. Qed.\n"
    ok = Z + "Theorem w : 1 + 1 = 2.\nProof. reflexivity. Qed.\n"
    out = chain(mode, [step(1, "1 + 1 = 2", chatty), step(2, "1 + 1 = 2", ok)])
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
    assert verdict.step_verdicts[2].checker_spec.name == "coq"


@needs_coq
def test_a_wrong_translation_that_does_not_prove_refutes_nothing():
    # the translation of a true step is wrong (5k² for the text's 4k²) and its proof fails: the artifact proves
    # nothing, and the step, whose own arithmetic is not false, is unsupported, not refuted
    data = json.loads((EXAMPLES / "parity-coq.json").read_text())
    data["translations"][2]["formal_representation"] = data["translations"][2]["formal_representation"].replace(
        "4 * k ^ 2.", "5 * k ^ 2.")
    verdict = verify_chain(VerifyRequest.model_validate(data))
    assert verdict.step_verdicts[1].status is StepStatus.UNSUPPORTED
    assert "proves nothing, not that the step is false" in verdict.step_verdicts[1].error_message
    assert StepStatus.FAILED not in {v.status for v in verdict.step_verdicts}


# ----------------------------------------------------------------- real coqc: the Context is the givens
@needs_coq
@pytest.mark.parametrize("mode", MODES)
def test_context_hypotheses_must_be_givens_of_the_question(mode):
    proof = Z + "Theorem s : z = 5.\nProof. pose proof pythagoras. pose proof z_nonneg. unfold x, y in *. nia. Qed.\n"
    given = chain(mode, [pyth(1, "Therefore z = 5", proof)], PYTH_CONTEXT)
    assert given[1].status is StepStatus.VERIFIED, given[1].message
    assert given[1].evidence.aligned_claim == "s : z = 5"
    # The same Context under a question that gives only the triangle: the Pythagorean relation for its legs is a
    # given, `z : Z` (the hypotenuse an integer) is not, and is named.
    bare = chain(mode, [step(1, "Therefore z = 5", proof, question="Find the hypotenuse of a right triangle with legs "
                             "3 and 4.")], PYTH_CONTEXT)
    assert bare[1].status is StepStatus.UNSUPPORTED and bare[1].error_kind == ErrorKind.UNGROUNDED_PREMISE
    assert "`pythagoras`" not in bare[1].message and "`z : Z` assumes z is an integer" in bare[1].message
    # Under a question without the triangle, the relation is named too.
    none = chain(mode, [step(1, "Therefore z = 5", proof, question="Find z.")], PYTH_CONTEXT)
    assert none[1].status is StepStatus.UNSUPPORTED and "`pythagoras` states" in none[1].message


@needs_coq
@pytest.mark.parametrize("mode", MODES)
def test_the_probe_instantiates_quantified_givens(mode):
    context = "Axiom bad : forall n : nat, n = 1.\n"
    out = chain(mode, [step(1, "So 2 + 2 = 5", "Theorem t : 2 + 2 = 5.\nProof. rewrite (bad (2 + 2)), (bad 5). "
                            "reflexivity. Qed.\n", question="Compute 2 + 2.")], context)
    assert out[1].status is StepStatus.FAILED and "givens are contradictory" in out[1].message


@needs_coq
@pytest.mark.parametrize("mode", MODES)
def test_a_definition_counts_only_as_a_given_or_a_binding_a_step_makes(mode):
    context = Z + "Definition z : Z := 5.\n"
    theorem = Z + "Theorem t : z = 5.\nProof. reflexivity. Qed.\n"
    question = "Find the hypotenuse of a right triangle with legs 3 and 4."
    fiat = chain(mode, [step(1, "Therefore z = 5", theorem, question=question)], context)
    assert fiat[1].status is StepStatus.UNSUPPORTED and "the Context defines z := 5" in fiat[1].message
    bound = chain(mode, [step(1, "Let z = 5", theorem, question=question),
                         step(2, "So z + 1 = 6", Z + "Theorem u : z + 1 = 6.\nProof. reflexivity. Qed.\n", [1],
                              question=question, texts={1: "Let z = 5"})], context)
    assert [bound[1].status, bound[2].status] == [StepStatus.VERIFIED, StepStatus.VERIFIED], (bound[1].message,
                                                                                             bound[2].message)


@needs_coq
def test_a_step_s_own_definition_may_not_make_its_claim_true():
    rebind = chain("warm", [step(1, "So k = 9", Z + "Definition k : Z := 9.\nTheorem t : k = 9.\nProof. reflexivity. "
                                 "Qed.\n", question="Let k = 2. What is k + 7?")])
    assert rebind[1].status is StepStatus.FAILED and rebind[1].error_kind == ErrorKind.UNGROUNDED_PREMISE
    honest = chain("warm", [step(1, "Let a = 21. Then 2a = 42.", Z + "Definition a : Z := 21.\nTheorem t : a = 21 /\\ "
                                 "2 * a = 42.\nProof. split; reflexivity. Qed.\n", question="Double 21.")])
    assert honest[1].status is StepStatus.VERIFIED, honest[1].message


# ------------------------------------------------------------------ the soundness gate for proofs
def test_the_gate_accepts_only_theorem_evidence_from_an_aligned_step():
    from reasonforge.pipeline.gate import gate
    from reasonforge.types import CheckOutcome, Evidence, StepTranslation

    ctx = StepContext(step_id=1, content="2 + 2 = 4", domain=Domain.MATHEMATICS, proof_level=ProofLevel.FORMAL)
    tr = StepTranslation(step_id=1, language=ArtifactLanguage.COQ, formal_representation="")
    evidence = Evidence(kind="theorem", aligned_claim="t : 2 + 2 = 4", formaliser="artifact")
    good = CheckOutcome(status=StepStatus.VERIFIED, evidence=evidence, details={"alignment": {"status": "aligned"}})
    assert gate(ctx, tr, good, CheckLimits()).status is StepStatus.VERIFIED
    forged = [
        good.model_copy(update={"evidence": evidence.model_copy(update={"kind": EvidenceKind.RELATIONS})}),
        good.model_copy(update={"evidence": evidence.model_copy(update={"aligned_claim": " "})}),
        good.model_copy(update={"details": {"alignment": {"status": "skipped"}}}),
        good.model_copy(update={"evidence": None}),
    ]
    for outcome in forged:
        out = gate(ctx, tr, outcome, CheckLimits())
        assert out.status is StepStatus.UNSUPPORTED and out.error_kind == ErrorKind.NO_EVIDENCE, outcome


def test_no_probe_result_is_no_evidence_of_consistent_givens():
    from reasonforge.verify.coq.checker import _Step
    from reasonforge.verify.coq.givens import Givens
    from reasonforge.verify.coq.judge import Judge
    from reasonforge.verify.coq.policy import ArtifactFacts

    work = _Step(step(1, "So x = 3", ""), facts=ArtifactFacts(theorems=["t"]))
    audit = {"Step1": {"assumptions": "Axioms:\nContext.h : Context.x = 3", "check t": "Step1.t\n     : @eq nat O O"},
             "Context": {}}
    judge = Judge(Givens(), {}, {1: step_claims("So x = 3")}, {1: []}, {1: set()})
    out = coq_checker.CoqChecker()._audit_step(work, 1, audit, set(), None, judge)
    assert out.status is StepStatus.ERROR and "consistency probe" in out.message


# ----------------------------------------------------------------- the maths domain's reading holds at formal
JANET = ("Janet’s ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes muffins for her "
         "friends every day with four. She sells the remainder at the farmers' market daily for $2 per fresh duck "
         "egg. How much in dollars does she make every day at the farmers' market?")


def gated(content, query="", *, conclusion=None, answer="", final=False, ancestors=()):
    """The gate's verdict on a Coq outcome the judge verified with aligned THEOREM evidence for `content`."""
    from reasonforge.pipeline.gate import gate
    from reasonforge.types import CheckOutcome, Evidence, StepTranslation

    ctx = StepContext(step_id=len(ancestors) + 1, content=content, claimed_conclusion=conclusion, original_query=query,
                      domain=Domain.MATHEMATICS, proof_level=ProofLevel.FORMAL, claimed_answer=answer, final=final,
                      ancestors=[ReasoningStep(step_id=i, content=a) for i, a in enumerate(ancestors, 1)])
    tr = StepTranslation(step_id=ctx.step_id, language=ArtifactLanguage.COQ, formal_representation="")
    evidence = Evidence(kind="theorem", aligned_claim="t : the step's relations", formaliser="artifact")
    verified = CheckOutcome(status=StepStatus.VERIFIED, evidence=evidence, details={"alignment": {"status": "aligned"}})
    return gate(ctx, tr, verified, CheckLimits())


def test_a_theorem_proves_relations_not_the_prose_around_them():
    for content, query, words in (("She sells 9 eggs, since 16 - 3 - 4 = 9.", "", "She sells eggs"),
                                  ("x is prime, as 2 + 2 = 4.", "Let x = 4.", "prime")):
        out = gated(content, query)
        assert out.status is StepStatus.VERIFIED and out.evidence.kind is EvidenceKind.RELATIONS, content
        assert words in out.evidence.note
    # what the Coq reader compares is no prose: parity, divisibility, domains, existential binders, citations
    for content in ("Since n is even, we can write n = 2k for some integer k.", "So n² is divisible by 4.",
                    "By the Pythagorean theorem, x² + y² = z²", "Then n² = (2k)² = 4k²."):
        assert gated(content).evidence.kind is EvidenceKind.THEOREM, content


def test_every_step_of_a_word_problem_is_relations_at_formal_too():
    out = gated("16 + 3 + 4 = 23", JANET)
    assert out.status is StepStatus.VERIFIED and out.evidence.kind is EvidenceKind.RELATIONS
    assert "word problem" in out.evidence.note
    assert gated("2 + 3 = 5", "What is 2 + 3?").evidence.kind is EvidenceKind.THEOREM


def test_a_number_the_prose_states_beside_a_proven_relation_is_read_or_the_step_unsupported():
    # 20 eggs is no relation's value: a claim no theorem proves, as at quick
    out = gated("She sells 20 eggs, since 16 - 3 - 4 = 9.")
    assert out.status is StepStatus.UNSUPPORTED and "20" in out.message
    assert gated("3 + 3 = 6 is what most think, but really it is seven.").status is StepStatus.UNSUPPORTED


def test_a_claimed_conclusion_the_text_does_not_state_is_unsupported():
    assert gated("Therefore z = 5", conclusion="z = 5").status is StepStatus.VERIFIED
    for conclusion in ("z = 7", "9", "the triangle is obtuse"):
        out = gated("Therefore z = 5", conclusion=conclusion)
        assert out.status is StepStatus.UNSUPPORTED and out.error_kind is ErrorKind.UNALIGNED, conclusion
    assert gated("So n² is divisible by 4.", conclusion="n² is divisible by 4").status is StepStatus.VERIFIED
    assert gated("So 2 + 2 = 4.", conclusion="4").status is StepStatus.VERIFIED


def test_the_claimed_answer_is_compared_at_formal():
    steps = ["Let x = 3 and y = 4", "By Pythagorean theorem, x² + y² = z²", "So z² = 9 + 16 = 25"]
    query = "Find the hypotenuse of a right triangle with legs 3 and 4"
    for answer in ("z = 7", "7", "\\boxed{7}"):
        out = gated("Therefore z = 5", query, answer=answer, final=True, ancestors=steps)
        assert out.status is StepStatus.FAILED and out.error_kind is ErrorKind.ANSWER_MISMATCH, answer
    for answer in ("$7$, not $5$", "\\neg 5", "5 cm", "5 or 7"):
        out = gated("Therefore z = 5", query, answer=answer, final=True, ancestors=steps)
        assert out.status is StepStatus.UNSUPPORTED and out.error_kind is ErrorKind.UNREADABLE_CLAIM, answer
    out = gated("Therefore z = 5", query, answer="z = 5", final=True, ancestors=steps)
    assert out.status is StepStatus.VERIFIED and "claimed answer z = 5" in out.evidence.note
    # a trailing check is not the unknown: Janet's 9 eggs re-derived after her $18
    out = gated("Check: 18 / 2 = 9", JANET, answer="9", final=True, ancestors=["16 - 3 - 4 = 9", "9 * 2 = 18"])
    assert out.status is StepStatus.UNSUPPORTED and "re-derives" in out.message
    # an answer that is a claim must be one of the last step's
    prove = "Prove that if n is an even integer, then n² is divisible by 4."
    assert gated("So n² is divisible by 4.", prove, answer="n² is divisible by 4", final=True).status \
        is StepStatus.VERIFIED
    assert gated("So n² is divisible by 4.", prove, answer="n² is divisible by 8", final=True).status \
        is StepStatus.UNSUPPORTED


@needs_coq
def test_formal_chains_are_held_to_the_reading_end_to_end():
    data = json.loads((EXAMPLES / "pythagoras-formal.json").read_text())
    verdict = verify_chain(VerifyRequest.model_validate(data))
    assert verdict.overall is Overall.VERIFIED, [(v.step_id, v.status, v.error_message) for v in verdict.step_verdicts]
    data["claimed_answer"] = "z = 7"
    last = verify_chain(VerifyRequest.model_validate(data)).step_verdicts[-1]
    assert last.status is StepStatus.FAILED and last.error_kind == ErrorKind.ANSWER_MISMATCH
    janet = VerifyRequest.model_validate({
        "original_query": JANET, "domain": "mathematics", "proof_level": "formal", "prover": "coq",
        "claimed_answer": "46", "reasoning_chain": [{"step_id": 1, "content": "16 + 3 + 4 = 23"},
                                                    {"step_id": 2, "content": "23 * 2 = 46"}]})
    verdict = verify_chain(janet)
    assert verdict.overall is Overall.PARTIAL and [v.evidence.kind for v in verdict.step_verdicts] == ["relations"] * 2


@needs_coq
def test_standalone_lemmas_are_proved_under_the_same_rules_and_audit():
    r = "From Coq Require Import Reals Lra.\nOpen Scope R_scope.\n"
    lemmas = {
        1: r + "Lemma ok : forall a b : R, (a + b) ^ 2 = a ^ 2 + 2 * a * b + b ^ 2.\nProof. intros. idtac \"said\". ring. Qed.\n",
        2: r + "Lemma cheat : forall x : R, x ^ 2 > 100.\nProof. intros. admit. Admitted.\n",
        3: r + "Lemma wrong : forall x : R, x ^ 3 >= x.\nProof. intros. lra. Qed.\n",
    }
    runs = coq_checker.CoqChecker().prove(lemmas, limits=CheckLimits(timeout_s=10.0))
    assert runs[1].proved and "said" in runs[1].output
    assert not runs[2].proved and "admit" in runs[2].message  # the artifact rules, before anything compiles
    assert not runs[3].proved and "line 4" in runs[3].message  # Coq's error, at the artifact's own line
    missing = coq_checker.CoqChecker(coqc="/nonexistent/coqc").prove({1: lemmas[1]}, limits=CheckLimits())
    assert not missing[1].proved and "coqc" in missing[1].message


@needs_coq
def test_a_lemma_over_its_time_limit_is_stopped_and_says_so():
    endless = ("From Coq Require Import ZArith Lia.\nOpen Scope Z_scope.\n"
               "Lemma endless : forall x : Z, x + 1 > x.\nProof. intros. repeat rewrite Z.add_comm. lia. Qed.\n")
    run = coq_checker.CoqChecker().prove({1: endless}, limits=CheckLimits(timeout_s=4.0))[1]
    assert not run.proved and run.timed_out and "time limit" in run.message

"""Chain-level assembly: givens, ancestors, a step's own premises and its conclusion (its inference), untranslatable
steps, and what the chain's verdict makes of a step's own premises (given, derived, assumed or contradicted)."""

import pytest

from reasonforge import ReasoningStep, VerifyRequest, verify_chain
from reasonforge.chain import StepGraph
from reasonforge.errors import ReasonForgeError
from reasonforge.lang.english import ClaimRole
from reasonforge.lang.logic import to_text
from reasonforge.registry import checkers
from reasonforge.translate import LogicTranslator, Translator, default_translator
from reasonforge.types import (
    ArtifactLanguage,
    CheckLimits,
    Domain,
    Overall,
    ProofLevel,
    Prover,
    StepContext,
    StepStatus,
)


def request(steps, query="", level="standard", deps=None, claimed=None):
    chain = [
        ReasoningStep(step_id=i + 1, content=s, dependencies=(deps or {}).get(i + 1),
                      claimed_conclusion=(claimed or {}).get(i + 1))
        for i, s in enumerate(steps)
    ]
    return VerifyRequest(original_query=query, reasoning_chain=chain, domain="logic", proof_level=level)


def translate(req):
    graph = StepGraph(req.reasoning_chain)
    ancestors = {sid: list(graph.ancestors(sid)) for sid in graph.order}
    return LogicTranslator().translate_chain(req, ancestors)


def check(translation, level=ProofLevel.STANDARD):
    """The registry's checker on one artifact: what the translator's artifact proves, before the soundness gate."""
    if not translation.formal_representation:
        return StepStatus.UNSUPPORTED
    checker = checkers.get(translation.language)
    return checker.check(translation.formal_representation, level=level, limits=CheckLimits()).status


def checked(req):
    return [check(t, req.proof_level) for t in translate(req)]


def statuses(req):
    return [v.status for v in verify_chain(req, translator=LogicTranslator()).step_verdicts]


def context(req, step_id):
    graph = StepGraph(req.reasoning_chain)
    steps = {s.step_id: s for s in req.reasoning_chain}
    step = steps[step_id]
    return StepContext(step_id=step_id, content=step.content, claimed_conclusion=step.claimed_conclusion,
                       original_query=req.original_query, ancestors=[steps[a] for a in graph.ancestors(step_id)],
                       domain=Domain.LOGIC, proof_level=req.proof_level)


def test_translator_satisfies_the_protocol_and_is_the_logic_default():
    translator = default_translator(Domain.LOGIC)
    assert isinstance(translator, LogicTranslator) and isinstance(translator, Translator)
    assert translator.spec.name == "rule-based-logic"
    with pytest.raises(ReasonForgeError, match="Lean 4"):
        default_translator(Domain.MATHEMATICS, level=ProofLevel.FORMAL, prover=Prover.LEAN4)


def test_whale_example_as_one_step():
    req = request(["Therefore whales are warm-blooded."], query="All mammals are warm-blooded. Whales are mammals.")
    [t] = translate(req)
    assert t.language is ArtifactLanguage.FOL
    assert t.formal_representation == (
        "∀x (Mammal(x) → WarmBlooded(x))\n∀x (Whale(x) → Mammal(x))\n⊢ ∀x (Whale(x) → WarmBlooded(x))"
    )
    assert t.compilation_check and t.translation_confidence == 1.0 and t.dependencies == []


def test_a_steps_artifact_is_its_inference_from_the_premises_it_states():
    [t] = translate(request(["All mammals are warm-blooded. Whales are mammals. Therefore whales are warm-blooded."]))
    # no givens: the step's first two sentences are the premises of its inference; whether each is given, derived
    # or assumed is the aligner's to decide (tests/verify/logic/test_assumptions.py)
    assert t.formal_representation == (
        "∀x (Mammal(x) → WarmBlooded(x))\n∀x (Whale(x) → Mammal(x))\n⊢ ∀x (Whale(x) → WarmBlooded(x))"
    )
    assert "the step states 2 premise(s) of its own" in t.notes


def test_givens_and_ancestors_claims_make_up_the_premises():
    req = request(
        ["Socrates is a man.", "Plato is a man. Therefore Plato is mortal.", "Socrates is mortal."],
        query="All men are mortal. Is Socrates mortal?",
        deps={3: [1]},
    )
    t1, t2, t3 = translate(req)
    assert t1.formal_representation == "∀x (Man(x) → Mortal(x))\n⊢ Man(socrates)"
    assert t2.formal_representation == "∀x (Man(x) → Mortal(x))\nMan(socrates)\nMan(plato)\n⊢ Mortal(plato)"
    # step 3 depends on step 1 only: step 2's claims are not available to it
    assert t3.formal_representation == "∀x (Man(x) → Mortal(x))\nMan(socrates)\n⊢ Mortal(socrates)"
    assert (t1.dependencies, t2.dependencies, t3.dependencies) == ([], [1], [1])


@pytest.mark.parametrize(
    ("query", "content", "assumed"),
    [
        ("Tom is a cat.", "Since every cat is a bird, Tom is a bird.", "every cat is a bird"),
        ("Tom is a cat.", "Tom is a bird because every cat is a bird.", "every cat is a bird."),
        ("Tom is a cat.", "Every cat is a bird, so Tom is a bird.", "Every cat is a bird"),
        ("Tom is a cat.", "Every cat is a bird. Therefore Tom is a bird.", "Every cat is a bird."),
    ],
)
@pytest.mark.parametrize("level", ["standard", "quick"])
def test_a_steps_own_premises_are_assumptions_never_proof(query, content, assumed, level):
    # (was: not verified. The assumption rule: a reason the givens neither give, derive nor contradict is assumed;
    # the inference from it is checked and verified on conditional evidence naming it, never VERIFIED overall)
    req = request([content], query=query, level=level)
    assert checked(req) == [StepStatus.VERIFIED]
    verdict = verify_chain(req, translator=LogicTranslator())
    [step] = verdict.step_verdicts
    assert step.status is StepStatus.VERIFIED and step.evidence.assumptions == [assumed]
    assert verdict.overall is Overall.PARTIAL


@pytest.mark.parametrize(
    ("query", "content", "status"),
    [
        ("Rex is a cat. No cat is a bird.", "Rex is a bird. So Rex is a bird.", StepStatus.FAILED),  # contradicted
        ("Tom is a cat. No cat is a bird.", "Suppose Tom is a bird. So Tom is a bird.", StepStatus.UNSUPPORTED),
    ],
)
@pytest.mark.parametrize("level", ["standard", "quick"])
def test_a_step_cannot_verify_by_asserting_what_the_givens_deny_or_by_supposing_it(query, content, status, level):
    req = request([content], query=query, level=level)
    assert checked(req)[0] is not StepStatus.VERIFIED  # vacuous premises, or no artifact at all
    verdict = verify_chain(req, translator=LogicTranslator())
    assert statuses(req) == [status] and verdict.overall is not Overall.VERIFIED


def test_reasons_that_the_givens_state_are_verified():
    req = request(["Since every cat is a bird, Tom is a bird."], query="Tom is a cat. Every cat is a bird.")
    assert checked(req) == [StepStatus.VERIFIED]
    assert statuses(req) == [StepStatus.VERIFIED]


def test_step_reading_fields():
    reader = LogicTranslator().reader
    parser = reader.parser(["Tom is a cat. Since every cat is a bird, Tom is a bird.", "Tom is an animal."])
    reading = reader.read_step("Tom is a cat. Since every cat is a bird, Tom is a bird.", "Tom is an animal.", parser)
    assert [to_text(f) for f in reading.premises] == ["Cat(tom)", "∀x (Cat(x) → Bird(x))"]
    assert to_text(reading.conclusion) == "Bird(tom) ∧ Animal(tom)"
    assert len(reading.claims) == 3
    assert to_text(reading.claim) == "Cat(tom) ∧ (∀x (Cat(x) → Bird(x))) ∧ Bird(tom) ∧ Animal(tom)"
    assert [(p.text, p.role) for p in reading.parts] == [
        ("Tom is a cat.", ClaimRole.SUPPORT),
        ("every cat is a bird", ClaimRole.SUPPORT),
        ("Tom is a bird.", ClaimRole.CONCLUSION),
        ("Tom is an animal.", ClaimRole.CLAIMED),
    ]


def test_read_context_reads_a_step_as_the_chain_translation_does():
    req = request(["Max is a yumpus.", "Max is a dumpus.", "Since Max is a dumpus, Max is not wooden."],
                  query="Each yumpus is a dumpus. Dumpuses are not wooden. Max is a yumpus.")
    translator = LogicTranslator()
    for t in translate(req):
        scope = translator.read_context(context(req, t.step_id))
        premises, conclusion = t.formal_representation.rsplit("\n⊢ ", 1)
        stated, concluded = scope.inference
        assert conclusion == to_text(concluded, explicit=True)
        assert premises.split("\n") == [to_text(f, explicit=True) for f in stated]


@pytest.mark.parametrize("question", [
    "True or false: Fae is not cold-blooded.", "Is Fae not cold-blooded?", "Fae is not cold-blooded?",
    '"Is Fae cold-blooded?"', "Could Fae be cold-blooded", "Is Fae cold-blooded?!",
])
def test_question_sentences_are_not_givens(question):
    req = request(["So Fae is not cold-blooded."], query=f"Fae is a cat. {question}")
    [t] = translate(req)
    assert t.formal_representation == "Cat(fae)\n⊢ ¬ColdBlooded(fae)"
    assert statuses(req) == [StepStatus.FAILED]  # an inference the givens do not give


def test_restating_a_given_is_verified():
    req = request(["Every cat is a feline."], query="Every cat is a feline. Fae is a cat.")
    assert checked(req) == [StepStatus.VERIFIED]
    assert statuses(req) == [StepStatus.VERIFIED]


def test_untranslatable_step_is_empty_and_quotes_the_sentence():
    sentence = "The moon is made of cheese because cows jump over it."
    [t] = translate(request([sentence]))
    assert t.formal_representation == "" and not t.compilation_check and t.translation_confidence == 0.0
    assert t.notes.startswith(f'cannot translate "{sentence}"')
    verdict = verify_chain(request([sentence]), translator=LogicTranslator())
    assert verdict.step_verdicts[0].status is StepStatus.UNSUPPORTED
    assert sentence in verdict.step_verdicts[0].error_message


@pytest.mark.parametrize(
    ("content", "why"),
    [
        ("Rex is not a cat and a dog.", "two readings"),
        ("It is not true that Rex is a cat or Rex is a dog.", "ambiguous"),
        ("R\u0435x is a dog.", "Cyrillic"),
    ],
)
def test_ambiguous_or_look_alike_steps_are_unsupported_with_the_reason(content, why):
    req = request([content], query="Rex is a cat.")
    [t] = translate(req)
    assert t.formal_representation == "" and why in t.notes
    [verdict] = verify_chain(req, translator=LogicTranslator()).step_verdicts
    assert verdict.status is StepStatus.UNSUPPORTED and why in verdict.error_message


def test_a_look_alike_given_is_skipped_not_trusted():
    req = request(["R\u0435x is a dog."], query="R\u0435x is a dog. Rex is a cat.")
    [t] = translate(req)
    assert "skipped 1 query sentence" in t.notes and t.formal_representation == ""


def test_untranslatable_ancestor_still_gives_the_step_an_artifact():
    req = request(["Socrates is a man.", "The moon is made of cheese.", "Therefore Socrates is mortal."],
                  query="All men are mortal.")
    _t1, t2, t3 = translate(req)
    assert t2.formal_representation == ""
    assert t3.formal_representation == "∀x (Man(x) → Mortal(x))\nMan(socrates)\n⊢ Mortal(socrates)"


def test_skipped_query_sentences_are_named_in_notes():
    [t] = translate(request(["Socrates is a man."], query="Socrates, a Greek philosopher, taught Plato. All men are mortal."))
    assert "skipped 1 query sentence" in t.notes and "Greek philosopher" in t.notes


def test_claimed_conclusion_that_differs_is_checked_too():
    req = request(["Socrates is mortal."], query="All men are mortal. Socrates is a man.",
                  claimed={1: "Socrates is a god."})
    [t] = translate(req)
    # an unmarked step's text is what its claimed conclusion is drawn from
    assert t.formal_representation.endswith("Man(socrates)\nMortal(socrates)\n⊢ God(socrates)")
    assert "claimed_conclusion" in t.notes
    assert checked(req) == [StepStatus.FAILED]
    assert statuses(req) == [StepStatus.FAILED]


def test_entailment_reproduces_labels_from_the_theory():
    translator = LogicTranslator()
    theory = "Every cat is a feline. Fae is a cat."
    assert check(translator.entailment(theory, "Fae is a feline.")) is StepStatus.VERIFIED
    assert check(translator.entailment(theory, "Fae is not a feline.", negated=True)) is StepStatus.VERIFIED
    assert check(translator.entailment(theory, "Fae is a dog.")) is StepStatus.FAILED


SYLLOGISMS = [
    ("All mammals are warm-blooded. Whales are mammals.", ["Therefore whales are warm-blooded."], Overall.VERIFIED),
    ("All men are mortal. Socrates is a man.", ["Therefore Socrates is mortal."], Overall.VERIFIED),  # Barbara/MP
    ("No reptiles are mammals. All snakes are reptiles.", ["Therefore no snakes are mammals."], Overall.VERIFIED),
    ("All cats are mammals. Some pets are cats.", ["Therefore some pets are mammals."], Overall.VERIFIED),  # Darii
    ("If Socrates is a man then Socrates is mortal. Socrates is not mortal.", ["Therefore Socrates is not a man."],
     Overall.VERIFIED),  # modus tollens
    ("If Socrates is a man then Socrates is mortal. Socrates is mortal.", ["Therefore Socrates is a man."],
     Overall.FAILED),  # affirming the consequent
    ("If Socrates is a man then Socrates is mortal. Socrates is not a man.", ["Therefore Socrates is not mortal."],
     Overall.FAILED),  # denying the antecedent
    ("All cats are mammals. All dogs are mammals.", ["Therefore all cats are dogs."], Overall.FAILED),  # undistributed
    ("Either Bob is red or Bob is blue. Bob is not red.", ["So Bob is blue."], Overall.VERIFIED),
    ("If something is big then it is red. The bear is big.", ["Hence the bear is red."], Overall.VERIFIED),
    ("All men are mortal. Socrates is a man.", ["Since all men are mortal and Socrates is a man, Socrates is mortal."],
     Overall.VERIFIED),
    ("All men are mortal. Socrates is a man.",
     ["All men are mortal. Socrates is a man. Therefore Socrates is mortal."], Overall.VERIFIED),  # restated givens
    ("Cats and dogs are animals. Rex is a dog.", ["So Rex is an animal."], Overall.VERIFIED),
    ("Rex is not a cat or a dog.", ["So Rex is not a dog."], Overall.VERIFIED),
    ("Rex is not a cat or a dog.", ["So Rex is a dog."], Overall.FAILED),
    ("", ["Socrates is mortal because Socrates is a man."], Overall.FAILED),  # the reason alone is not enough
    # no givens: valid from its assumed premises (was FAILED: the assumption rule makes it conditional)
    ("", ["All men are mortal. Socrates is a man. Therefore Socrates is mortal."], Overall.PARTIAL),
    ("Socrates is a man.", ["Since all men are mortal, Socrates is mortal."], Overall.PARTIAL),  # (was FAILED)
]


@pytest.mark.parametrize(("query", "steps", "expected"), SYLLOGISMS)
@pytest.mark.parametrize("level", ["standard", "quick"])
def test_syllogisms_end_to_end(query, steps, expected, level):
    req = request(steps, query=query, level=level)
    verified = [s is StepStatus.VERIFIED for s in checked(req)]
    assert all(verified) is (expected is not Overall.FAILED)  # the checker judges the inference, premises granted
    assert verify_chain(req, translator=LogicTranslator()).overall is expected


def test_quick_level_emits_grounded_propositional_artifacts():
    req = request(["Socrates is mortal."], query="All men are mortal. Socrates is a man.", level="quick")
    [t] = translate(req)
    assert t.language is ArtifactLanguage.PROPOSITIONAL
    assert t.formal_representation == "Man_socrates → Mortal_socrates\nMan_socrates\n⊢ Mortal_socrates"
    assert t.compilation_check


def test_multi_step_chain_with_a_wrong_step_fails_there():
    req = request(
        ["Max is a yumpus.", "Each yumpus is a dumpus.", "Max is a dumpus.", "Dumpuses are not wooden.", "Max is wooden."],
        query="Each yumpus is a dumpus. Dumpuses are not wooden. Max is a yumpus. "
              "Is the following statement true or false? Max is wooden.",
    )
    assert checked(req) == [StepStatus.VERIFIED] * 4 + [StepStatus.FAILED]
    assert statuses(req) == [StepStatus.VERIFIED] * 4 + [StepStatus.FAILED]

"""Chain-level assembly: givens, ancestors, local premises, restated givens, untranslatable steps."""

import pytest

from reasonforge import ReasoningStep, VerifyRequest, verify_chain
from reasonforge.chain import StepGraph
from reasonforge.errors import ReasonForgeError
from reasonforge.translate import LogicTranslator, Translator, default_translator
from reasonforge.types import ArtifactLanguage, Domain, Overall, ProofLevel, Prover, StepStatus


def request(steps, query="", level="standard", deps=None):
    chain = [
        ReasoningStep(step_id=i + 1, content=s, dependencies=(deps or {}).get(i + 1))
        for i, s in enumerate(steps)
    ]
    return VerifyRequest(original_query=query, reasoning_chain=chain, domain="logic", proof_level=level)


def translate(req):
    graph = StepGraph(req.reasoning_chain)
    ancestors = {sid: list(graph.ancestors(sid)) for sid in graph.order}
    return LogicTranslator().translate_chain(req, ancestors)


def statuses(req):
    return [v.status for v in verify_chain(req, translator=LogicTranslator()).step_verdicts]


def test_translator_satisfies_the_protocol_and_is_the_logic_default():
    translator = default_translator(Domain.LOGIC)
    assert isinstance(translator, LogicTranslator) and isinstance(translator, Translator)
    assert translator.spec.name == "rule-based-logic"
    with pytest.raises(ReasonForgeError, match="Lean 4"):
        default_translator(Domain.MATHEMATICS, level=ProofLevel.FORMAL, prover=Prover.LEAN4)


def test_whale_example_as_one_step():
    [t] = translate(request(["All mammals are warm-blooded. Whales are mammals. Therefore whales are warm-blooded."]))
    assert t.language is ArtifactLanguage.FOL
    assert t.formal_representation == (
        "∀x (Mammal(x) → WarmBlooded(x))\n∀x (Whale(x) → Mammal(x))\n⊢ ∀x (Whale(x) → WarmBlooded(x))"
    )
    assert t.compilation_check and t.translation_confidence == 1.0 and t.dependencies == []


def test_givens_ancestors_and_local_premises_make_up_the_artifact():
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


def test_question_sentences_are_not_givens():
    req = request(["Fae is not cold-blooded."], query="Fae is a cat. True or false: Fae is not cold-blooded.")
    [t] = translate(req)
    assert t.formal_representation == "Cat(fae)\n⊢ ¬ColdBlooded(fae)"
    assert statuses(req) == [StepStatus.FAILED]


def test_restating_a_given_is_verified():
    req = request(["Every cat is a feline."], query="Every cat is a feline. Fae is a cat.")
    assert statuses(req) == [StepStatus.VERIFIED]


def test_untranslatable_step_is_empty_and_quotes_the_sentence():
    sentence = "The moon is made of cheese because cows jump over it."
    [t] = translate(request([sentence]))
    assert t.formal_representation == "" and not t.compilation_check and t.translation_confidence == 0.0
    assert t.notes.startswith(f'cannot translate "{sentence}"')
    verdict = verify_chain(request([sentence]), translator=LogicTranslator())
    assert verdict.step_verdicts[0].status is StepStatus.UNSUPPORTED
    assert sentence in verdict.step_verdicts[0].error_message


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
    req = VerifyRequest(
        original_query="All men are mortal. Socrates is a man.", domain="logic",
        reasoning_chain=[ReasoningStep(step_id=1, content="Socrates is mortal.", claimed_conclusion="Socrates is a god.")],
    )
    [t] = LogicTranslator().translate_chain(req, {1: []})
    assert t.formal_representation.endswith("⊢ Mortal(socrates) ∧ God(socrates)")
    assert "claimed_conclusion" in t.notes


@pytest.mark.parametrize(
    ("steps", "expected"),
    [
        (["All mammals are warm-blooded. Whales are mammals. Therefore whales are warm-blooded."], Overall.VERIFIED),
        (["All men are mortal. Socrates is a man. Therefore Socrates is mortal."], Overall.VERIFIED),  # Barbara/MP
        (["No reptiles are mammals. All snakes are reptiles. Therefore no snakes are mammals."], Overall.VERIFIED),
        (["All cats are mammals. Some pets are cats. Therefore some pets are mammals."], Overall.VERIFIED),  # Darii
        ([("If Socrates is a man then Socrates is mortal. Socrates is not mortal. "
          "Therefore Socrates is not a man.")], Overall.VERIFIED),  # modus tollens
        ([("If Socrates is a man then Socrates is mortal. Socrates is mortal. "
          "Therefore Socrates is a man.")], Overall.FAILED),  # affirming the consequent
        ([("If Socrates is a man then Socrates is mortal. Socrates is not a man. "
          "Therefore Socrates is not mortal.")], Overall.FAILED),  # denying the antecedent
        (["All cats are mammals. All dogs are mammals. Therefore all cats are dogs."], Overall.FAILED),  # undistributed middle
        (["Either Bob is red or Bob is blue. Bob is not red. So Bob is blue."], Overall.VERIFIED),
        (["If something is big then it is red. The bear is big. Hence the bear is red."], Overall.VERIFIED),
        (["Since all men are mortal and Socrates is a man, Socrates is mortal."], Overall.VERIFIED),
        (["Socrates is mortal because Socrates is a man."], Overall.FAILED),  # the reason alone is not enough
    ],
)
@pytest.mark.parametrize("level", ["standard", "quick"])
def test_syllogisms_end_to_end(steps, expected, level):
    verdict = verify_chain(request(steps, level=level), translator=LogicTranslator())
    assert verdict.overall is expected


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
    assert statuses(req) == [StepStatus.VERIFIED] * 4 + [StepStatus.FAILED]

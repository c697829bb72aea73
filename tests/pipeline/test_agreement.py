"""Independent translations of a chain, each checked on its own and agreed on per step (pipeline/agreement.py)."""

import json
from pathlib import Path

import pytest

from reasonforge.pipeline.agreement import agree
from reasonforge.pipeline.run import verify_chain
from reasonforge.translate import default_translator
from reasonforge.translate.ensemble import Ensemble
from reasonforge.types import (
    ErrorKind,
    Overall,
    Spec,
    StepStatus,
    StepTranslation,
    StepVerdict,
    TranslatorMode,
    VerifyRequest,
)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
WHALE = VerifyRequest.model_validate_json((EXAMPLES / "whale.json").read_text())
PLAN = [StepTranslation.model_validate(t)
        for t in json.loads((EXAMPLES / "whale-smtlib.translations.json").read_text())]
# The plan's artifact without "All mammals are warm-blooded": it under-reads the step, and Z3 refutes it.
WEAK = [PLAN[0].model_copy(update={"formal_representation": PLAN[0].formal_representation.replace(
    "(assert (forall ((x Animal)) (=> (Mammal x) (WarmBlooded x))))\n", "")})]


class Recorded:
    """A translator that answers with translations another translator wrote (the artifacts are checked for real)."""

    def __init__(self, name, translations):
        self.spec = Spec(name=name, version="1")
        self.translations = translations

    def translate_chain(self, request, ancestors):
        return list(self.translations)


def rules():
    return default_translator(WHALE.domain, level=WHALE.proof_level)


def test_two_translations_that_prove_the_step_verify_it_with_the_figures():
    verdict = verify_chain(WHALE, translator=Ensemble([rules(), Recorded("model", PLAN)], min_agree=2))
    step = verdict.step_verdicts[0]
    assert verdict.overall is Overall.VERIFIED and step.evidence
    agreement = step.details["agreement"]
    assert (agreement["translations"], agreement["verified"], agreement["failed"], agreement["required"]) == (2, 2, 0, 2)
    assert [b["translator"] for b in agreement["by"]] == ["rule-based-logic", "model"]


def test_a_failed_artifact_that_under_reads_the_step_refutes_nothing_beside_a_proof():
    # In logic a refutation is the reader's: the model's artifact, which drops a premise the step states, fails
    # while the step's inference holds as read, so it is not the step's inference (unsupported) and the proof stands.
    verdict = verify_chain(WHALE, translator=Ensemble([rules(), Recorded("model", WEAK)]))
    step = verdict.step_verdicts[0]
    assert step.status is StepStatus.VERIFIED and verdict.overall is Overall.VERIFIED
    agreement = step.details["agreement"]
    assert (agreement["verified"], agreement["failed"]) == (1, 0)
    assert [b["status"] for b in agreement["by"]] == ["verified", "unsupported"]
    assert "refutes nothing" in agreement["by"][1]["message"]


def test_a_step_the_rules_cannot_read_is_the_models_and_a_lone_failure_refutes_only_as_read():
    empty = [PLAN[0].model_copy(update={"formal_representation": "", "notes": "not read"})]
    verdict = verify_chain(WHALE, translator=Ensemble([Recorded("rules", empty), Recorded("model", PLAN)]))
    assert verdict.overall is Overall.VERIFIED
    lone = verify_chain(WHALE, translator=Ensemble([Recorded("rules", empty), Recorded("model", WEAK)]))
    assert lone.step_verdicts[0].status is StepStatus.UNSUPPORTED  # its failure is not the reader's refutation
    assert lone.step_verdicts[0].error_kind is ErrorKind.UNALIGNED


def test_fewer_proofs_than_required_is_unsupported():
    empty = [PLAN[0].model_copy(update={"formal_representation": ""})]
    verdict = verify_chain(WHALE, translator=Ensemble([Recorded("a", empty), Recorded("b", PLAN)], min_agree=2))
    step = verdict.step_verdicts[0]
    assert step.status is StepStatus.UNSUPPORTED and step.error_kind is ErrorKind.TOO_FEW_AGREE
    assert "only 1 of 2" in step.error_message


def test_a_cheating_member_cannot_verify_a_false_step():
    # A member that "proves" the step with a tautology is stopped by the soundness gate, like any artifact.
    # "Whales are mammals" is contradicted by the givens (a premise nothing contradicted would be an assumption)
    false = WHALE.model_copy(update={"original_query": "All mammals are warm-blooded. Moby is a whale. Moby is not a "
                                                       "mammal. Are whales warm-blooded?"})
    tautology = [PLAN[0].model_copy(update={"formal_representation": "(declare-const p Bool)\n(assert p)\n"
                                                                     "(assert (not p))\n(check-sat)\n"})]
    verdict = verify_chain(false, translator=Ensemble([rules(), Recorded("cheat", tautology)]))
    assert verdict.overall is not Overall.VERIFIED and not verdict.step_verdicts[0].verified


def test_the_ensemble_as_a_plain_translator_fills_the_first_members_gaps():
    empty = [PLAN[0].model_copy(update={"formal_representation": ""})]
    chosen = Ensemble([Recorded("a", empty), Recorded("b", PLAN)]).translate_chain(WHALE, {1: []})
    assert [t.formal_representation for t in chosen] == [PLAN[0].formal_representation]


def test_agreement_arguments_are_checked():
    run = {1: StepVerdict(step_id=1, verified=True, status=StepStatus.VERIFIED)}
    with pytest.raises(ValueError, match="min_agree"):
        agree([run], [None], min_agree=2)
    with pytest.raises(ValueError, match="one translator spec per run"):
        agree([run, run], [None])
    from reasonforge.errors import InputError
    with pytest.raises(InputError, match="min_agree"):
        Ensemble([rules()], min_agree=0)


class ModelWritten(Recorded):
    """Recorded translations presented as a model's (what a `TranslationEngine` with a backend is)."""

    writer = TranslatorMode.MODEL


def test_a_model_never_refutes_alone_and_two_of_its_samples_may():
    # WEAK refutes the step under Z3; written by the rules (which cannot read this step) it would be unaligned, so
    # the lone model failure is tested on the agreement itself: one model refutation is unsupported, two agree.
    failed = {1: StepVerdict(step_id=1, verified=False, status=StepStatus.FAILED, error_message="7 ≠ 8")}
    unread = {1: StepVerdict(step_id=1, verified=False, status=StepStatus.UNSUPPORTED)}
    specs = [Spec(name="rules", version="1"), Spec(name="model", version="1"), Spec(name="model", version="1")]
    rules_, model = TranslatorMode.RULES, TranslatorMode.MODEL
    lone = agree([unread, failed], specs[:2], writers=[rules_, model])[1]
    assert lone.status is StepStatus.UNSUPPORTED and lone.error_kind is ErrorKind.TOO_FEW_AGREE
    assert "only a model's translation refutes" in lone.error_message and "7 ≠ 8" in lone.error_message
    assert agree([unread, failed, failed], specs, writers=[rules_, model, model])[1].status is StepStatus.FAILED
    assert agree([failed, unread], specs[:2], writers=[rules_, model])[1].status is StepStatus.FAILED  # the rules'
    assert agree([unread, failed], specs[:2])[1].status is StepStatus.FAILED  # writers unknown: as before
    with pytest.raises(ValueError, match="one writer per run"):
        agree([unread, failed], specs[:2], writers=[model])


def test_an_ensemble_knows_which_members_a_model_writes():
    ensemble = Ensemble([rules(), ModelWritten("model", PLAN)])
    assert ensemble.writers == [TranslatorMode.RULES, TranslatorMode.MODEL]


def test_a_models_artifact_that_does_not_parse_leaves_the_step_unread_with_the_artifact_shown():
    # gsm8k-218: the model's artifact of every step failed to parse. That is no fault of the checker (an `error`)
    # and says nothing of the step: the step is unread, beside the rules and alone, and the artifact is kept.
    broken = [PLAN[0].model_copy(update={"formal_representation": "(assert (Whale w)"})]
    empty = [PLAN[0].model_copy(update={"formal_representation": "", "notes": "not read"})]
    beside = verify_chain(WHALE, translator=Ensemble([Recorded("rules", empty), ModelWritten("model", broken)]))
    step = beside.step_verdicts[0]
    assert step.status is StepStatus.UNSUPPORTED and step.error_kind is ErrorKind.UNTRANSLATABLE  # the rules' account
    model_run = step.details["agreement"]["by"][1]
    assert model_run["status"] == "unsupported" and "does not parse" in model_run["message"]
    assert model_run["artifact"] == "(assert (Whale w)"
    alone = verify_chain(WHALE, translator=ModelWritten("model", broken)).step_verdicts[0]
    assert alone.status is StepStatus.UNSUPPORTED and alone.error_kind is ErrorKind.SYNTAX
    assert alone.formal_representation == "(assert (Whale w)" and "the step is unread" in alone.error_message
    supplied = verify_chain(WHALE, translations=broken).step_verdicts[0]
    assert supplied.status is StepStatus.ERROR  # an author's own artifact is theirs to fix: the error stays



ADD_THEN_DOUBLE = VerifyRequest.model_validate({
    "original_query": "What is 2 + 3, doubled?", "domain": "mathematics",
    "reasoning_chain": [{"step_id": 1, "content": "2 + 3 = 5"},
                        {"step_id": 2, "content": "Doubling that gives ten.", "dependencies": [1]}]})
MOBY = VerifyRequest.model_validate({
    "original_query": "All whales are mammals. All mammals are warm-blooded. Moby is a whale.", "domain": "logic",
    "reasoning_chain": [{"step_id": 1, "content": "Moby is a whale and all whales are mammals, so Moby is a mammal."},
                        {"step_id": 2, "content": "Moby's blood, like every mammal's, runs warm, as biology tells us."}]})
FOL_REPLY = ("```fol\n∀x (Mammal(x) → WarmBlooded(x))\nMammal(moby)\n⊢ WarmBlooded(moby)\n```\nDEPENDENCIES: 1\n"
             "CONFIDENCE: 0.9")


def _model(server):
    from reasonforge.translate.engine import TranslationEngine
    from reasonforge.translate.llm import ModelSettings, OpenAIChatBackend

    settings = ModelSettings(base_url=f"{server.url}/v1", model="gpt-4o", max_retries=0)
    return TranslationEngine(OpenAIChatBackend(settings), strict=True, max_attempts=1)


def _beside_the_rules(request, server, agree=1):
    rules_ = default_translator(request.domain, level=request.proof_level)
    return verify_chain(request, translator=Ensemble([rules_, _model(server)], min_agree=agree))


def test_the_model_is_asked_only_for_the_steps_the_rules_left_open():
    # Step 1 is an inference the rules prove: a model's second proof adds nothing and its refutation would be its
    # own misreading, so only step 2, which the rules cannot read, goes to the model (one request, not two).
    from llm_replay import CHAT, ReplayServer, openai_reply

    with ReplayServer() as server:
        server.queue(CHAT, openai_reply(FOL_REPLY))
        verdict = _beside_the_rules(MOBY, server)
        prompts = [p["messages"][-1]["content"] for p in server.posted(CHAT)]
    assert len(prompts) == 1 and "for step 2" in prompts[0]
    assert "Mammal(moby)" in prompts[0]  # the rules' artifact of step 1, shown as its ancestor's
    first, second = verdict.step_verdicts
    assert first.status is StepStatus.VERIFIED
    assert [b["status"] for b in first.details["agreement"]["by"]] == ["verified", "unsupported"]
    assert "not asked" in first.details["agreement"]["by"][1]["message"]
    assert second.details["agreement"]["by"][1]["artifact"].startswith("∀x (Mammal(x)")  # asked, and checked


def test_a_maths_step_is_never_sent_to_the_model_whose_artifact_could_only_restate_the_rules():
    # The maths aligner accepts an artifact only when it states what the rules' reading states: step 2 has no
    # relation the reader reads, so no artifact could align, and step 1's reading is checked already.
    from llm_replay import CHAT, ReplayServer

    with ReplayServer() as server:
        verdict = _beside_the_rules(ADD_THEN_DOUBLE, server)
        asked = len(server.posted(CHAT))
    first, second = verdict.step_verdicts
    assert asked == 0 and first.status is StepStatus.VERIFIED and second.status is StepStatus.UNSUPPORTED
    assert "restates its reader's own translation" in second.details["agreement"]["by"][1]["message"]
    wrong = ADD_THEN_DOUBLE.model_copy(update={"reasoning_chain": [
        ADD_THEN_DOUBLE.reasoning_chain[0].model_copy(update={"content": "2 + 3 = 6"})]})
    with ReplayServer() as server:
        refuted = _beside_the_rules(wrong, server)
        asked = len(server.posted(CHAT))
    assert asked == 0 and refuted.step_verdicts[0].status is StepStatus.FAILED  # the rules' refutation stands


def test_where_two_translations_must_agree_the_model_is_asked_every_step():
    from llm_replay import CHAT, ReplayServer, openai_reply

    with ReplayServer() as server:
        for reply in ("```sympy\nclaim 2 + 3 = 5\n```\nDEPENDENCIES: none\nCONFIDENCE: 0.9",
                      "```sympy\nclaim 2*5 = 10\n```\nDEPENDENCIES: 1\nCONFIDENCE: 0.9"):
            server.queue(CHAT, openai_reply(reply))
        verdict = _beside_the_rules(ADD_THEN_DOUBLE, server, agree=2)
        asked = len(server.posted(CHAT))
    assert asked == 2
    assert verdict.step_verdicts[0].status is StepStatus.VERIFIED
    assert verdict.step_verdicts[0].details["agreement"]["verified"] == 2

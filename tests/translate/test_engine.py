"""The translation engine end to end: loopback model server → parse → local checker → repair → verify_chain."""

import asyncio
import shutil

import pytest

from reasonforge.pipeline.corroboration import question_model
from reasonforge.pipeline.run import verify_chain
from reasonforge.registry import Spec
from reasonforge.translate import Translator
from reasonforge.translate.engine import TranslationEngine
from reasonforge.translate.llm import AnthropicBackend, ModelSettings, OpenAIChatBackend
from reasonforge.translate.question import QuestionPrograms, problem_messages, question_messages
from reasonforge.types import ArtifactLanguage, CheckLimits, StepStatus, StepTranslation, VerifyRequest

from llm_replay import CHAT, MESSAGES, ReplayServer, anthropic_reply, openai_reply

WHALE = {"original_query": "All whales are mammals. All mammals are warm-blooded. Moby is a whale.",
         "domain": "logic",
         "reasoning_chain": [
             {"step_id": 1, "content": "Moby is a whale and all whales are mammals, so Moby is a mammal."},
             {"step_id": 2, "content": "Since all mammals are warm-blooded, Moby is warm-blooded."}]}
STEP1 = "∀x (Whale(x) → Mammal(x))\nWhale(moby)\n⊢ Mammal(moby)"
STEP2 = "∀x (Mammal(x) → WarmBlooded(x))\nMammal(moby)\n⊢ WarmBlooded(moby)"


def fenced(body, tag="fol", deps="none", confidence="0.9"):
    return f"Here is the translation.\n```{tag}\n{body}\n```\nDEPENDENCIES: {deps}\nCONFIDENCE: {confidence}"


def engine(server, **kw):
    settings = ModelSettings(base_url=f"{server.url}/v1", model="gpt-4o", max_retries=0)
    return TranslationEngine(OpenAIChatBackend(settings), **kw)


def request(data=WHALE, **update):
    return VerifyRequest.model_validate({**data, **update})


def test_engine_is_a_translator():
    assert isinstance(TranslationEngine(), Translator)


def test_repair_turns_a_failing_first_attempt_into_a_verified_step():
    with ReplayServer() as server:
        server.queue(CHAT, openai_reply(fenced("∀x (Whale(x) → Mammal(x)\nWhale(moby)\n⊢ Mammal(moby)")))
        server.queue(CHAT, openai_reply(fenced(STEP1)))
        server.queue(CHAT, openai_reply(fenced(STEP2, deps="1")))
        eng = engine(server)
        outcome = asyncio.run(eng.atranslate(request()))
        verdict = verify_chain(request(), translations=outcome.translations)
        second = server.posted(CHAT)[1]["messages"]
    step1, step2 = outcome.steps
    assert (step1.status, step1.attempts, step1.first_attempt_compiled) == ("verified", 2, False)
    assert (step2.status, step2.attempts, step2.first_attempt_compiled) == ("verified", 1, True)
    notes = outcome.translations[0].notes
    assert "attempt 1: did not compile: line 1, column 4: unbalanced parenthesis" in notes
    assert "attempt 2: verified locally" in notes and "tokens in 274, out 22" in notes
    assert second[-2]["role"] == "assistant" and "unbalanced parenthesis" in second[-1]["content"]
    assert verdict.overall.value == "VERIFIED" and verdict.verified_steps == 2
    assert outcome.translations[0].compilation_check and outcome.translations[0].translation_confidence == 0.9


def test_verify_chain_accepts_the_engine_as_translator():
    with ReplayServer() as server:
        server.queue(CHAT, openai_reply(fenced(STEP1)))
        server.queue(CHAT, openai_reply(fenced(STEP2)))
        verdict = verify_chain(request(), translator=engine(server))
        prompt = server.posted(CHAT)[1]["messages"][1]["content"]
    assert verdict.overall.value == "VERIFIED"
    assert verdict.step_verdicts[0].translator_spec.name == "llm-translator"
    assert "Step 1: Moby is a whale" in prompt and "Whale(moby)" in prompt  # ancestors shown with artifacts


@pytest.mark.parametrize(("reply", "kind_text"), [
    (openai_reply("Moby is a mammal because whales are mammals."), "no fenced block"),
    (openai_reply("```lean\ntheorem t : True := trivial\n```"), "no ```fol block (found: ```lean)"),
    (openai_reply('{"formal_representation": "∀x (Whale(x) → Mam', finish_reason="length"), "not closed"),
    (openai_reply("I'm sorry, but I can't assist with that request."), "refused"),
    (openai_reply(None, refusal="I'm sorry, I cannot assist with that request."), "the model refused"),
])
def test_malformed_output_is_a_clear_error_never_a_fake_artifact(reply, kind_text):
    with ReplayServer() as server:
        for _ in range(2):
            server.queue(CHAT, reply)
        one_step = request(reasoning_chain=WHALE["reasoning_chain"][:1])
        eng = engine(server, max_attempts=2)
        outcome = asyncio.run(eng.atranslate(one_step))
        verdict = verify_chain(one_step, translations=outcome.translations)
    translation, step = outcome.translations[0], outcome.steps[0]
    assert translation.formal_representation == "" and translation.translation_confidence == 0.0
    assert step.status == "error" and step.attempts == 2 and kind_text in step.message
    assert translation.notes.startswith("error: no usable artifact after 2 attempt(s)")
    assert verdict.step_verdicts[0].status is StepStatus.UNSUPPORTED and kind_text in verdict.step_verdicts[0].error_message


def test_a_translation_that_never_compiles_is_returned_as_such():
    with ReplayServer() as server:
        for _ in range(3):
            server.queue(CHAT, openai_reply(fenced("Whale(moby) ∧\n⊢ Mammal(moby)")))
        one_step = request(reasoning_chain=WHALE["reasoning_chain"][:1])
        outcome = asyncio.run(engine(server).atranslate(one_step))
        verdict = verify_chain(one_step, translations=outcome.translations)
    translation, step = outcome.translations[0], outcome.steps[0]
    assert step.status == "error" and step.attempts == 3 and step.compiled is False
    assert translation.formal_representation.startswith("Whale(moby) ∧") and not translation.compilation_check
    assert translation.notes.count("did not compile") == 3
    assert verdict.step_verdicts[0].status is StepStatus.ERROR  # the checker's own verdict on the artifact
    assert step.message in verdict.step_verdicts[0].error_message


def test_a_refuted_step_is_not_repaired():
    # the givens do not say that Moby is a whale, so the reader refutes the step (affirming the consequent)
    wrong = {**WHALE, "original_query": "All whales are mammals. Moby is a mammal.",
             "reasoning_chain": [{"step_id": 1, "content": "Moby is a mammal, so Moby is a whale."}]}
    with ReplayServer() as server:
        server.queue(CHAT, openai_reply(fenced("∀x (Whale(x) → Mammal(x))\nMammal(moby)\n⊢ Whale(moby)")))
        outcome = asyncio.run(engine(server).atranslate(request(wrong)))
        verdict = verify_chain(request(wrong), translations=outcome.translations)
        calls = len(server.posted(CHAT))
    assert calls == 1 and outcome.steps[0].status == "compiled"
    assert verdict.step_verdicts[0].status is StepStatus.FAILED


def test_a_model_artifact_resting_on_the_steps_own_unstated_sentence_is_conditional_naming_it():
    # The model proves the conclusion from the step's supporting sentence; the givens neither say nor contradict it,
    # so it is an assumption: the step is verified on conditional evidence naming it, the chain not VERIFIED.
    wrong = {**WHALE, "reasoning_chain": [{"step_id": 1, "content": "Moby is a fish and all fish are mammals, so "
                                                                      "Moby is a mammal."}]}
    with ReplayServer() as server:
        server.queue(CHAT, openai_reply(fenced("Fish(moby)\n∀x (Fish(x) → Mammal(x))\n⊢ Mammal(moby)")))
        outcome = asyncio.run(engine(server).atranslate(request(wrong)))
        verdict = verify_chain(request(wrong), translations=outcome.translations)
    step = verdict.step_verdicts[0]
    assert step.status is StepStatus.VERIFIED and step.evidence.kind == "conditional", step.error_message
    assert step.evidence.assumptions == ["Moby is a fish and all fish are mammals"]
    assert verdict.overall.value != "VERIFIED"


def test_quick_level_grounds_the_models_fol_to_propositional():
    with ReplayServer() as server:
        server.queue(CHAT, openai_reply(fenced(STEP1)))
        one_step = request(reasoning_chain=WHALE["reasoning_chain"][:1], proof_level="quick")
        outcome = asyncio.run(engine(server).atranslate(one_step))
        verdict = verify_chain(one_step, translations=outcome.translations)
    assert outcome.translations[0].language is ArtifactLanguage.PROPOSITIONAL
    assert verdict.overall.value == "VERIFIED"


def test_anthropic_forced_tool_json_mode_end_to_end():
    with ReplayServer() as server:
        server.queue(MESSAGES, anthropic_reply(tool_input={"formal_representation": STEP1, "dependencies": [],
                                                           "confidence": 0.8}, stop_reason="tool_use"))
        settings = ModelSettings(provider="anthropic", base_url=server.url, model="claude-sonnet-4-5", json_mode=True)
        one_step = request(reasoning_chain=WHALE["reasoning_chain"][:1])
        outcome = asyncio.run(TranslationEngine(AnthropicBackend(settings)).atranslate(one_step))
        sent = server.posted(MESSAGES)[0]
    assert outcome.steps[0].status == "verified" and outcome.translations[0].translation_confidence == 0.8
    assert sent["tool_choice"]["name"] == "submit_translation" and "JSON object" in sent["system"]


def test_a_model_error_ends_the_step_with_its_message():
    with ReplayServer() as server:
        server.queue(CHAT, {"error": {"message": "model not found", "type": "invalid_request_error"}}, status=404)
        one_step = request(reasoning_chain=WHALE["reasoning_chain"][:1])
        outcome = asyncio.run(engine(server).atranslate(one_step))
    assert outcome.steps[0].status == "error" and "HTTP 404 invalid_request_error: model not found" in outcome.steps[0].message


def test_offline_engine_is_the_rule_based_translator():
    outcome = asyncio.run(TranslationEngine().atranslate(request()))
    assert outcome.mode == "offline" and outcome.translator.name == "rule-based-logic"
    assert verify_chain(request(), translator=TranslationEngine()).overall.value == "VERIFIED"


def test_domains_not_listed_stay_offline():
    with ReplayServer() as server:
        eng = engine(server, domains=["mathematics"])
        outcome = asyncio.run(eng.atranslate(request()))
        assert outcome.mode == "offline" and server.requests == []


def test_translate_step_has_the_plans_signature():
    with ReplayServer() as server:
        server.queue(CHAT, openai_reply(fenced(STEP2, deps="1")))
        previous = [StepTranslation(step_id=1, original_content=WHALE["reasoning_chain"][0]["content"],
                                    formal_representation=STEP1, language="fol", compilation_check=True)]
        translation = asyncio.run(engine(server).translate_step(
            WHALE["reasoning_chain"][1], "logic", "standard", previous, WHALE["original_query"]))
        prompt = server.posted(CHAT)[0]["messages"][1]["content"]
    assert translation.step_id == 2 and translation.compilation_check and translation.dependencies == [1]
    assert "Whale(moby)" in prompt


def test_code_step_repair_in_the_sandbox():
    code = {"original_query": "Count how often each number occurs.", "domain": "code", "proof_level": "quick",
            "reasoning_chain": [{"step_id": 1, "content": "Use a dict: for each x, freq[x] = freq.get(x, 0) + 1."}]}
    good = ("def count(xs: list[int]) -> dict[int, int]:\n    \"\"\"Frequencies.\"\"\"\n    freq: dict[int, int] = {}\n"
            "    for x in xs:\n        freq[x] = freq.get(x, 0) + 1\n    return freq\n\n\n"
            "def test_count() -> None:\n    \"\"\"Counts repeats.\"\"\"\n    assert count([1, 2, 2]) == {1: 1, 2: 2}\n")
    with ReplayServer() as server:
        server.queue(CHAT, openai_reply(fenced(good.replace("def count(xs", "def count(xs:"), tag="python")))
        server.queue(CHAT, openai_reply(fenced(good, tag="python")))
        outcome = asyncio.run(engine(server).atranslate(request(code)))
    step = outcome.steps[0]
    if step.status == "unchecked":
        pytest.skip(f"sandbox unavailable: {step.message}")
    assert (step.status, step.attempts) == ("verified", 2)
    assert "syntax error" in outcome.translations[0].notes


@pytest.mark.skipif(shutil.which("coqc") is None, reason="coqc is not installed")
def test_coq_chain_gets_a_context_and_repairs_a_proof():
    maths = {"original_query": "Let x = 3 and y = 4. Find x + y.", "domain": "mathematics", "proof_level": "formal",
             "prover": "coq", "reasoning_chain": [{"step_id": 1, "content": "So x + y = 7."}]}
    context = "From Coq Require Import ZArith.\nOpen Scope Z_scope.\nDefinition x : Z := 3.\nDefinition y : Z := 4."
    bad = "From Coq Require Import ZArith.\nOpen Scope Z_scope.\nTheorem step1 : x + y = 7.\nProof. unfold x, y. reflexivty. Qed."
    with ReplayServer() as server:
        server.queue(CHAT, openai_reply(fenced(context.replace("Definition x", "Hypothesis x"), tag="coq")))
        server.queue(CHAT, openai_reply(fenced(context, tag="coq")))
        server.queue(CHAT, openai_reply(fenced(bad, tag="coq")))
        server.queue(CHAT, openai_reply(fenced(bad.replace("reflexivty", "reflexivity"), tag="coq")))
        outcome = asyncio.run(engine(server, limits=CheckLimits(timeout_s=60)).atranslate(request(maths)))
    unchecked = [s for s in (outcome.context, *outcome.steps) if s.status == "unchecked"]
    if unchecked:  # no sandbox, or coqc starved of CPU: the checker could not decide, nothing to assert
        pytest.skip(f"coq checker could not decide: {unchecked[0].message}")
    assert outcome.translations[0].step_id == 0 and outcome.context.attempts == 2
    assert "Hypothesis" in outcome.translations[0].notes
    assert (outcome.steps[0].status, outcome.steps[0].attempts) == ("verified", 2)
    verdict = verify_chain(request(maths), translations=outcome.translations)
    assert verdict.overall.value == "VERIFIED"


def test_sync_translate_chain_works_inside_a_running_event_loop():
    with ReplayServer() as server:
        server.queue(CHAT, openai_reply(fenced(STEP1)))
        one_step = request(reasoning_chain=WHALE["reasoning_chain"][:1])
        eng = engine(server)

        async def inside_a_service():
            return eng.translate_chain(one_step, {1: []})

        translations = asyncio.run(inside_a_service())
    assert translations[0].compilation_check and translations[0].language is ArtifactLanguage.FOL


JANET = {"original_query": "Janet's ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes "
                           "muffins with four. She sells the remainder for $2 per egg. How much does she make daily?",
         "domain": "mathematics", "proof_level": "quick",
         "reasoning_chain": [{"step_id": 1, "content": "She sells 16 - 3 - 4 = 9 eggs, so she makes 9 * 2 = $18."}]}


def test_the_question_is_formalised_in_independent_samples_from_the_question_alone():
    program = "```python\neggs = 16 - 3 - 4\nanswer = eggs * 2\n```"
    told = "```\neggs + 3 + 4 = 16\nanswer = eggs * 2\n```"
    with ReplayServer() as server:
        for reply in [program] * 3 + [told] * 3:
            server.queue(CHAT, openai_reply(reply))
        written = engine(server, question_samples=3).formalise_question(request(JANET))
        bodies = server.posted(CHAT)
    assert written.programs == ["eggs = 16 - 3 - 4\nanswer = eggs * 2"] * 3 and written.required == 2
    assert written.problem_models == ["eggs + 3 + 4 = 16\nanswer = eggs * 2"] * 3
    assert len(bodies) == 6  # the programs, then the problem models: asked for separately
    assert "Python program" in bodies[0]["messages"][0]["content"]
    assert "as equations, without solving it" in bodies[3]["messages"][0]["content"]
    for kind in (bodies[:3], bodies[3:]):
        sampled = [(b.get("temperature"), b.get("seed")) for b in kind]
        assert len(set(sampled)) == 3  # each sample at its own temperature or seed: not the same reply again
    for body in bodies:
        sent = " ".join(m["content"] for m in body["messages"])
        assert "16 eggs per day" in sent and "16 - 3 - 4 = 9" not in sent  # the chain is never shown


# GSM8K's own answers to the worked examples' problems (its training split)
_EXAMPLE_ANSWERS = {"Natalia": "72", "Betty": "5", "Mark": "35", "James": "624", "Weng": "10", "A deep-sea": "121"}


def test_every_worked_example_is_read_and_gives_the_datasets_answer():
    """The examples a small model copies must be right: each program computes, and each problem model forces, the
    answer GSM8K gives its problem, under the same reader and rules as the model's replies."""
    for messages, kind in ((question_messages("?"), "program"), (problem_messages("?"), "problem")):
        turns = messages[:-1]
        assert len(turns) >= 8 and messages[-1].content == "Problem: ?"
        for asked, reply in zip(turns[::2], turns[1::2], strict=True):
            problem = asked.content.removeprefix("Problem: ")
            body = reply.content.split("\n", 1)[1].rsplit("```", 1)[0]
            written = QuestionPrograms(programs=[body] if kind == "program" else [],
                                       problem_models=[body] if kind == "problem" else [], required=1,
                                       formaliser=Spec(name="examples", version="1"))
            read = question_model(problem, written)
            got = read.program_answer if kind == "program" else read.problem_answer
            want = next(a for start, a in _EXAMPLE_ANSWERS.items() if problem.startswith(start))
            assert got == want and not read.rejected, (kind, problem[:40], got, read.rejected)


def test_formalising_needs_a_model_and_a_maths_question():
    assert TranslationEngine().formalise_question(request(JANET)) is None  # offline
    with ReplayServer() as server:
        assert engine(server).formalise_question(request()) is None  # logic: nothing to formalise
        assert server.posted(CHAT) == []
    with pytest.raises(Exception, match="question_samples"):
        TranslationEngine(question_samples=0)
    with pytest.raises(Exception, match="question_agree"):
        TranslationEngine(question_samples=2, question_agree=3)


def test_an_endpoint_failure_while_formalising_is_one_model_error_in_strict_mode():
    from reasonforge.translate.llm import ModelError

    with ReplayServer() as server:
        server.queue(CHAT, {"error": {"message": "invalid api key", "type": "invalid_request_error"}}, status=401)
        with pytest.raises(ModelError, match="401|api key"):
            engine(server, strict=True).formalise_question(request(JANET))
        server.queue(CHAT, {"error": {"message": "invalid api key", "type": "invalid_request_error"}}, status=401)
        server.queue(CHAT, openai_reply("```python\nanswer = 16\n```"))
        written = engine(server, question_samples=2, question_agree=1).formalise_question(request(JANET))
    assert written.programs == ["", "answer = 16"]


def test_a_code_steps_examples_are_written_from_the_task_and_bare_signature_never_the_authors_words():
    code = {"original_query": "Return the largest element of a non-empty list.", "domain": "code",
            "reasoning_chain": [
                {"step_id": 1, "content": "Scan once, keeping the largest so far.\n```python\ndef largest(xs):\n"
                                          "    \"\"\"The largest element.\"\"\"\n    best = xs[0]\n    for x in xs:\n"
                                          "        best = x if x > best else best\n    return best\n```"},
                {"step_id": 2, "content": "This runs in linear time."}]}
    with ReplayServer() as server:
        server.queue(CHAT, openai_reply("```python\n>>> largest([3, 9, 2])\n9\n```"))
        written = engine(server).write_examples(request(code))
        [body] = server.posted(CHAT)
    assert written == {1: ">>> largest([3, 9, 2])\n9"}  # step 2 defines no function: nothing asked
    sent = " ".join(m["content"] for m in body["messages"])
    assert "def largest(xs):" in sent and "Return the largest element of a non-empty list." in sent
    assert "best = xs[0]" not in sent and "x > best" not in sent  # the implementation is never shown
    assert "The largest element." not in sent and "Scan once" not in sent  # nor the author's docstring or prose
    assert TranslationEngine().write_examples(request(code)) is None  # offline: no writer

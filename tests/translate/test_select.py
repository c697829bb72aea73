"""Choosing the translator: rules, model (strict about its endpoint) or ensemble, from the request, the command
line or the environment."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from reasonforge.errors import InputError
from reasonforge.pipeline.run import verify_chain
from reasonforge.translate.engine import TranslationEngine
from reasonforge.translate.ensemble import Ensemble
from reasonforge.translate.llm import ModelError, ModelSettings
from reasonforge.translate.logic import LogicTranslator
from reasonforge.translate.select import NO_MODEL, resolve_mode, translator_for
from reasonforge.types import Overall, TranslatorMode, VerifyRequest

from llm_replay import CHAT, ReplayServer, openai_reply

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
WHALE = VerifyRequest.model_validate_json((EXAMPLES / "whale.json").read_text())
ARTIFACT = ("∀x (Mammal(x) → WarmBlooded(x))\n∀x (Whale(x) → Mammal(x))\n⊢ ∀x (Whale(x) → WarmBlooded(x))")
REPLY = f"```fol\n{ARTIFACT}\n```\nDEPENDENCIES: none\nCONFIDENCE: 0.9"


def test_the_default_is_ensemble_with_a_model_endpoint_and_rules_without():
    assert resolve_mode(None, env={}) is TranslatorMode.RULES
    assert resolve_mode(None, env={"REASONFORGE_MODEL_BASE_URL": "http://127.0.0.1:1/v1"}) is TranslatorMode.ENSEMBLE
    assert resolve_mode("model", env={}) is TranslatorMode.MODEL
    with pytest.raises(InputError, match="unknown translator 'both'"):
        resolve_mode("both")


def test_each_mode_builds_its_translator():
    env = {"REASONFORGE_MODEL_BASE_URL": "http://127.0.0.1:1/v1"}
    assert isinstance(translator_for(WHALE, "rules", env=env).__class__, type)
    assert translator_for(WHALE, "rules", env=env).spec.name == LogicTranslator().spec.name
    model = translator_for(WHALE, "model", env=env)
    assert isinstance(model, TranslationEngine) and model.strict
    ensemble = translator_for(WHALE, None, env=env)
    assert isinstance(ensemble, Ensemble) and [type(m).__name__ for m in ensemble.members][1] == "TranslationEngine"
    asked = WHALE.model_copy(update={"translator": TranslatorMode.RULES})
    assert not isinstance(translator_for(asked, env=env), Ensemble)  # the request's own choice
    with pytest.raises(InputError, match="no model endpoint is configured"):
        translator_for(WHALE, "ensemble", env={})


def test_an_endpoint_that_does_not_answer_is_one_model_error_not_empty_steps():
    with ReplayServer() as server:
        server.queue(CHAT, {"error": {"message": "invalid api key", "type": "invalid_request_error"}}, status=401)
        settings = ModelSettings(base_url=f"{server.url}/v1", model="m", max_retries=0)
        with pytest.raises(ModelError, match="did not answer: HTTP 401 invalid_request_error: invalid api key"):
            verify_chain(WHALE, translator=translator_for(WHALE, "model", model=settings))


def test_the_model_mode_verifies_the_whale_through_a_served_model():
    with ReplayServer() as server:
        server.queue(CHAT, openai_reply(REPLY))
        settings = ModelSettings(base_url=f"{server.url}/v1", model="m", max_retries=0)
        verdict = verify_chain(WHALE, translator=translator_for(WHALE, "model", model=settings))
        alone = len(server.posted(CHAT))
        beside = verify_chain(WHALE, translator=translator_for(WHALE, "ensemble", model=settings))
        asked = len(server.posted(CHAT)) - alone
    assert verdict.overall is Overall.VERIFIED, verdict.step_verdicts[0].error_message
    assert alone == 1
    # beside the rules, which prove the step, the model is not asked: one proof is all the ensemble requires
    step = beside.step_verdicts[0]
    assert beside.overall is Overall.VERIFIED and asked == 0
    assert step.details["agreement"]["verified"] == 1 and "not asked" in step.details["agreement"]["by"][1]["message"]


def test_k_independent_samples_each_checked_and_m_of_them_must_prove_the_step():
    with ReplayServer() as server:
        server.queue(CHAT, openai_reply(REPLY))
        server.queue(CHAT, openai_reply(REPLY))
        settings = ModelSettings(base_url=f"{server.url}/v1", model="m", max_retries=0)
        translator = translator_for(WHALE, "ensemble", model=settings, samples=2, agree=3)
        assert isinstance(translator, Ensemble) and translator.min_agree == 3
        assert [m.spec.args.get("sample") for m in translator.members] == [None, 0, 1]
        verdict = verify_chain(WHALE, translator=translator)
        bodies = server.posted(CHAT)
    assert verdict.overall is Overall.VERIFIED
    assert verdict.step_verdicts[0].details["agreement"] | {"by": None} == {
        "translations": 3, "verified": 3, "failed": 0, "required": 3, "by": None}
    # the two samples were asked differently (a repeat of the same request would get the same reply back)
    assert len({(b.get("temperature"), b.get("seed")) for b in bodies}) == 2


def test_the_request_says_how_many_samples_and_the_caller_may_override_it():
    env = {"REASONFORGE_MODEL_BASE_URL": "http://127.0.0.1:1/v1"}
    asked = WHALE.model_copy(update={"translator": TranslatorMode.ENSEMBLE, "samples": 2, "agree": 2})
    translator = translator_for(asked, env=env)
    assert isinstance(translator, Ensemble) and len(translator.members) == 3 and translator.min_agree == 2
    assert isinstance(translator_for(asked, "model", env=env, samples=1, agree=1), TranslationEngine)
    with pytest.raises(InputError, match="--translator rules has one"):
        translator_for(asked, "rules", env=env)


def test_samples_and_agreement_out_of_range_are_input_errors():
    env = {"REASONFORGE_MODEL_BASE_URL": "http://127.0.0.1:1/v1"}
    with pytest.raises(InputError, match="--translator rules has one"):
        translator_for(WHALE, "rules", env=env, samples=2)
    with pytest.raises(InputError, match="agree must be between 1 and 3"):
        translator_for(WHALE, "ensemble", env=env, samples=2, agree=4)
    with pytest.raises(InputError, match="samples must be between 1 and 8"):
        translator_for(WHALE, "model", env=env, samples=9)
    single = translator_for(WHALE, "model", env=env, samples=1)
    assert isinstance(single, TranslationEngine)


def cli(*args, stdin=None):
    # The environment the suite's conftest cleaned: no model endpoint, no local model.
    return subprocess.run([sys.executable, "-m", "reasonforge.cli", *args], input=stdin, capture_output=True,
                          text=True, timeout=300, env=dict(os.environ))


def test_cli_translator_option_and_its_errors():
    whale = str(EXAMPLES / "whale.json")
    out = cli("verify", whale, "--translator", "model")
    assert out.returncode == 2 and NO_MODEL.split(":")[0] in out.stderr and "Traceback" not in out.stderr
    with ReplayServer() as server:
        server.queue("/v1/models", {"error": {"message": "invalid api key", "type": "auth"}}, status=401)
        out = cli("verify", whale, "--translator", "model", "--model", f"{server.url}/v1")
        assert out.returncode == 2 and "HTTP 401 auth: invalid api key" in out.stderr, out.stderr
        server.queue("/v1/models", {"object": "list", "data": [{"id": "local"}]})
        server.queue(CHAT, openai_reply(REPLY))
        out = cli("verify", whale, "--translator", "model", "--model", f"{server.url}/v1", "--json")
    assert out.returncode == 0, out.stdout + out.stderr
    assert json.loads(out.stdout)["step_verdicts"][0]["translator_spec"]["name"] == "llm-translator"
    supplied = cli("verify", str(EXAMPLES / "whale-smtlib.json"), "--translations",
                   str(EXAMPLES / "whale-smtlib.translations.json"), "--translator", "rules")
    assert supplied.returncode == 2 and "brings its own translations" in supplied.stderr
    out = cli("verify", whale, "--translator", "rules", "--samples", "2")
    assert out.returncode == 2 and "--translator rules has one" in out.stderr and "Traceback" not in out.stderr


# What the local 0.5B model first wrote for the whale step: it checks (the premise restated), but it is not the step.
RESTATED = ("```fol\n∀x (Mammal(x) → WarmBlooded(x))\n∀x (Whale(x) → Mammal(x))\n⊢ ∀x (Mammal(x) → WarmBlooded(x))\n```\n"
            "DEPENDENCIES: none\nCONFIDENCE: 0.9")


def test_an_artifact_that_checks_but_is_not_the_step_goes_back_to_the_model_with_the_gates_reason():
    with ReplayServer() as server:
        server.queue(CHAT, openai_reply(RESTATED)).queue(CHAT, openai_reply(REPLY))
        settings = ModelSettings(base_url=f"{server.url}/v1", model="m", max_retries=0)
        verdict = verify_chain(WHALE, translator=translator_for(WHALE, "model", model=settings))
        posted = server.posted(CHAT)
    assert verdict.overall is Overall.VERIFIED, verdict.step_verdicts[0].error_message
    assert len(posted) == 2  # one repair
    told = posted[1]["messages"][-1]["content"]
    assert "it is not this step" in told and "Whale(x) → WarmBlooded(x)" in told


def test_without_the_pipeline_the_engine_keeps_its_local_verdict():
    # The gate is the pipeline's: an engine used on its own (bench translate) does not hold artifacts to it.
    engine = translator_for(WHALE, "model", model=ModelSettings(base_url="http://127.0.0.1:1/v1", model="m"))
    assert engine.gate is None and engine.with_gate(lambda c, t, o: o).spec == engine.spec


PENGUIN = VerifyRequest.model_validate({
    "original_query": "All birds can fly. Penguins are birds.", "domain": "logic",
    "reasoning_chain": [{"step_id": 1, "content": "All birds can fly. Penguins are birds. Therefore penguins can fly."}]})
# what the 0.5B model wrote for it: a constant where the step has a predicate of penguins, and another conclusion
DROPPED_SUBJECT = "```fol\n∀x (Bird(x) → Flying)\n⊢ Flying\n```\nDEPENDENCIES: none\nCONFIDENCE: 0.9"


@pytest.mark.parametrize("mode", ["model", "ensemble"])
def test_the_penguin_syllogism_is_never_refuted_by_a_models_artifact_that_is_not_the_step(mode):
    with ReplayServer() as server:
        for _ in range(3):
            server.queue(CHAT, openai_reply(DROPPED_SUBJECT))
        settings = ModelSettings(base_url=f"{server.url}/v1", model="m", max_retries=0)
        verdict = verify_chain(PENGUIN, translator=translator_for(PENGUIN, mode, model=settings))
    (step,) = verdict.step_verdicts
    assert step.status.value == "unsupported", step.error_message
    shown = step.formal_representation if mode == "model" else step.details["agreement"]["by"][1]["artifact"]
    assert "Flying" in shown  # the model's artifact is kept, so the page shows what was checked

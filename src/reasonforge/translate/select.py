"""Which translator a chain sent without translations gets: `rules`, `model` or `ensemble` (DESIGN §3.3).

`rules` is the offline rule-based translator (`defaults.default_translator`). `model` is the model-backed
`TranslationEngine` in strict mode: an endpoint that cannot answer (unreachable, 401, no key, timeout) is one
`ModelError` for the whole chain, never a silent empty step. `ensemble` is both, each checked on its own and
agreed on per step (`pipeline.agreement`): the rules where they read the step, the model for the rest (and
both on every step when `agree` asks for more than one proof). With no mode asked: `ensemble` when a model
endpoint is configured, else `rules`. Asked for `model` or `ensemble` with no endpoint configured, the model
installed on this machine runs in process (`local_model`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from reasonforge.errors import InputError, ReasonForgeError
from reasonforge.translate.defaults import default_translator
from reasonforge.translate.ensemble import Ensemble
from reasonforge.translate.llm import ModelBackend, ModelSettings, make_backend, settings_from_env
from reasonforge.translate.local_model import local_settings
from reasonforge.translate.protocol import Translator
from reasonforge.translate.recorded import recorded
from reasonforge.types import CheckLimits, TranslatorMode, VerifyRequest

if TYPE_CHECKING:
    from reasonforge.translate.engine import TranslationEngine

__all__ = ["MAX_SAMPLES", "NO_MODEL", "model_backend", "resolve_mode", "sampled", "translator_for"]

MAX_SAMPLES = 8  # independent translations of one chain by the model: each costs a full translation

NO_MODEL = ("no model endpoint is configured and no local model is installed: run `make model`, or set "
            "REASONFORGE_MODEL_BASE_URL to an OpenAI-compatible server (vLLM, Ollama, llama.cpp, `reasonforge model "
            "serve`) or REASONFORGE_MODEL (`anthropic:NAME` with ANTHROPIC_API_KEY), or pass --model; or use "
            "--translator rules")


def resolve_mode(mode: TranslatorMode | str | None, env: Mapping[str, str] | None = None) -> TranslatorMode:
    """The mode asked for, or the default: ensemble when a model endpoint is configured, else rules."""
    if mode is not None:
        try:
            return TranslatorMode(mode)
        except ValueError:
            choices = ", ".join(m.value for m in TranslatorMode)
            raise InputError(f"unknown translator {mode!r}; choose one of {choices}", field="translator") from None
    return TranslatorMode.ENSEMBLE if settings_from_env(env=env) is not None else TranslatorMode.RULES


def translator_for(request: VerifyRequest, mode: TranslatorMode | str | None = None, *,
                   model: str | ModelSettings | None = None, env: Mapping[str, str] | None = None,
                   limits: CheckLimits | None = None, samples: int | None = None,
                   agree: int | None = None, record: str | Path | None = None,
                   replay: str | Path | None = None) -> Translator:
    """The translator for `request` in `mode` (default: `request.translator`, then `resolve_mode`); `model` is a
    URL or name (`--model`) or settings, else the REASONFORGE_MODEL* environment. With `samples` k > 1 the
    model translates the chain k times independently; a step is verified when `agree` of the translations
    (the rules' among them in `ensemble`) prove it and none refutes it. Both default to the request's, then 1.
    The model's replies are recorded into `record` or replayed from `replay` (`recorded`; default
    REASONFORGE_MODEL_RECORD / REASONFORGE_MODEL_REPLAY)."""
    samples = samples if samples is not None else (request.samples or 1)
    agree = agree if agree is not None else (request.agree or 1)
    if not 1 <= samples <= MAX_SAMPLES:
        raise InputError(f"samples must be between 1 and {MAX_SAMPLES}, not {samples}", field="samples")
    chosen = resolve_mode(mode if mode is not None else request.translator, env)
    if chosen is TranslatorMode.RULES:
        if samples > 1 or agree > 1:
            raise InputError("samples and agree count the model's translations; --translator rules has one",
                             field="samples")
        return default_translator(request.domain, level=request.proof_level, prover=request.prover)
    return sampled(request, chosen, _engine(model, env, limits, record, replay), samples=samples, agree=agree)


def sampled(request: VerifyRequest, mode: TranslatorMode, engine: TranslationEngine, *, samples: int = 1,
            agree: int = 1) -> Translator:
    """`engine` as `mode` asks (`model` or `ensemble`): `samples` independent translations by it (the rules'
    beside them in `ensemble`), a step verified when `agree` of them prove it and none refutes it."""
    engines: list[Translator] = [engine.sampled(i) for i in range(samples)] if samples > 1 else [engine]
    members = engines
    if mode is TranslatorMode.ENSEMBLE:
        try:
            members = [default_translator(request.domain, level=request.proof_level, prover=request.prover), *engines]
        except ReasonForgeError:  # e.g. formal Lean 4: no offline translator emits it, so the model alone
            pass
    if not 1 <= agree <= len(members):
        raise InputError(f"agree must be between 1 and {len(members)} (the translations: "
                         f"{'the rules and ' if len(members) > len(engines) else ''}{samples} model sample(s)), "
                         f"not {agree}", field="agree")
    if len(members) == 1:
        return members[0]
    return Ensemble(members, min_agree=agree)


def _engine(model: str | ModelSettings | None, env: Mapping[str, str] | None, limits: CheckLimits | None,
            record: str | Path | None, replay: str | Path | None) -> TranslationEngine:
    from reasonforge.translate.engine import TranslationEngine

    return TranslationEngine(model_backend(model, env, record=record, replay=replay), strict=True, limits=limits)


def model_backend(model: str | ModelSettings | None, env: Mapping[str, str] | None = None, *,
                  record: str | Path | None = None, replay: str | Path | None = None,
                  json_mode: bool = False) -> ModelBackend:
    """The model `model` names (else the REASONFORGE_MODEL* variables of `env`, default the environment, else
    the model installed here), recorded or replayed as asked (`recorded`); InputError (NO_MODEL) when there is
    none."""
    variables = os.environ if env is None else env

    def make() -> ModelBackend:
        asked = {"json_mode": True} if json_mode else {}
        settings = model if isinstance(model, ModelSettings) else settings_from_env(model, env=variables, **asked)
        if settings is None:  # no endpoint configured: the model installed on this machine, if any
            settings = local_settings()
        if settings is None:
            raise InputError(NO_MODEL, field="translator")
        return make_backend(settings)

    backend = recorded(make, record=record, replay=replay, env=variables)
    assert backend is not None  # `make` gives a backend or raises
    return backend

"""`reasonforge bench …`: benchmarks of the translation engine.

    reasonforge bench translate --data FILE [--domain logic|mathematics|code] [--model URL_OR_NAME]
        [--translator rules|model|ensemble] [--samples K] [--agree M] [--record DIR | --replay DIR] [--json]

The translator options are `verify`'s. Without `--translator`, the model runs when one is configured (`--model`,
else REASONFORGE_MODEL_BASE_URL / REASONFORGE_MODEL, key REASONFORGE_MODEL_API_KEY, or ANTHROPIC_API_KEY for
`anthropic:NAME`), else the offline rule-based translators, and the report says so; `--translator model` or
`ensemble` with none configured uses the model installed here. With `ensemble`, or `--samples` above 1, each
chain's verdict is the agreement of its independent translations (`pipeline.agreement`); the compile and repair
figures are then the first model translation's. Exit codes as in the main CLI: 0 ok, 2 input error.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from reasonforge.cli_errors import ReasonForgeTyper, require_finite
from reasonforge.errors import InputError
from reasonforge.types import TranslatorMode

app = ReasonForgeTyper(name="bench", help="Benchmarks: translation of benchmark reasoning into checked artifacts.",
                       no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)



class DomainChoice(str, Enum):
    logic = "logic"
    mathematics = "mathematics"
    code = "code"


class LevelChoice(str, Enum):
    quick = "quick"
    standard = "standard"
    formal = "formal"


class LogicFormatChoice(str, Enum):
    fol = "fol"
    smtlib = "smtlib"


@app.command()
def translate(
    data: Annotated[Path, typer.Option("--data", help="FOLIO, ProcessBench, HumanEval or MBPP JSONL (or a folder "
                                                      "of ProcessBench subsets), or VerifyRequest rows.")],
    domain: Annotated[DomainChoice | None, typer.Option("--domain", help="Check the data is of this domain.")] = None,
    model: Annotated[str | None, typer.Option("--model", help="OpenAI-compatible base URL, a model name, or "
                                                                "anthropic:NAME (default: environment).")] = None,
    level: Annotated[LevelChoice | None, typer.Option("--level", help="Proof level (default: the benchmark's).")] = None,
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="First N items (round-robin over files).")] = None,
    max_attempts: Annotated[int, typer.Option("--max-attempts", min=1, max=10, help="Model attempts per step.")] = 3,
    concurrency: Annotated[int, typer.Option("--concurrency", min=1, max=64,
                                             help="Items in flight (model runs; checks share 2 cores).")] = 4,
    logic_format: Annotated[LogicFormatChoice, typer.Option("--logic-format", help="What the model writes for logic.")]
    = LogicFormatChoice.fol,
    json_mode: Annotated[bool, typer.Option("--json-mode", help="Ask the model for a JSON object / forced tool call.")]
    = False,
    timeout: Annotated[float, typer.Option("--timeout", min=0.001, help="Per-check time limit in seconds.")] = 10.0,
    record: Annotated[Path | None, typer.Option("--record", file_okay=False, help=(
        "Write every model reply to this folder (default REASONFORGE_MODEL_RECORD), to replay the run with "
        "--replay."))] = None,
    replay: Annotated[Path | None, typer.Option("--replay", file_okay=False, help=(
        "Answer every model request from replies recorded with --record in this folder (default "
        "REASONFORGE_MODEL_REPLAY): no model needed."))] = None,
    translator: Annotated[TranslatorMode | None, typer.Option("--translator", help=(
        "Who translates: rules (offline), model, or ensemble (both, each checked, agreed per step). Default: the "
        "model when one is configured, else rules."))] = None,
    samples: Annotated[int | None, typer.Option("--samples", min=1, help=(
        "With a model: translate each chain this many times independently, each translation checked on its "
        "own."))] = None,
    agree: Annotated[int | None, typer.Option("--agree", min=1, help=(
        "How many translations (the rules' and the model's samples) must prove a step, none refuting it."))] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print exactly one JSON object.")] = False,
) -> None:
    """Translate every item, verify the translations, and report compile / verify rates and benchmark scores."""
    from reasonforge.bench.data import load_items
    from reasonforge.bench.run import (
        OFFLINE_NOTE,
        MemoRegistry,
        display_path,
        domain_of,
        render_report,
        run_bench,
    )
    from reasonforge.translate.engine import TranslationEngine
    from reasonforge.translate.llm import ModelBackend, make_backend, settings_from_env
    from reasonforge.translate.protocol import Translator
    from reasonforge.translate.recorded import RememberingBackend, recorded
    from reasonforge.translate.select import NO_MODEL, model_backend, sampled
    from reasonforge.types import CheckLimits, ProofLevel, VerifyRequest

    require_finite("--timeout", timeout, "number of seconds")
    fmt, items = load_items(data, level=ProofLevel(level.value) if level else None, limit=limit)
    found = domain_of(fmt, items)
    if domain is not None and found is not None and found.value != domain.value:
        raise InputError(f"--domain {domain.value} does not match the data: {display_path(data)} is "
                         f"{fmt} ({found.value})", field="domain")
    mode = TranslatorMode(translator) if translator is not None else None
    if mode is TranslatorMode.RULES and (record or replay or (samples or 1) > 1 or (agree or 1) > 1):
        raise InputError("--samples, --agree, --record and --replay are about the model's translations; "
                         "--translator rules has none", field="translator")
    backend: ModelBackend | None = None
    if mode in (TranslatorMode.MODEL, TranslatorMode.ENSEMBLE):
        backend = model_backend(model, record=record, replay=replay, json_mode=json_mode)
    elif mode is None:
        def make() -> ModelBackend | None:
            configured = settings_from_env(model, json_mode=json_mode)
            return make_backend(configured) if configured is not None else None

        backend = recorded(make, record=record, replay=replay, env=os.environ)
    if backend is None and (samples or agree):
        raise InputError(f"--samples and --agree count a model's translations, and no model is configured: "
                         f"{NO_MODEL}", field="samples")
    settings = getattr(backend, "settings", None)
    limits = CheckLimits(timeout_s=timeout)
    twice = backend is not None and (mode is TranslatorMode.ENSEMBLE or (samples or 1) > 1)
    if backend is not None and twice:
        backend = RememberingBackend(backend)  # the compile figures' translation is the ensemble's first sample
    engine = TranslationEngine(backend, max_attempts=max_attempts, logic_format=logic_format.value,
                               registry=MemoRegistry(), limits=limits, strict=backend is not None and mode is not None)
    agreeing: Callable[[VerifyRequest], Translator] | None = None
    if backend is not None and twice:
        chosen = mode or TranslatorMode.MODEL
        sampled(items[0].request, chosen, engine, samples=samples or 1, agree=agree or 1)  # the counts, checked now

        def agreeing(request: VerifyRequest) -> Translator:
            return sampled(request, chosen, engine, samples=samples or 1, agree=agree or 1)
    described = settings.describe() if settings is not None else OFFLINE_NOTE
    if backend is not None and settings is None:
        described = f"recorded replies ({backend.spec.name})"
    console = Console(stderr=True)
    if backend is None and not as_json:
        console.print(f"[yellow]{OFFLINE_NOTE}[/] (set --model or REASONFORGE_MODEL_BASE_URL / REASONFORGE_MODEL)",
                      highlight=False)

    def progress(done: int, total: int) -> None:
        if not as_json:
            print(f"\rbench translate: {done}/{total} items", end="", file=sys.stderr, flush=True)

    # an ensemble's members share one model, which answers one request at a time
    report = asyncio.run(run_bench(items, fmt, engine, data=display_path(data), model=described, limits=limits,
                                   concurrency=concurrency if backend is not None and agreeing is None else 1,
                                   progress=progress, agreeing=agreeing))
    if not as_json:
        print(file=sys.stderr)
    if as_json:
        sys.stdout.write(report.model_dump_json() + "\n")
    else:
        sys.stdout.write(render_report(report) + "\n")

"""`reasonforge forecast episode …`: run agents over dated questions, then analyse the run directory.

    reasonforge forecast episode run --questions data/agentic/questions.jsonl --corpus IDX --model retrieval --out RUN
    reasonforge forecast episode run --questions … --corpus IDX --model uniform --out RUN     # a second agent
    reasonforge forecast episode analyse RUN

A run directory holds `records.jsonl` (one EpisodeRecord per line, appended as episodes finish, so an
interrupted run resumes where it stopped), `advantages.jsonl` (GRPO advantages per (question, date)
group across every agent and sample in the directory), `predictions.jsonl` (the forecasts in the one
predictions format: a multi-class row per agent configuration × question × date, first sample only) and
`run.json` (how it was made: the questions file and corpus that `analyse` reopens for the evidence–reader
swap). Exit codes: 0 ok, 2 input error.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any, Literal, cast

import typer
from rich.console import Console
from rich.markup import escape

from reasonforge.cli_errors import ReasonForgeTyper, fail, require_finite
from reasonforge.errors import InputError
from reasonforge.forecast.numbers import fixed

app = ReasonForgeTyper(name="episode", help="Multi-date agentic forecasting episodes: run agents, analyse runs.",
                       no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)

OFFLINE_AGENTS = ("uniform", "market", "retrieval")

RuleName = Literal["brier", "log"]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]


def _split(values: list[str] | None) -> list[str]:
    return [part.strip() for value in values or [] for part in value.split(",") if part.strip()]


def make_agent(model: str, *, memory: bool, model_name: str | None = None, api_key_env: str = "OPENAI_API_KEY",
               temperature: float | None = None, max_tokens: int | None = None, timeout_s: float = 120.0) -> Any:
    """`uniform`, `market`, `retrieval`, or an OpenAI-compatible endpoint (base URL or model name)."""
    from reasonforge.forecast.agentic.agents import (
        MarketAgent,
        RetrievalHeuristicAgent,
        ToolCallingAgent,
        UniformAgent,
    )

    if model == "uniform":
        return UniformAgent()
    if model == "market":
        return MarketAgent()
    if model == "retrieval":
        return RetrievalHeuristicAgent()
    if "://" in model and not model.startswith(("http://", "https://")):
        raise InputError(f"--model {model!r} is a URL but not http:// or https://; give an OpenAI-compatible base "
                         "URL, a model name, or uniform / market / retrieval", field="model")
    return ToolCallingAgent(model, model_name, api_key_env, memory=memory, temperature=temperature,
                            max_tokens=max_tokens, timeout_s=timeout_s)


def reschedule(questions: list[Any], dates: list[str]) -> tuple[list[Any], int]:
    """Questions with their forecast dates replaced by `dates` (those before each resolution); and how many
    questions had no such date left (dropped)."""
    from reasonforge.forecast.agentic.corpus import parse_as_of

    if not dates:
        return questions, 0
    parsed = sorted({parse_as_of(d) for d in dates})
    kept = []
    for q in questions:
        usable = [d for d in parsed if d < q.resolution_date]
        if usable:
            kept.append(q.model_copy(update={"forecast_dates": usable}))
    return kept, len(questions) - len(kept)


@app.command()
def run(questions: Annotated[Path, typer.Option("--questions", help="Questions JSONL (records.Question rows).")],
        corpus: Annotated[Path, typer.Option("--corpus", help="Dated corpus index directory (`reasonforge corpus "
                                             "ingest`).")],
        model: Annotated[str, typer.Option("--model", help="uniform | market | retrieval | an OpenAI-compatible "
                                           "base URL or model name.")] = "retrieval",
        dates: Annotated[list[str] | None, typer.Option("--dates", help="Replace every schedule with these "
                                                           "ISO dates/datetimes (comma list; a bare date is "
                                                           "00:00 UTC; dates at or after a resolution are "
                                                           "dropped; use a fresh --out).")] = None,
        memory: Annotated[bool, typer.Option("--memory", help="Carry a belief notebook between dates.")] = False,
        out: Annotated[Path, typer.Option("--out", help="Run directory (resumable; shared by agents).")] = Path(
            "episode-run"),
        samples: Annotated[int, typer.Option("--samples", min=1, help="Episodes per question (GRPO group size "
                                             "with one agent).")] = 1,
        limit: Annotated[int | None, typer.Option("--limit", min=1, help="Only the first N questions.")] = None,
        rule: Annotated[str, typer.Option("--rule", help="Reward rule: brier or log.")] = "brier",
        max_rounds: Annotated[int, typer.Option("--max-rounds", min=0, help="Tool rounds per date.")] = 80,
        max_calls: Annotated[int, typer.Option("--max-calls", min=0, help="Tool calls per date.")] = 200,
        no_compute: Annotated[bool, typer.Option("--no-compute", help="Offer no Compute tool.")] = False,
        model_name: Annotated[str | None, typer.Option("--model-name", help="Model id when --model is a URL "
                                                          "(default: first of /models).")] = None,
        api_key_env: Annotated[str, typer.Option("--api-key-env", help="Environment variable holding the API "
                                                 "key.")] = "OPENAI_API_KEY",
        temperature: Annotated[float | None, typer.Option("--temperature", help="Sampling temperature sent with each "
                                                                      "request (default: the server's).")] = None,
        max_tokens: Annotated[int | None, typer.Option("--max-tokens", min=1, help="Reply token limit sent with each "
                                                                         "request (default: the server's).")] = None,
        timeout: Annotated[float, typer.Option("--timeout", min=0.1, help="Seconds per model request.")] = 120.0,
        as_json: JsonOpt = False) -> None:
    """Run one agent over the questions at their forecast dates; append episode records to the run directory."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    from reasonforge.forecast.agentic.corpus import DatedCorpus
    from reasonforge.forecast.agentic.episode import read_run_info, run_many, write_run_info
    from reasonforge.forecast.agentic.records import load_questions
    from reasonforge.forecast.agentic.tools import ToolBudget

    err = Console(stderr=True)
    try:
        require_finite("--timeout", timeout)
        require_finite("--temperature", temperature)
        if rule not in ("brier", "log"):
            raise InputError(f"--rule must be brier or log, got {rule!r}", field="rule")
        items = load_questions(questions)
        read_run_info(out)  # a damaged run.json stops the run before any episode, not after all of them
        items, dropped = reschedule(items, _split(dates))
        items = items[:limit] if limit else items
        if not items:
            raise InputError("no questions to run (check --questions, --dates and --limit)", field="questions")
        if dropped:
            err.print(f"[yellow]skipped[/] {dropped} question(s) resolving before every --dates date")
        index = DatedCorpus.open(corpus, create=False)
        agent = make_agent(model, memory=memory, model_name=model_name, api_key_env=api_key_env,
                           temperature=temperature, max_tokens=max_tokens, timeout_s=timeout)
        with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                      console=err, disable=as_json or not err.is_terminal, transient=True) as bar:
            task = bar.add_task(f"{agent.name} ({'memory' if memory else 'no memory'})", total=len(items) * samples)
            summary = run_many(items, agent, index, out, memory, samples=samples, rule=cast(RuleName, rule),
                               budget=ToolBudget(max_rounds=max_rounds, max_calls=max_calls),
                               compute=not no_compute, progress=lambda n: bar.advance(task, n))
        write_run_info(out, {"questions": str(questions.resolve()), "corpus": str(corpus.resolve()),
                             "model": model, "agent": agent.name, "memory": memory, "samples": samples,
                             "rule": rule, "dates": _split(dates), "limit": limit})
    except OSError as exc:
        raise fail(f"cannot write the run into {out}: {exc.strerror or exc}; choose a writable --out") from None
    if as_json:
        sys.stdout.write(summary.model_dump_json() + "\n")
        return
    Console().print(f"{summary.agent}: wrote {summary.episodes_written} episode(s), skipped {summary.episodes_skipped} "
                    f"already done; {summary.records_total} record(s), {summary.advantage_rows} advantage row(s) "
                    f"and {summary.prediction_rows} prediction row(s) in {escape(str(out))}", highlight=False)


def advantage_summary(rows: list[Any]) -> list[dict[str, Any]]:
    """Per (agent, memory): rows, mean reward, mean advantage, mean |advantage|, rows in groups of > 1."""
    by: dict[tuple[str, bool], list[Any]] = {}
    for row in rows:
        by.setdefault((row.agent, row.memory), []).append(row)
    out = []
    for (agent, memory), members in sorted(by.items()):
        n = len(members)
        out.append({"agent": agent, "memory": memory, "n": n,
                    "mean_reward": sum(r.reward for r in members) / n,
                    "mean_advantage": sum(r.advantage for r in members) / n,
                    "mean_abs_advantage": sum(abs(r.advantage) for r in members) / n,
                    "grouped": sum(r.group_size > 1 for r in members)})
    return out


def _run_info(run_dir: Path) -> dict[str, Any]:
    from reasonforge.forecast.agentic.episode import read_run_info

    info = read_run_info(run_dir)
    for key in ("questions", "corpus"):
        if info.get(key) is not None and not isinstance(info[key], str):
            raise InputError(f"{run_dir / 'run.json'}: '{key}' must be a path string; fix it or pass --{key}",
                             field="run_dir")
    return info


def config_label(config: tuple[str, bool]) -> str:
    """`agent` or `agent+memory` (the `model` of the run's predictions rows)."""
    from reasonforge.forecast.agentic.records import config_label as label

    return label(*config)


def pick_configs(configs: list[tuple[str, bool]], spec: str) -> list[tuple[str, bool]]:
    """The two configurations named in `--swap A,B` (labels as `config_label` writes them)."""
    by_label = {config_label(c): c for c in configs}
    names = [part.strip() for part in spec.split(",") if part.strip()]
    if any("/" in n and n not in by_label for n in names):
        # `--swap runs/a,runs/b` is a natural guess; the swap compares agents run into ONE directory
        raise InputError(f"--swap takes two agent configurations of this run ({', '.join(by_label)}), not run "
                         "directories; run both agents with the same --out, then e.g. --swap "
                         f"{','.join(list(by_label)[:2]) or 'retrieval,uniform'}", field="swap")
    if len(names) != 2 or any(n not in by_label for n in names) or names[0] == names[1]:
        raise InputError(f"--swap needs two different configurations of this run, e.g. "
                         f"{','.join(list(by_label)[:2])}; have {', '.join(by_label)}", field="swap")
    return [by_label[n] for n in names]


def swap_report(records: list[Any], questions_path: Path, corpus_path: Path, configs: list[tuple[str, bool]],
                resamples: int, seed: int) -> Any:
    """The evidence–reader swap between two agent configurations (first sample of each), readers BaseRateReader
    (the retrieval agent's), EvidenceReader and UniformReader."""
    from reasonforge.forecast.agentic.analysis import evidence_sets, reader_swap
    from reasonforge.forecast.agentic.corpus import DatedCorpus
    from reasonforge.forecast.agentic.readers import (
        BaseRateReader,
        EvidenceReader,
        UniformReader,
    )
    from reasonforge.forecast.agentic.records import load_questions

    questions = load_questions(questions_path)
    corpus = DatedCorpus.open(corpus_path, create=False)
    frozen = []
    for config in configs:
        seen: set[str] = set()
        firsts = []
        for r in records:
            if (r.agent, r.memory) == config and r.question_id not in seen:
                seen.add(r.question_id)
                firsts.append(r)
        frozen.append(evidence_sets(firsts, corpus))
    labels = tuple(config_label(c) for c in configs)
    return reader_swap(frozen[0], frozen[1], [BaseRateReader(), EvidenceReader(), UniformReader()], questions,
                       labels=labels, resamples=resamples, seed=seed)  # type: ignore[arg-type]


@app.command()
def analyse(run_dir: Annotated[Path, typer.Argument(help="Run directory written by `episode run`.")],
            questions: Annotated[Path | None, typer.Option("--questions", help="Questions JSONL for the swap "
                                                              "(default: from run.json).")] = None,
            corpus: Annotated[Path | None, typer.Option("--corpus", help="Corpus index for the swap (default: "
                                                           "from run.json).")] = None,
            resamples: Annotated[int, typer.Option("--resamples", min=0, help="Bootstrap resamples (by "
                                                   "question).")] = 1000,
            seed: Annotated[int, typer.Option("--seed", help="Bootstrap seed.")] = 0,
            swap: Annotated[str | None, typer.Option("--swap", help="The two configurations to swap, e.g. "
                                                     "'retrieval,uniform' or 'm+memory,m' (default: the first two "
                                                     "run).")] = None,
            as_json: JsonOpt = False) -> None:
    """Horizon table, reliability, advantages and (with two agents) the evidence–reader swap of a run."""
    from reasonforge.forecast.agentic.analysis import horizon_table, reliability_summary
    from reasonforge.forecast.agentic.episode import (
        ADVANTAGES,
        RECORDS,
        advantages,
        read_records,
    )

    records = read_records(run_dir / RECORDS)
    if not records:
        raise InputError(f"no episode records in {run_dir / RECORDS}; run `reasonforge forecast episode run "
                         f"--out {run_dir}` first", field="run_dir")
    info = _run_info(run_dir)
    table = horizon_table(records, resamples=resamples, seed=seed)
    reliability = reliability_summary(records)
    rows = advantages(records)
    adv = advantage_summary(rows)
    configs = list(dict.fromkeys((r.agent, r.memory) for r in records))  # in the order they were run
    pair = pick_configs(configs, swap) if swap else configs[:2]
    report = None
    swap_note = "one agent configuration in this run: no evidence–reader swap (run a second agent into it)"
    if len(pair) == 2:
        q_path = questions or (Path(info["questions"]) if info.get("questions") else None)
        c_path = corpus or (Path(info["corpus"]) if info.get("corpus") else None)
        if q_path is None or c_path is None:
            swap_note = "swap skipped: pass --questions and --corpus (run.json does not name them)"
        else:
            report = swap_report(records, q_path, c_path, pair, resamples, seed)
            swap_note = ""
    if as_json:
        body = {"run_dir": str(run_dir), "records": len(records), "configs": [list(c) for c in configs],
                "horizon": table.model_dump(mode="json"), "reliability": reliability.model_dump(mode="json"),
                "advantages": adv, "swap": report.model_dump(mode="json") if report else None}
        sys.stdout.write(json.dumps(body) + "\n")
        return
    out = [f"# Episode run {run_dir} — {len(records)} episode record(s), {len(configs)} configuration(s)", "",
           "## Scores by horizon (95 % CIs resample questions)", "", table.to_markdown(), "",
           "## Reliability (one-vs-rest)", "", reliability.to_markdown(), "",
           f"## GRPO advantages per (question, date) group ({run_dir / ADVANTAGES})", "",
           "| agent | memory | forecasts | mean reward | mean advantage | mean abs advantage | in groups > 1 |",
           "|---|---|---:|---:|---:|---:|---:|"]
    out += [f"| {a['agent']} | {'on' if a['memory'] else 'off'} | {a['n']} | {fixed(a['mean_reward'])} | "
            f"{fixed(a['mean_advantage'], sign=True)} | {fixed(a['mean_abs_advantage'])} | {a['grouped']} |"
            for a in adv]
    out += ["", "## Evidence–reader swap", ""]
    out.append(report.to_markdown() if report else swap_note)
    sys.stdout.write("\n".join(out) + "\n")


"""Dated episodes: one agent forecasts one question at each of its forecast dates, then everything is scored.

At each date the agent gets a fresh `Toolbox` bound to that date and the question's public view (never
the outcome). Memory off, every date starts empty; memory on, the previous date's notebook is passed on
after `rewards.check_notebook` accepted it (an invalid or missing notebook is dropped, the error recorded
in that date's `format_errors`, and the next date starts empty). Each date is scored with
`rewards.date_reward`, and every evidence id is checked against an independent lookup of its publication
time: anything published after the date raises `LeakError` (a bug, never a result).

`run_many` writes `records.jsonl` in a run directory one episode at a time and skips episodes already
there, so an interrupted run resumes; `advantages.jsonl` then holds GRPO advantages per (question, date)
group across every agent and sample in the directory. `predictions.jsonl` holds the same forecasts in the
one predictions format (`forecast.predictions`): one multi-class row per configuration × question × date
of the first sample, appended as episodes finish and rebuilt from the records when a run resumes.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from reasonforge.boundary.files import DOCUMENT_JSON
from reasonforge.boundary.jsontext import check_json, scan_json
from reasonforge.errors import InputError, not_utf8
from reasonforge.forecast.agentic.agents import Agent
from reasonforge.forecast.agentic.corpus import (
    DatedCorpus,
    DocumentNotAvailable,
    LeakError,
)
from reasonforge.forecast.agentic.grpo import group_advantages
from reasonforge.forecast.agentic.records import (
    DateForecast,
    EpisodeRecord,
    Notebook,
    Question,
    append_jsonl,
    config_label,
    first_error,
    forecast_id,
    horizon_days,
    save_jsonl,
)
from reasonforge.forecast.agentic.rewards import date_reward
from reasonforge.forecast.agentic.tools import Toolbox, ToolBudget
from reasonforge.forecast.predictions import PredictionRow, append_prediction, write_predictions

RECORDS = "records.jsonl"
ADVANTAGES = "advantages.jsonl"
PREDICTIONS = "predictions.jsonl"


def check_evidence(corpus: DatedCorpus, evidence: Sequence[str], as_of: datetime,
                   latest: datetime | None = None) -> None:
    """Raise LeakError unless every evidence id is a corpus document published at or before `as_of`.

    The lookup is independent of the toolbox's bound: each id is read as of the corpus's latest
    publication time, so a document the date bound should have hidden is found and caught here.
    """
    if not evidence:
        return
    horizon = latest or corpus.stats().last
    if horizon is None:
        raise LeakError(f"evidence {list(evidence)[:3]} recorded from an empty corpus")
    for doc_id in evidence:
        try:
            published = corpus.read(doc_id, horizon).published_at
        except DocumentNotAvailable:
            raise LeakError(f"evidence id {doc_id!r} is not a document of the corpus") from None
        if published > as_of:
            raise LeakError(f"evidence {doc_id!r} published {published.isoformat()} was exposed at "
                            f"{as_of.isoformat()}")


def run_episode(question: Question, agent: Agent, corpus: DatedCorpus, *, memory: bool,
                rule: Literal["brier", "log"] = "brier", budget: ToolBudget | None = None,
                compute: bool = True) -> EpisodeRecord:
    """Forecast `question` at each of its dates with `agent`, score each date, check the evidence bound."""
    if question.outcome_index is None:
        raise InputError(f"question {question.id} is not resolved (no outcome_index); only resolved questions "
                         "can be scored", field="outcome_index")
    latest = corpus.stats().last
    n = len(question.outcomes)
    notebook: Notebook | None = None
    forecasts: list[DateForecast] = []
    for date in question.forecast_dates:
        toolbox = Toolbox(corpus, date, budget, compute=compute)
        view = {**question.public_view(date), "memory": memory}
        reply = agent.forecast(view, date, toolbox, notebook if memory else None)
        scored = date_reward(reply.raw, n, question.outcome_index, rule=rule, require_notebook=memory, as_of=date)
        check_evidence(corpus, toolbox.evidence, date, latest)
        forecasts.append(DateForecast(
            question_id=question.id, date=date, horizon_days=horizon_days(date, question.resolution_date),
            raw=reply.raw, probs=scored.probs, format_ok=scored.format_ok,
            format_errors=[*reply.errors, *scored.errors], brier=scored.brier, log=scored.log, reward=scored.reward,
            tool_calls=toolbox.calls, tool_rounds=toolbox.rounds, evidence=toolbox.evidence,
            notebook=scored.notebook))
        notebook = scored.notebook if memory else None
    return EpisodeRecord(question_id=question.id, agent=agent.name, memory=memory, outcomes=list(question.outcomes),
                         outcome_index=question.outcome_index, forecasts=forecasts)


class AdvantageRow(BaseModel):
    """One dated forecast's reward and its GRPO advantage within its (question, date) group."""

    question_id: str
    date: datetime
    agent: str
    memory: bool
    sample: int
    reward: float
    advantage: float
    group_size: int


def read_records(path: Path) -> list[EpisodeRecord]:
    """Episode records of a run file; a torn last line (interrupted write) is ignored and redone."""
    records: list[EpisodeRecord] = []
    if not path.is_file():
        return records
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError:
        raise not_utf8(path, field="path") from None
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            records.append(EpisodeRecord.model_validate_json(check_json(line, what=f"{path}:{lineno}",
                                                                        limits=DOCUMENT_JSON)))
        except (ValidationError, InputError) as exc:
            if lineno == len(lines):
                continue  # a torn last line (interrupted write) is redone
            if isinstance(exc, InputError):
                raise
            raise InputError(f"{path}:{lineno}: not an episode record ({exc.errors()[0]['msg']}); "
                             "remove the line or start a new run directory", field="path") from None
    return records


def advantages(records: Sequence[EpisodeRecord], std_normalize: bool = False) -> list[AdvantageRow]:
    """GRPO advantages per (question, date) group over all records (agents × samples); a lone member gets 0."""
    groups: dict[tuple[str, datetime], list[tuple[EpisodeRecord, int, DateForecast]]] = defaultdict(list)
    samples: dict[tuple[str, str, bool], int] = defaultdict(int)
    for record in records:
        key = (record.question_id, record.agent, record.memory)
        sample = samples[key]
        samples[key] += 1
        for forecast in record.forecasts:
            groups[(record.question_id, forecast.date)].append((record, sample, forecast))
    rows: list[AdvantageRow] = []
    for (question_id, date), members in sorted(groups.items()):
        values = group_advantages([f.reward for _, _, f in members], std_normalize=std_normalize)
        for (record, sample, forecast), advantage in zip(members, values, strict=True):
            rows.append(AdvantageRow(question_id=question_id, date=date, agent=record.agent, memory=record.memory,
                                     sample=sample, reward=forecast.reward, advantage=advantage,
                                     group_size=len(members)))
    return rows


def prediction_rows(record: EpisodeRecord, run: str | None = None) -> list[PredictionRow]:
    """An episode's usable dated forecasts as predictions rows: id `question@date`, model the configuration label."""
    model = config_label(record.agent, record.memory)
    rows = []
    for f in record.forecasts:
        if f.probs is None:
            continue  # an unusable reply states no forecast; records.jsonl keeps it with its format errors
        try:
            rows.append(PredictionRow(id=forecast_id(record.question_id, f.date), probabilities=f.probs,
                                      outcomes=record.outcomes, model=model, run=run,
                                      reasoning=f.notebook.model_dump_json() if f.notebook else None))
        except ValidationError as exc:
            raise InputError(f"question {record.question_id!r} at {f.date.isoformat()} does not fit a predictions "
                             f"row ({first_error(exc)}); shorten the question id or outcome labels",
                             field="id") from None
    return rows


def first_samples(records: Sequence[EpisodeRecord]) -> list[EpisodeRecord]:
    """The first episode of each (question, agent, memory), in file order: what `predictions.jsonl` holds."""
    seen: set[tuple[str, str, bool]] = set()
    firsts = []
    for record in records:
        key = (record.question_id, record.agent, record.memory)
        if key not in seen:
            seen.add(key)
            firsts.append(record)
    return firsts


def run_name(out_dir: Path) -> str | None:
    """The `run` of a run directory's predictions rows: the directory's name."""
    return Path(out_dir).resolve().name or None


class RunSummary(BaseModel):
    """What one `run_many` call did."""

    out_dir: str
    agent: str
    memory: bool
    episodes_written: int
    episodes_skipped: int
    records_total: int
    advantage_rows: int
    prediction_rows: int = 0


def run_many(questions: Sequence[Question], agent: Agent, corpus: DatedCorpus, out_dir: Path, memory: bool, *,
             samples: int = 1, rule: Literal["brier", "log"] = "brier", budget: ToolBudget | None = None,
             compute: bool = True, std_normalize: bool = False,
             progress: Callable[[int], None] | None = None) -> RunSummary:
    """Run `samples` episodes of `agent` per question into `out_dir/records.jsonl` (resumable: episodes already
    recorded for this agent and memory setting are skipped), then rewrite `out_dir/advantages.jsonl`."""
    if samples < 1:
        raise InputError(f"samples must be at least 1, got {samples}", field="samples")
    unresolved = [q.id for q in questions if q.outcome_index is None]
    if unresolved:
        raise InputError(f"{len(unresolved)} question(s) are not resolved (e.g. {unresolved[0]}); only resolved "
                         "questions can be scored", field="outcome_index")
    tick = progress or (lambda n: None)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / RECORDS
    existing = read_records(path)
    done: dict[str, int] = defaultdict(int)
    for record in existing:
        if record.agent == agent.name and record.memory == memory:
            done[record.question_id] += 1
    _rewrite_clean(path)
    run = run_name(out_dir)
    # predictions.jsonl is derived from records.jsonl: rebuilding it here means a run interrupted between the
    # two appends (or made before the file existed) resumes with exactly one row per forecast, never two
    write_predictions(out_dir / PREDICTIONS, [row for r in first_samples(existing) for row in prediction_rows(r, run)])
    written = skipped = 0
    with (out_dir / PREDICTIONS).open("a", encoding="utf-8") as predictions:
        for question in questions:
            have = min(done[question.id], samples)
            skipped += have
            tick(have)
            for _ in range(samples - have):
                record = run_episode(question, agent, corpus, memory=memory, rule=rule, budget=budget,
                                     compute=compute)
                append_jsonl(path, record)
                if done[question.id] == 0:  # later samples stay in records.jsonl: one forecast per item and date
                    for row in prediction_rows(record, run):
                        append_prediction(predictions, row)
                done[question.id] += 1
                written += 1
                tick(1)
    records = read_records(path)
    rows = advantages(records, std_normalize=std_normalize)
    save_jsonl(out_dir / ADVANTAGES, rows)
    n_predictions = sum(len(prediction_rows(r, run)) for r in first_samples(records))
    return RunSummary(out_dir=str(out_dir), agent=agent.name, memory=memory, episodes_written=written,
                      episodes_skipped=skipped, records_total=len(records), advantage_rows=len(rows),
                      prediction_rows=n_predictions)


def _rewrite_clean(path: Path) -> None:
    """Drop a torn last line left by an interrupted run, so appends start on a fresh line."""
    if not path.is_file():
        return
    text = path.read_text(encoding="utf-8")
    if not text or text.endswith("\n"):
        return
    kept = text[: text.rfind("\n") + 1] if "\n" in text else ""
    path.write_text(kept, encoding="utf-8")


def read_run_info(out_dir: Path) -> dict[str, Any]:
    """The run directory's run.json as an object ({} when there is none); a damaged file is an InputError."""
    path = Path(out_dir) / "run.json"
    if not path.is_file():
        return {}
    try:
        text = path.read_text(encoding="utf-8")
        scan_json(text, str(path), DOCUMENT_JSON)  # depth, repeated keys, NaN: refused before decoding
        info = json.loads(text)
    except UnicodeDecodeError:
        raise not_utf8(path, field="run_dir") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg}); fix or delete it", field="run_dir") from None
    if not isinstance(info, dict):
        raise InputError(f"{path}: must hold a JSON object, got {type(info).__name__}; fix or delete it",
                         field="run_dir")
    return info


def write_run_info(out_dir: Path, info: dict[str, object]) -> None:
    """Remember how the run was made (questions file, corpus, agents) for `episode analyse`."""
    path = Path(out_dir) / "run.json"
    current = read_run_info(out_dir)
    runs = current.get("runs", [])
    if not isinstance(runs, list):
        raise InputError(f"{path}: 'runs' must be a list; fix or delete the file", field="run_dir")
    runs.append(info)
    current.update({k: v for k, v in info.items() if k in ("questions", "corpus")})
    current["runs"] = runs
    path.write_text(json.dumps(current, indent=2, default=str) + "\n", encoding="utf-8")

"""Analysis of episode runs: scores by horizon, calibration, and the evidence–reader swap.

Every confidence interval here is a percentile bootstrap (95 %) that resamples *questions* (events),
not forecasts: the forecasts of one question at several dates share one outcome and are not independent.
The resampling itself is `forecast.metrics.bootstrap_sums` (multinomial draws of questions, seeded).

Conventions: `brier` is the multi-class Brier loss (0..2, lower is better); `log` is the floored log
score ln(max(p_y, 10⁻³)) (≤ 0, higher is better); `accuracy` credits 1/k when the outcome is among k
tied top probabilities. An unusable forecast scores Brier 2, log ln 10⁻³ and accuracy 0.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Hashable, Mapping, Sequence
from datetime import datetime
from typing import Protocol

import numpy as np
from numpy.typing import NDArray
from pydantic import BaseModel, Field

from reasonforge.errors import InputError
from reasonforge.forecast.agentic.corpus_types import Document, LeakError
from reasonforge.forecast.agentic.readers import Reader
from reasonforge.forecast.agentic.records import (
    EpisodeRecord,
    Question,
    as_utc,
    check_probability_vector,
)
from reasonforge.forecast.agentic.rewards import (
    LOG_FLOOR,
    floored_log_score,
    multiclass_brier_loss,
)
from reasonforge.forecast.calibration import CalibrationReport, calibration_report
from reasonforge.forecast.metrics import MetricCI, bootstrap_sums, group_sums
from reasonforge.forecast.numbers import fixed

BUCKETS = ("<3", "3-7", "7-14", ">14")
"""Horizon buckets in days before resolution: [0, 3), [3, 7), [7, 14], (14, ∞) — 3 and 7 open a bucket,
14 closes one (so "> 14" means strictly more than 14 days, as written)."""

LEVEL = 0.95


def horizon_bucket(days: float) -> str:
    """The bucket of a horizon in days: h < 3, 3 ≤ h < 7, 7 ≤ h ≤ 14, h > 14."""
    if not math.isfinite(days):
        raise InputError(f"horizon {days} is not a finite number of days", field="horizon_days")
    if days < 3:
        return "<3"
    if days < 7:
        return "3-7"
    if days <= 14:
        return "7-14"
    return ">14"


def tie_split_accuracy(probs: Sequence[float] | None, outcome_index: int) -> float:
    """1/k when the outcome is among the k outcomes with the top probability, else 0; unusable → 0."""
    if probs is None:
        return 0.0
    top = max(probs)
    winners = [i for i, p in enumerate(probs) if p >= top - 1e-12]
    return 1.0 / len(winners) if outcome_index in winners else 0.0


def forecast_scores(probs: Sequence[float] | None, outcome_index: int) -> tuple[float, float, float]:
    """(Brier loss, floored log score, tie-split accuracy) of one forecast; unusable → (2, ln 10⁻³, 0)."""
    if probs is None:
        return 2.0, math.log(LOG_FLOOR), 0.0
    return (multiclass_brier_loss(probs, outcome_index), floored_log_score(probs, outcome_index),
            tie_split_accuracy(probs, outcome_index))


def _ci(point_num: float, point_den: float, boot_num: NDArray[np.float64] | None,
        boot_den: NDArray[np.float64] | None) -> MetricCI:
    """Ratio estimate with a percentile interval over the resamples where the denominator is positive."""
    if point_den <= 0:
        return MetricCI(value=None)
    value = float(point_num / point_den)
    if boot_num is None or boot_den is None:
        return MetricCI(value=value)
    ok = boot_den > 0
    if not ok.any():
        return MetricCI(value=value)
    ratios = boot_num[ok] / boot_den[ok]
    tail = (1.0 - LEVEL) / 2.0 * 100.0
    low, high = np.percentile(ratios, [tail, 100.0 - tail])
    return MetricCI(value=value, ci_low=float(low), ci_high=float(high))


def _fmt(m: MetricCI, digits: int = 3) -> str:
    if m.value is None:
        return "–"
    if m.ci_low is None or m.ci_high is None:
        return fixed(m.value, digits)
    return f"{fixed(m.value, digits)} [{fixed(m.ci_low, digits)}, {fixed(m.ci_high, digits)}]"


def _question_index(keys: Sequence[Hashable]) -> tuple[NDArray[np.int64], int]:
    order: dict[Hashable, int] = {}
    idx = np.array([order.setdefault(k, len(order)) for k in keys], dtype=np.int64)
    return idx, len(order)


def _bootstrap(comp: NDArray[np.float64], qidx: NDArray[np.int64], nq: int, resamples: int,
               seed: int) -> tuple[NDArray[np.float64], NDArray[np.float64] | None]:
    """Point column sums and resampled column sums (questions drawn with replacement)."""
    per_q = group_sums(comp, qidx, nq) if nq else np.zeros((0, comp.shape[1]))
    totals = per_q.sum(axis=0)
    if resamples <= 0 or nq == 0:
        return totals, None
    return totals, bootstrap_sums(per_q, resamples, seed, method="multinomial")


# ---------------------------------------------------------------------------------------------- horizon


class HorizonRow(BaseModel):
    """Scores of one agent configuration in one horizon bucket ("all" = every bucket)."""

    agent: str
    memory: bool
    bucket: str
    n: int = Field(description="forecasts")
    n_questions: int
    brier: MetricCI
    log: MetricCI
    accuracy: MetricCI


class HorizonTable(BaseModel):
    """Brier / log / accuracy by horizon bucket with question-bootstrap CIs, per (agent, memory)."""

    resamples: int
    seed: int
    rows: list[HorizonRow]

    def to_markdown(self) -> str:
        """A Markdown table (95 % CIs in brackets)."""
        lines = ["| agent | memory | horizon (days) | n | questions | Brier ↓ | log score ↑ | accuracy ↑ |",
                 "|---|---|---|---:|---:|---|---|---|"]
        for r in self.rows:
            lines.append(f"| {r.agent} | {'on' if r.memory else 'off'} | {r.bucket} | {r.n} | {r.n_questions} | "
                         f"{_fmt(r.brier)} | {_fmt(r.log)} | {_fmt(r.accuracy)} |")
        return "\n".join(lines)


def _configs(records: Sequence[EpisodeRecord]) -> dict[tuple[str, bool], list[EpisodeRecord]]:
    groups: dict[tuple[str, bool], list[EpisodeRecord]] = defaultdict(list)
    for r in records:
        groups[(r.agent, r.memory)].append(r)
    return dict(sorted(groups.items()))


def horizon_table(records: Sequence[EpisodeRecord], resamples: int = 1000, seed: int = 0) -> HorizonTable:
    """Scores by horizon bucket (and overall) for each (agent, memory), with CIs resampling questions."""
    if resamples < 0:
        raise InputError(f"resamples must be ≥ 0, got {resamples}", field="resamples")
    names = (*BUCKETS, "all")
    rows: list[HorizonRow] = []
    for (agent, memory), recs in _configs(records).items():
        # Columns per bucket: n, Brier, log, accuracy; "all" last.
        comp_rows, keys, bucket_qs = [], [], defaultdict(set)
        for rec in recs:
            for f in rec.forecasts:
                b = BUCKETS.index(horizon_bucket(f.horizon_days))
                values = np.array([1.0, *forecast_scores(f.probs, rec.outcome_index)])
                row = np.zeros(4 * len(names))
                row[4 * b:4 * b + 4] = values
                row[-4:] = values
                comp_rows.append(row)
                keys.append(rec.question_id)
                bucket_qs[BUCKETS[b]].add(rec.question_id)
                bucket_qs["all"].add(rec.question_id)
        if not comp_rows:
            continue
        qidx, nq = _question_index(keys)
        totals, boot = _bootstrap(np.array(comp_rows), qidx, nq, resamples, seed)
        for j, name in enumerate(names):
            c = 4 * j
            n = int(totals[c])
            if n == 0:
                continue
            den_b = boot[:, c] if boot is not None else None
            metrics = [_ci(totals[c + m], totals[c], boot[:, c + m] if boot is not None else None, den_b)
                       for m in (1, 2, 3)]
            rows.append(HorizonRow(agent=agent, memory=memory, bucket=name, n=n,
                                   n_questions=len(bucket_qs[name]), brier=metrics[0], log=metrics[1],
                                   accuracy=metrics[2]))
    return HorizonTable(resamples=resamples, seed=seed, rows=rows)


# ---------------------------------------------------------------------------------------------- calibration


class ReliabilityEntry(BaseModel):
    """Calibration of one agent configuration, in two one-vs-rest views.

    `classwise`: every (p_k, 1[k = outcome]) pair of every forecast pooled (n outcomes per forecast), so
    its Murphy decomposition is of the summed one-vs-rest Brier score, which is the multi-class Brier / n.
    `top_label`: (max_k p_k, 1[argmax = outcome]) per forecast — is the stated confidence in the favourite
    right? Unusable forecasts are counted as unparsed, not binned.
    """

    agent: str
    memory: bool
    classwise: CalibrationReport
    top_label: CalibrationReport


class ReliabilitySummary(BaseModel):
    """Reliability tables and Murphy decompositions per (agent, memory)."""

    bins: int
    entries: list[ReliabilityEntry]

    def to_markdown(self) -> str:
        """Summary lines: ECE and Brier = reliability − resolution + uncertainty for each view."""
        lines = ["| agent | memory | view | n | ECE | Brier | reliability | resolution | uncertainty |",
                 "|---|---|---|---:|---:|---:|---:|---:|---:|"]
        for e in self.entries:
            for view, rep in (("classwise", e.classwise), ("top-label", e.top_label)):
                m = rep.murphy
                cells = ([fixed(m.brier), fixed(m.reliability), fixed(m.resolution), fixed(m.uncertainty)]
                         if m else ["–"] * 4)
                ece = fixed(rep.ece, missing="–")
                lines.append(f"| {e.agent} | {'on' if e.memory else 'off'} | {view} | {rep.n} | {ece} | "
                             + " | ".join(cells) + " |")
        return "\n".join(lines)


def reliability_summary(records: Sequence[EpisodeRecord], bins: int = 10) -> ReliabilitySummary:
    """One-vs-rest reliability (classwise and top-label) with Murphy decomposition, per (agent, memory)."""
    if bins < 1:
        raise InputError(f"bins must be ≥ 1, got {bins}", field="bins")
    entries = []
    for (agent, memory), recs in _configs(records).items():
        cls_p: list[float] = []
        cls_o: list[float] = []
        top_p: list[float] = []
        top_o: list[float] = []
        for rec in recs:
            n = len(rec.outcomes)
            for f in rec.forecasts:
                if f.probs is None:
                    cls_p.extend([math.nan] * n)
                    cls_o.extend([0.0] * n)
                    top_p.append(math.nan)
                    top_o.append(0.0)
                    continue
                cls_p.extend(f.probs)
                cls_o.extend(1.0 if k == rec.outcome_index else 0.0 for k in range(n))
                best = max(range(n), key=f.probs.__getitem__)
                top_p.append(f.probs[best])
                top_o.append(1.0 if best == rec.outcome_index else 0.0)
        entries.append(ReliabilityEntry(agent=agent, memory=memory, classwise=calibration_report(cls_p, cls_o, bins),
                                        top_label=calibration_report(top_p, top_o, bins)))
    return ReliabilitySummary(bins=bins, entries=entries)


# ---------------------------------------------------------------------------------------------- reader swap

EvidenceKey = tuple[str, datetime]
"""(question_id, forecast date) — the date is the `as_of` the evidence was gathered at."""


class SwapScore(BaseModel):
    """Mean Brier loss of one reader on one evidence set."""

    reader: str
    evidence: str
    brier: MetricCI


class Gain(BaseModel):
    """A Brier reduction (positive = the first thing named is better) with its question-bootstrap CI."""

    kind: str = Field(description="acquisition or reporting")
    reader: str = Field(description="reader name, 'R1 vs R2' for reporting, or 'mean over readers'")
    evidence: str = Field(description="'A vs B' for acquisition; the fixed evidence set (or 'mean') for reporting")
    gain: MetricCI


class SwapReport(BaseModel):
    """Evidence–reader swap: readers scored on two frozen evidence sets.

    Acquisition gain = Brier(reader, B) − Brier(reader, A): what A's evidence buys at fixed reporting
    (averaged over readers for the headline). Reporting gain = Brier(R2, E) − Brier(R1, E) at fixed
    evidence E: what reader R1's reporting buys over R2's. Both are Brier reductions (higher = better).
    """

    evidence_labels: tuple[str, str]
    readers: list[str]
    n_items: int
    n_questions: int
    n_unmatched: int = Field(description="(question, date) keys present in only one evidence set (skipped)")
    resamples: int
    seed: int
    scores: list[SwapScore]
    acquisition: list[Gain]
    reporting: list[Gain]

    def to_markdown(self) -> str:
        """Three Markdown tables: scores, acquisition gains, reporting gains."""
        a, b = self.evidence_labels
        lines = [(f"Evidence sets: {a} vs {b}; {self.n_items} (question, date) items on {self.n_questions} "
                 f"questions ({self.n_unmatched} unmatched skipped); 95 % CIs resample questions."), "",
                 "| reader | evidence | Brier ↓ |", "|---|---|---|"]
        lines += [f"| {s.reader} | {s.evidence} | {_fmt(s.brier)} |" for s in self.scores]
        for title, gains in (("Acquisition gain (Brier reduction from better evidence, fixed reader)",
                              self.acquisition),
                             ("Reporting gain (Brier reduction from better reporting, fixed evidence)",
                              self.reporting)):
            lines += ["", f"**{title}**", "", "| reader | evidence | gain ↑ |", "|---|---|---|"]
            lines += [f"| {g.reader} | {g.evidence} | {_fmt(g.gain, 4)} |" for g in gains]
        return "\n".join(lines)


def _key(key: tuple[str, datetime | str]) -> EvidenceKey:
    qid, when = key
    if isinstance(when, str):
        try:
            when = datetime.fromisoformat(when)
        except ValueError:
            raise InputError(f"evidence key date {when!r} is not an ISO datetime", field="evidence") from None
    try:
        return qid, as_utc(when, "evidence date")
    except ValueError as exc:
        raise InputError(str(exc), field="evidence") from None


def reader_swap(evidence_a: Mapping[tuple[str, datetime], Sequence[Document]],
                evidence_b: Mapping[tuple[str, datetime], Sequence[Document]],
                readers: Sequence[Reader], questions: Sequence[Question], *, labels: tuple[str, str] = ("A", "B"),
                resamples: int = 1000, seed: int = 0) -> SwapReport:
    """Score every reader on both evidence sets (keys present in both); report acquisition and reporting gains."""
    if not readers:
        raise InputError("reader_swap needs at least one reader", field="readers")
    names = [r.name for r in readers]
    if len(set(names)) != len(names):
        raise InputError(f"reader names must be unique, got {names}", field="readers")
    by_id = {q.id: q for q in questions}
    ea = {_key(k): v for k, v in evidence_a.items()}
    eb = {_key(k): v for k, v in evidence_b.items()}
    keys = sorted(set(ea) & set(eb))
    unmatched = len(set(ea) ^ set(eb))
    losses = np.zeros((len(keys), len(readers), 2))
    for i, (qid, when) in enumerate(keys):
        q = by_id.get(qid)
        if q is None:
            raise InputError(f"evidence refers to question {qid!r}, which is not among the questions given",
                             field="questions")
        if q.outcome_index is None:
            raise InputError(f"question {qid!r} is not resolved (outcome_index is null); it cannot be scored",
                             field="outcome_index")
        for j, reader in enumerate(readers):
            for s, docs in enumerate((ea[(qid, when)], eb[(qid, when)])):
                probs = reader.forecast(q, when, docs)
                try:
                    check_probability_vector(probs, len(q.outcomes), f"reader {reader.name!r} forecast", 1e-6)
                except ValueError as exc:
                    raise InputError(str(exc), field="readers") from None
                losses[i, j, s] = multiclass_brier_loss(probs, q.outcome_index)
    return _swap_report(keys, losses, names, labels, unmatched, resamples, seed)


def _swap_report(keys: Sequence[EvidenceKey], losses: NDArray[np.float64], names: list[str], labels: tuple[str, str],
                 unmatched: int, resamples: int, seed: int) -> SwapReport:
    a, b = labels
    n_r = len(names)
    columns: list[NDArray[np.float64]] = []
    specs: list[tuple[str, str, str, str]] = []  # (table, reader, evidence, kind)
    for j, name in enumerate(names):
        for s, label in enumerate(labels):
            columns.append(losses[:, j, s])
            specs.append(("score", name, label, ""))
    acq = losses[:, :, 1] - losses[:, :, 0]
    for j, name in enumerate(names):
        columns.append(acq[:, j])
        specs.append(("gain", name, f"{a} vs {b}", "acquisition"))
    columns.append(acq.mean(axis=1))
    specs.append(("gain", "mean over readers", f"{a} vs {b}", "acquisition"))
    for i in range(n_r):
        for j in range(i + 1, n_r):
            rep = losses[:, j, :] - losses[:, i, :]
            for s, label in enumerate(labels):
                columns.append(rep[:, s])
                specs.append(("gain", f"{names[i]} vs {names[j]}", label, "reporting"))
            columns.append(rep.mean(axis=1))
            specs.append(("gain", f"{names[i]} vs {names[j]}", "mean", "reporting"))
    comp = np.column_stack([np.ones(len(keys)), *columns]) if len(keys) else np.zeros((0, 1 + len(columns)))
    qidx, nq = _question_index([k[0] for k in keys])
    totals, boot = _bootstrap(comp, qidx, nq, resamples, seed)
    scores: list[SwapScore] = []
    acquisition: list[Gain] = []
    reporting: list[Gain] = []
    for c, (table, reader, evidence, kind) in enumerate(specs, start=1):
        m = _ci(totals[c], totals[0], None if boot is None else boot[:, c], None if boot is None else boot[:, 0])
        if table == "score":
            scores.append(SwapScore(reader=reader, evidence=evidence, brier=m))
        else:
            (acquisition if kind == "acquisition" else reporting).append(
                Gain(kind=kind, reader=reader, evidence=evidence, gain=m))
    return SwapReport(evidence_labels=labels, readers=names, n_items=len(keys), n_questions=nq,
                      n_unmatched=unmatched, resamples=resamples, seed=seed, scores=scores,
                      acquisition=acquisition, reporting=reporting)


class DocumentSource(Protocol):
    """Anything that reads a document as of a date (a `DatedCorpus`)."""

    def read(self, doc_id: str, as_of: datetime) -> Document:
        """The document, if published by `as_of`."""
        ...


def evidence_sets(records: Sequence[EpisodeRecord], corpus: DocumentSource) -> dict[EvidenceKey, list[Document]]:
    """Freeze the evidence of episode records: (question_id, date) → the documents the agent searched/read.

    Each id is read back at the forecast date; an id the corpus will not return at that date means a
    document reached the agent that it should not have seen, which is a LeakError, not a gap to skip.
    Pass the records of one agent configuration (keys of several would collide).
    """
    out: dict[EvidenceKey, list[Document]] = {}
    for rec in records:
        for f in rec.forecasts:
            key = (rec.question_id, f.date)
            if key in out:
                raise InputError(f"two records cover question {rec.question_id!r} at {f.date.isoformat()}; pass one "
                                 "agent configuration at a time", field="records")
            docs = []
            for doc_id in dict.fromkeys(f.evidence):
                try:
                    docs.append(corpus.read(doc_id, f.date))
                except InputError as exc:
                    raise LeakError(f"evidence {doc_id!r} of question {rec.question_id!r} at {f.date.isoformat()} "
                                    f"cannot be read at that date: {exc.message}") from exc
            out[key] = docs
    return out

"""The agent's tools for one (question, forecast date): Search, Read and Compute, bound to `as_of`.

Every corpus access goes through `DatedCorpus.search/read` with the toolbox's `as_of`, and every result
is re-checked here (a document published after `as_of` raises `LeakError`: that is a bug, never a
tool error). Mistakes the caller can make — malformed JSON arguments, a missing or mistyped field, an
unknown tool, an unavailable document, a spent budget — come back as `ToolResult(ok=False)` with a
specific message, so a model can correct itself; nothing the model sends can raise.

Documented sizes: Search returns at most `SEARCH_MAX_K` hits; Read returns at most `READ_MAX_CHARS`
characters of a document's text, Compute at most `COMPUTE_MAX_CHARS` characters of each of stdout and
stderr (cut text ends with a marker saying how much was cut). Budget per date (AlphaBet B.3): 80 tool
rounds (one model turn's batch of calls) and 200 tool calls; past either, calls are refused and the
agent must answer.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from reasonforge.boundary.jsontext import JsonLimits, load_json
from reasonforge.errors import InputError, ReasonForgeError
from reasonforge.forecast.agentic.corpus import (
    DatedCorpus,
    Document,
    LeakError,
    SearchHit,
)
from reasonforge.forecast.agentic.records import as_utc

_ARGUMENTS_JSON = JsonLimits(max_depth=8)  # a tool's arguments are a flat object
SEARCH_MAX_K = 10
SEARCH_DEFAULT_K = 5
QUERY_MAX_CHARS = 500
DOC_ID_MAX_CHARS = 200
READ_MAX_CHARS = 4000
"""Read shows at most this many characters of a document's text (the paper's agents read full articles;
4,000 characters keeps a 200-call date within a long-context model's window)."""
CODE_MAX_CHARS = 20_000
COMPUTE_MAX_CHARS = 2000
"""Compute shows at most this many characters of each of stdout and stderr."""
COMPUTE_CPU_S = 10
COMPUTE_MEMORY_MB = 4096
COMPUTE_WALL_S = 30

SEARCH, READ, COMPUTE = "search", "read", "compute"


class ToolBudget(BaseModel):
    """Per-date limits: tool rounds (model turns with calls) and individual tool calls."""

    max_rounds: int = Field(default=80, ge=0)
    max_calls: int = Field(default=200, ge=0)


class ToolResult(BaseModel):
    """What one tool call returned: text for the model, plus the document ids it exposed."""

    name: str
    ok: bool
    content: str
    truncated: bool = False
    doc_ids: list[str] = Field(default_factory=list)


def truncate(text: str, limit: int) -> tuple[str, bool]:
    """`text` cut to `limit` characters with a marker naming how much was cut."""
    if len(text) <= limit:
        return text, False
    return f"{text[:limit]}\n[… truncated: showing {limit} of {len(text)} characters]", True


def _stamp(moment: datetime) -> str:
    return as_utc(moment).strftime("%Y-%m-%d %H:%M:%S UTC")


def _schemas(compute: bool, cpu_s: float = COMPUTE_CPU_S) -> list[dict[str, Any]]:
    tools: list[dict[str, Any]] = [
        {"type": "function", "function": {
            "name": SEARCH,
            "description": ("Full-text search over news published up to the forecast date (nothing later is "
                            f"searchable). Returns up to k hits (k ≤ {SEARCH_MAX_K}) ranked by "
                            "relevance, each with id, publication time, title and a snippet."),
            "parameters": {"type": "object", "additionalProperties": False, "required": ["query"], "properties": {
                "query": {"type": "string", "description": f"keywords (≤ {QUERY_MAX_CHARS} characters)"},
                "k": {"type": "integer", "minimum": 1, "maximum": SEARCH_MAX_K,
                      "description": f"number of hits (default {SEARCH_DEFAULT_K})"}}}}},
        {"type": "function", "function": {
            "name": READ,
            "description": (f"Read a document by id (from search results). Shows at most {READ_MAX_CHARS} "
                            "characters of its text; documents published after the forecast date are unavailable."),
            "parameters": {"type": "object", "additionalProperties": False, "required": ["doc_id"], "properties": {
                "doc_id": {"type": "string", "description": "a document id from search results"}}}}},
    ]
    if compute:
        tools.append({"type": "function", "function": {
            "name": COMPUTE,
            "description": (f"Run a Python 3 program (standard library only; no network, {cpu_s:g} s CPU, "
                            f"{COMPUTE_MEMORY_MB // 1024} GiB memory) and see its exit code, stdout and stderr "
                            f"(each cut to {COMPUTE_MAX_CHARS} characters). Print what you want to see."),
            "parameters": {"type": "object", "additionalProperties": False, "required": ["code"], "properties": {
                "code": {"type": "string", "description": f"Python source (≤ {CODE_MAX_CHARS} characters)"}}}}})
    return tools


class _ArgumentError(Exception):
    """A call's arguments are unusable; the message goes back to the model."""


def _arguments(arguments: str | Mapping[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    """Decode and check arguments against a tool's parameter schema (required, known, typed)."""
    if isinstance(arguments, str):
        try:
            value = load_json(arguments, what="the arguments", limits=_ARGUMENTS_JSON) if arguments.strip() else {}
        except InputError as exc:  # a model wrote them: bounded in depth before decoding, repeated keys refused
            raise _ArgumentError(f"{exc.message}; send a JSON object such as {{\"query\": \"...\"}}") from None
    else:
        value = arguments
    if not isinstance(value, Mapping):
        raise _ArgumentError(f"arguments must be a JSON object, got {type(value).__name__}")
    properties: dict[str, Any] = spec["properties"]
    unknown = sorted(set(value) - set(properties))
    if unknown:
        raise _ArgumentError(f"unknown argument(s) {unknown}; allowed: {sorted(properties)}")
    missing = [name for name in spec["required"] if name not in value]
    if missing:
        raise _ArgumentError(f"missing required argument(s) {missing}")
    for name, item in value.items():
        kind = properties[name]["type"]
        # bool is an int subclass in Python; JSON true is not an integer.
        if kind == "integer" and (isinstance(item, bool) or not isinstance(item, int)):
            raise _ArgumentError(f"argument '{name}' must be an integer, got {json.dumps(item)[:40]}")
        if kind == "string" and not isinstance(item, str):
            raise _ArgumentError(f"argument '{name}' must be a string, got {json.dumps(item)[:40]}")
    return dict(value)


class Toolbox:
    """Search, Read and Compute for one (question, date), bound to `as_of`, with a per-date budget.

    `call` is one round of one call; `call_batch` is one round of several calls (one model turn).
    `evidence` lists, in first-seen order, every document id a search hit or a successful read exposed;
    `documents` holds the successfully read documents (what a tool-free reader can be given).
    """

    def __init__(self, corpus: DatedCorpus, as_of: datetime, budget: ToolBudget | None = None, *,
                 compute: bool = True, compute_cpu_s: float = COMPUTE_CPU_S) -> None:
        self.corpus = corpus
        self.as_of = as_utc(as_of, "as_of")
        self.budget = budget or ToolBudget()
        self.compute_enabled = compute
        self.compute_cpu_s = compute_cpu_s
        self.calls = 0
        self.rounds = 0
        self.refused = 0
        self.documents: dict[str, Document] = {}
        self._evidence: dict[str, datetime] = {}
        self._schemas = _schemas(compute, compute_cpu_s)
        self._params = {tool["function"]["name"]: tool["function"]["parameters"] for tool in self._schemas}

    @property
    def evidence(self) -> list[str]:
        """Document ids exposed so far (search hits and reads), first-seen order."""
        return list(self._evidence)

    @property
    def evidence_published(self) -> dict[str, datetime]:
        """Publication time the corpus reported for each evidence id."""
        return dict(self._evidence)

    @property
    def exhausted(self) -> bool:
        """No further round or call is allowed: the agent must answer."""
        return self.rounds >= self.budget.max_rounds or self.calls >= self.budget.max_calls

    def budget_note(self) -> str:
        """One line on what is left, for prompts."""
        return (f"tool budget: {self.rounds}/{self.budget.max_rounds} rounds and "
                f"{self.calls}/{self.budget.max_calls} calls used")

    def schemas(self) -> list[dict[str, Any]]:
        """The tools in the OpenAI function-calling format (`tools=` of a chat request)."""
        return json.loads(json.dumps(self._schemas))

    def call(self, name: str, arguments: str | Mapping[str, Any]) -> ToolResult:
        """Run one call as its own round."""
        return self.call_batch([(name, arguments)])[0]

    def call_batch(self, calls: Sequence[tuple[str, str | Mapping[str, Any]]]) -> list[ToolResult]:
        """Run one round of calls (a model turn); calls past the budget are refused, not run."""
        if not calls:
            return []
        if self.rounds >= self.budget.max_rounds:
            return [self._refuse(name, "rounds") for name, _ in calls]
        self.rounds += 1
        results = []
        for name, arguments in calls:
            if self.calls >= self.budget.max_calls:
                results.append(self._refuse(name, "calls"))
                continue
            self.calls += 1
            results.append(self._run(name, arguments))
        return results

    def _refuse(self, name: str, what: str) -> ToolResult:
        self.refused += 1
        limit = self.budget.max_rounds if what == "rounds" else self.budget.max_calls
        return ToolResult(name=str(name), ok=False, content=(
            f"refused: the tool budget for this date is spent ({limit} tool {what}); no further tool calls "
            "will run. Give your final forecast now."))

    def _run(self, name: str, arguments: str | Mapping[str, Any]) -> ToolResult:
        params = self._params.get(name) if isinstance(name, str) else None
        if params is None:
            return ToolResult(name=str(name), ok=False,
                              content=f"error: unknown tool {str(name)[:60]!r}; available: {sorted(self._params)}")
        try:
            args = _arguments(arguments, params)
            if name == SEARCH:
                return self._search(args)
            if name == READ:
                return self._read(args)
            return self._compute(args)
        except _ArgumentError as exc:
            return ToolResult(name=name, ok=False, content=f"error: {exc}")

    def _search(self, args: dict[str, Any]) -> ToolResult:
        query = args["query"].strip()
        k = args.get("k", SEARCH_DEFAULT_K)
        if not query:
            raise _ArgumentError("argument 'query' is empty; send some keywords")
        if len(query) > QUERY_MAX_CHARS:
            raise _ArgumentError(f"argument 'query' has {len(query)} characters; the limit is {QUERY_MAX_CHARS}")
        if not 1 <= k <= SEARCH_MAX_K:
            raise _ArgumentError(f"argument 'k' must be between 1 and {SEARCH_MAX_K}, got {k}")
        try:
            hits = self.corpus.search(query, self.as_of, k=k)
        except LeakError:
            raise
        except ReasonForgeError as exc:
            return ToolResult(name=SEARCH, ok=False, content=f"error: {exc.message}")
        for hit in hits:
            self._check(hit)
        if not hits:
            return ToolResult(name=SEARCH, ok=True, content=f"no documents published by {_stamp(self.as_of)} "
                              f"match {query!r}; try other keywords")
        lines = [f"{len(hits)} hit(s) published by {_stamp(self.as_of)}:"]
        for rank, hit in enumerate(hits, start=1):
            lines.append(f"[{rank}] id={hit.id} | {_stamp(hit.published_at)} | {hit.title}\n    {hit.snippet}")
        return ToolResult(name=SEARCH, ok=True, content="\n".join(lines), doc_ids=[hit.id for hit in hits])

    def _read(self, args: dict[str, Any]) -> ToolResult:
        doc_id = args["doc_id"].strip()
        if not doc_id or len(doc_id) > DOC_ID_MAX_CHARS:
            raise _ArgumentError(f"argument 'doc_id' must be 1 to {DOC_ID_MAX_CHARS} characters; "
                                 "use an id from search results")
        try:
            doc = self.corpus.read(doc_id, self.as_of)
        except InputError as exc:  # DocumentNotAvailable included: one message for unknown and not-yet-published
            return ToolResult(name=READ, ok=False, content=f"error: {exc.message}")
        self._check(doc)
        self.documents.setdefault(doc.id, doc)
        text, cut = truncate(doc.text, READ_MAX_CHARS)
        head = [f"id: {doc.id}", f"title: {doc.title}", f"published: {_stamp(doc.published_at)}"]
        head += [f"source: {doc.source}"] if doc.source else []
        head += [f"url: {doc.url}"] if doc.url else []
        return ToolResult(name=READ, ok=True, content="\n".join(head) + "\n\n" + text, truncated=cut,
                          doc_ids=[doc.id])

    def _compute(self, args: dict[str, Any]) -> ToolResult:
        code = args["code"]
        if not code.strip():
            raise _ArgumentError("argument 'code' is empty; send a Python program that prints its result")
        if len(code) > CODE_MAX_CHARS:
            raise _ArgumentError(f"argument 'code' has {len(code)} characters; the limit is {CODE_MAX_CHARS}")
        # Imported here: the bubblewrap helpers load only when code actually runs.
        from reasonforge.verify import sandbox

        limits = sandbox.Limits(cpu_s=self.compute_cpu_s, wall_s=max(COMPUTE_WALL_S, 3 * self.compute_cpu_s),
                                memory_mb=COMPUTE_MEMORY_MB, processes=32, output_bytes=64 * 1024)
        try:
            result = sandbox.run_sandboxed([sandbox.sandbox_python(), "-I", "main.py"], {"main.py": code}, limits)
        except sandbox.SandboxUnavailable as exc:
            return ToolResult(name=COMPUTE, ok=False, content=f"error: Compute is unavailable here: {exc.message}")
        stdout, cut_out = truncate(result.stdout, COMPUTE_MAX_CHARS)
        stderr, cut_err = truncate(result.stderr, COMPUTE_MAX_CHARS)
        status = f"exit code {result.exit_code}" if result.signal is None else f"killed by signal {result.signal}"
        notes = [name for name, hit in (("CPU time limit", result.cpu_exceeded), ("wall-clock limit", result.timed_out),
                                        ("memory limit", result.memory_exceeded)) if hit]
        if notes:
            status += " (" + ", ".join(notes) + " exceeded)"
        content = f"{status}\nstdout:\n{stdout}\nstderr:\n{stderr}"
        return ToolResult(name=COMPUTE, ok=result.ok, content=content,
                          truncated=cut_out or cut_err or result.output_truncated)

    def _check(self, item: SearchHit | Document) -> None:
        """Re-check the corpus's date bound; record the id as evidence."""
        published = as_utc(item.published_at, "published_at")
        if published > self.as_of:
            raise LeakError(f"document {item.id} published {published.isoformat()} reached a toolbox bound to "
                            f"{self.as_of.isoformat()}")
        self._evidence.setdefault(item.id, published)

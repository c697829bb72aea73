"""A dated news corpus on a tantivy index: search and read can never return a document published after `as_of`.

The date bound is enforced twice. It is part of every tantivy query (a range on `published_at` ≤ `as_of`,
ANDed with the text query), and every document that comes back is re-checked against `as_of` before
anything of it — title, snippet, text — reaches the caller; a violation raises `LeakError`, because it
can only be a bug (it is never filtered out silently). Snippets are cut from the already-checked document.

Query text is untrusted (it comes from models): it is never given to tantivy's query parser. It is split
into words by the same analyzer that indexed the text (English stemming) and turned into term queries on
title and text, so field syntax such as `published_at:[* TO *]` is just the words "published", "at".

Ingest is incremental and atomic per call (one commit; an exception rolls back). Duplicates are dropped:
the same content (SHA-256 of case-folded, whitespace-collapsed title and text), or the same normalised URL
on the same UTC day (a URL seen on a later day is a new version of the page; the news sample also cites
one article from several dated events). An id that already holds different content is an error in the
report, never an overwrite. All dedup state lives in the index itself, so it cannot drift from it.

Time rules (day-level dates, whole seconds, naive datetimes) are in `corpus_types`.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

import tantivy
from pydantic import ValidationError

from reasonforge.boundary.files import read_limited
from reasonforge.boundary.jsontext import load_json
from reasonforge.errors import InputError
from reasonforge.forecast.agentic.corpus_io import ADAPTERS, Adapter, load_articles
from reasonforge.forecast.agentic.corpus_types import (
    CorpusStats,
    Document,
    DocumentNotAvailable,
    IngestReport,
    LeakError,
    SearchHit,
    check_as_of,
    parse_as_of,
)

__all__ = [
    "ADAPTERS",
    "Adapter",
    "CorpusStats",
    "DatedCorpus",
    "Document",
    "DocumentNotAvailable",
    "IngestReport",
    "LeakError",
    "SearchHit",
    "content_hash",
    "date_bound",
    "load_articles",
    "normalise_url",
    "parse_as_of",
    "query_analyzer",
    "query_terms",
    "recheck_visible",
    "text_query",
]

SCHEMA_VERSION = 1
MANIFEST_NAME = "reasonforge-corpus.json"
MAX_MANIFEST_BYTES = 1024 * 1024  # a manifest is a few hundred bytes of counts and names
MANIFEST_FORMAT = "reasonforge.dated_corpus"
MAX_K = 1000
MAX_QUERY_TERMS = 64
"""Longer queries keep their first 64 distinct words (bounds the cost of one search)."""
SNIPPET_CHARS = 240
TITLE_BOOST = 2.0
TEXT_TOKENIZER = "en_stem"  # tantivy built-in: simple split, drop tokens > 40 bytes, lowercase, English stemmer
WRITER_HEAP_BYTES = 64_000_000
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_TRACKING_PARAM = re.compile(r"^(utm_[a-z]+|fbclid|gclid|mc_cid|mc_eid|cmpid|ocid)$")


def _schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("id", stored=True, tokenizer_name="raw")
    builder.add_text_field("title", stored=True, tokenizer_name=TEXT_TOKENIZER)
    builder.add_text_field("text", stored=True, tokenizer_name=TEXT_TOKENIZER)
    builder.add_text_field("source", stored=True, tokenizer_name="raw")
    builder.add_text_field("url", stored=True, tokenizer_name="raw", index_option="basic")
    builder.add_text_field("url_key", stored=False, tokenizer_name="raw", index_option="basic")
    builder.add_text_field("content_hash", stored=True, tokenizer_name="raw", index_option="basic")
    builder.add_date_field("published_at", stored=True, indexed=True, fast=True)
    return builder.build()


def query_analyzer() -> tantivy.TextAnalyzer:
    """The analyzer matching the index's `en_stem` tokenizer, for turning query text into index terms."""
    return (tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
            .filter(tantivy.Filter.remove_long(40))
            .filter(tantivy.Filter.lowercase())
            .filter(tantivy.Filter.stemmer("english"))
            .build())


def query_terms(query: str, analyzer: tantivy.TextAnalyzer | None = None) -> list[str]:
    """Distinct index terms of `query` in order of first appearance, at most `MAX_QUERY_TERMS`."""
    terms = dict.fromkeys((analyzer or query_analyzer()).analyze(query))
    return list(terms)[:MAX_QUERY_TERMS]


def text_query(schema: tantivy.Schema, terms: list[str]) -> tantivy.Query:
    """BM25 disjunction of the terms over text and (boosted) title; built from terms, never parsed."""
    clauses: list[tuple[tantivy.Occur, tantivy.Query]] = []
    for term in terms:
        clauses.append((tantivy.Occur.Should, tantivy.Query.term_query(schema, "text", term)))
        title = tantivy.Query.term_query(schema, "title", term)
        clauses.append((tantivy.Occur.Should, tantivy.Query.boost_query(title, TITLE_BOOST)))
    return tantivy.Query.boolean_query(clauses)


def date_bound(schema: tantivy.Schema, as_of: datetime) -> tantivy.Query:
    """Documents with `published_at` ≤ `as_of` (floored to the index's whole seconds; dates are whole seconds)."""
    upper = check_as_of(as_of).replace(microsecond=0)
    return tantivy.Query.range_query(schema, "published_at", tantivy.FieldType.Date, None, upper, include_upper=True)


def recheck_visible(item: Document | SearchHit, as_of: datetime) -> None:
    """Raise LeakError unless `item` was published at or before `as_of` (an unverifiable date counts as a leak)."""
    as_of = check_as_of(as_of)
    published = item.published_at
    if published.tzinfo is None or published.utcoffset() is None or published > as_of:
        raise LeakError(f"corpus bug: document {item.id!r} published {published.isoformat()} was about to be "
                        f"returned for as_of {as_of.isoformat()}; nothing after as_of may leave the corpus")


def normalise_url(url: str) -> str:
    """Host (lowercase, no `www.`, no default port) + path (no trailing slash) + sorted non-tracking query."""
    url = url.strip()
    if not url:
        return ""
    parts = urlsplit(url if "://" in url else "//" + url)
    host = (parts.hostname or "").removeprefix("www.")
    if not host:
        return url
    try:
        port = parts.port
    except ValueError:
        port = None
    netloc = host if port in (None, 80, 443) else f"{host}:{port}"
    query = sorted((k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
                   if not _TRACKING_PARAM.match(k.lower()))
    path = parts.path.rstrip("/")
    return netloc + path + ("?" + urlencode(query) if query else "")


def content_hash(title: str, text: str) -> str:
    """SHA-256 of case-folded, whitespace-collapsed title and text: the same article re-scraped hashes equal."""
    canonical = " ".join(title.split()).casefold() + "\x1f" + " ".join(text.split()).casefold()
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _url_key(doc: Document) -> str:
    url = normalise_url(doc.url)
    return f"{url} {doc.published_at.date().isoformat()}" if url else ""


def _first(stored: dict[str, list[Any]], name: str, default: Any = "") -> Any:
    values = stored.get(name) or [default]
    return values[0]


def _from_stored(stored: tantivy.Document) -> Document:
    fields = stored.to_dict()
    return Document(id=_first(fields, "id"), title=_first(fields, "title"), text=_first(fields, "text"),
                    source=_first(fields, "source"), url=_first(fields, "url"),
                    published_at=_first(fields, "published_at", None))


def _snippet(generator: tantivy.SnippetGenerator, stored: tantivy.Document, text: str, limit: int) -> str:
    fragment = generator.snippet_from_doc(stored).fragment().strip()
    if not fragment:  # only the title matched: show the opening of the text
        if len(text) <= limit:
            return text
        cut = text[:limit]
        return (cut[: cut.rindex(" ")] if " " in cut else cut) + "…"
    start = text.find(fragment)
    if start < 0:
        return fragment + "…"
    rest = text[start + len(fragment):]
    # tantivy trims the closing punctuation off a fragment that reaches the end: give it back, not "…"
    ending = rest.rstrip() if not rest.strip(" .!?;:,\"'”’)") else "…"
    return ("…" if start > 0 else "") + fragment + ending


def _manifest(index_dir: Path) -> dict[str, Any]:
    path = index_dir / MANIFEST_NAME
    try:
        manifest = load_json(read_limited(path, what="corpus manifest", field="index", max_bytes=MAX_MANIFEST_BYTES),
                             what=f"corpus manifest {path}")
    except InputError as exc:
        raise InputError(f"{exc}; the corpus manifest is unreadable: rebuild the index with "
                         "`reasonforge corpus ingest FILE --index DIR` into a new directory", field="index") from None
    if not isinstance(manifest, dict) or manifest.get("format") != MANIFEST_FORMAT:
        raise InputError(f"{index_dir} is not a reasonforge dated corpus (bad manifest)", field="index")
    if manifest.get("schema_version") != SCHEMA_VERSION:
        raise InputError(f"corpus {index_dir} has schema version {manifest.get('schema_version')}, this version "
                         f"reads {SCHEMA_VERSION}; re-ingest the articles into a new directory", field="index")
    return manifest


class DatedCorpus:
    """A tantivy index of dated documents whose every read is bounded by an `as_of` time. Use `open`."""

    def __init__(self, index_dir: Path, index: tantivy.Index) -> None:
        """Wrap an opened index; call `DatedCorpus.open` instead."""
        self.index_dir = index_dir
        self._index = index
        self._schema = index.schema
        self._analyzer = query_analyzer()

    @classmethod
    def open(cls, index_dir: Path, *, create: bool = True) -> DatedCorpus:
        """Open the corpus in `index_dir`, creating an empty one there (new or empty directory) when `create`."""
        index_dir = Path(index_dir)
        if (index_dir / MANIFEST_NAME).is_file():
            _manifest(index_dir)
            try:
                index = tantivy.Index.open(str(index_dir))
            except (ValueError, OSError) as exc:
                raise InputError(f"corpus index {index_dir} cannot be opened ({exc}); rebuild it into a new "
                                 "directory", field="index") from None
            return cls(index_dir, index)
        if not create:
            raise InputError(f"no corpus index at {index_dir}; build one with "
                             f"`reasonforge corpus ingest FILE --index {index_dir}`", field="index")
        if index_dir.exists() and (not index_dir.is_dir() or any(index_dir.iterdir())):
            raise InputError(f"{index_dir} exists and is not a corpus index; give a new or empty directory",
                             field="index")
        try:
            index_dir.mkdir(parents=True, exist_ok=True)
            index = tantivy.Index(_schema(), path=str(index_dir), reuse=False)
            manifest = {"format": MANIFEST_FORMAT, "schema_version": SCHEMA_VERSION,
                        "tokenizer": TEXT_TOKENIZER, "created": datetime.now(UTC).isoformat(timespec="seconds")}
            tmp = index_dir / (MANIFEST_NAME + ".tmp")
            tmp.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
            tmp.replace(index_dir / MANIFEST_NAME)  # the manifest appears last: a half-made index is not "a corpus"
        except OSError as exc:
            raise InputError(f"cannot create a corpus index in {index_dir}: {exc.strerror or exc}",
                             field="index") from None
        return cls(index_dir, index)

    def _searcher(self) -> tantivy.Searcher:
        return self._index.searcher()

    def _writer(self) -> tantivy.IndexWriter:
        try:
            return self._index.writer(WRITER_HEAP_BYTES, 0)
        except ValueError as exc:
            raise InputError(f"cannot write to corpus {self.index_dir} ({exc}); is another ingest running?",
                             field="index") from None

    def _stored_hash(self, searcher: tantivy.Searcher, doc_id: str) -> str | None:
        found = searcher.search(tantivy.Query.term_query(self._schema, "id", doc_id), 1, count=False).hits
        return _first(searcher.doc(found[0][1]).to_dict(), "content_hash") if found else None

    def ingest(self, docs: Iterable[Document]) -> IngestReport:
        """Add new documents in one commit; drop duplicates (content hash, URL per day); report id conflicts."""
        report = IngestReport()
        searcher = self._searcher()
        hashes = {term for term, _ in searcher.terms_with_prefix("content_hash", "")}
        url_keys = {term for term, _ in searcher.terms_with_prefix("url_key", "")}
        indexed_ids = {term for term, _ in searcher.terms_with_prefix("id", "")}
        batch: dict[str, str] = {}  # id → content hash of documents added in this call
        writer = self._writer()
        try:
            for raw in docs:
                doc = self._coerce(raw, report)
                if doc is None:
                    continue
                digest = content_hash(doc.title, doc.text)
                if doc.id in batch or doc.id in indexed_ids:
                    held = batch.get(doc.id) or self._stored_hash(searcher, doc.id)
                    if held == digest:
                        report.duplicates += 1
                    else:
                        report.skipped += 1
                        report.errors.append(f"id {doc.id!r} already holds a different document; give the new "
                                             "one another id (documents are never overwritten)")
                    continue
                key = _url_key(doc)
                if digest in hashes or (key and key in url_keys):
                    report.duplicates += 1
                    continue
                writer.add_document(self._to_stored(doc, digest, key))
                batch[doc.id] = digest
                hashes.add(digest)
                if key:
                    url_keys.add(key)
                report.added += 1
            if report.added:
                writer.commit()
        except BaseException:
            writer.rollback()
            raise
        finally:
            writer.wait_merging_threads()  # also releases the index's writer lock
        self._index.reload()
        return report

    @staticmethod
    def _coerce(raw: Document | dict[str, Any], report: IngestReport) -> Document | None:
        if isinstance(raw, Document):
            return raw
        try:
            return Document.model_validate(raw)
        except ValidationError as exc:
            first = exc.errors()[0]
            name = raw.get("id", "?") if isinstance(raw, dict) else "?"
            report.skipped += 1
            report.errors.append(f"document {name!r}: {'.'.join(map(str, first['loc']))}: {first['msg']}")
            return None

    @staticmethod
    def _to_stored(doc: Document, digest: str, url_key: str) -> tantivy.Document:
        stored = tantivy.Document()
        stored.add_text("id", doc.id)
        stored.add_text("title", doc.title)
        stored.add_text("text", doc.text)
        if doc.source:
            stored.add_text("source", doc.source)
        if doc.url:
            stored.add_text("url", doc.url)
        if url_key:
            stored.add_text("url_key", url_key)
        stored.add_text("content_hash", digest)
        stored.add_date("published_at", doc.published_at)
        return stored

    def search(self, query: str, as_of: datetime, k: int = 10, *,
               snippet_chars: int = SNIPPET_CHARS) -> list[SearchHit]:
        """The k best BM25 matches for `query` among documents published at or before `as_of`."""
        as_of = check_as_of(as_of)
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
            raise InputError(f"k must be an integer from 1 to {MAX_K}, got {k!r}", field="k")
        if not isinstance(query, str):
            raise InputError(f"query must be text, got {type(query).__name__}", field="query")
        terms = query_terms(query, self._analyzer)
        if not terms:
            raise InputError(f"query {query[:80]!r} has no words to search for; use plain keywords", field="query")
        words = text_query(self._schema, terms)
        bounded = tantivy.Query.boolean_query([(tantivy.Occur.Must, words),
                                               (tantivy.Occur.Must, date_bound(self._schema, as_of))])
        searcher = self._searcher()
        found = searcher.search(bounded, k, count=False).hits
        generator = None
        hits: list[SearchHit] = []
        for score, address in found:
            stored = searcher.doc(address)
            doc = _from_stored(stored)
            recheck_visible(doc, as_of)  # before any part of the document is used
            if generator is None:
                generator = tantivy.SnippetGenerator.create(searcher, words, self._schema, "text")
                generator.set_max_num_chars(snippet_chars)
            hits.append(SearchHit(id=doc.id, title=doc.title, published_at=doc.published_at, score=float(score),
                                  snippet=_snippet(generator, stored, doc.text, snippet_chars)))
        return hits

    def read(self, doc_id: str, as_of: datetime) -> Document:
        """The document `doc_id` if published at or before `as_of`; otherwise DocumentNotAvailable."""
        as_of = check_as_of(as_of)
        unavailable = DocumentNotAvailable(f"document {str(doc_id)[:200]!r} is not available as of "
                                           f"{as_of.isoformat()} (no such id, or not published yet); "
                                           "read ids taken from search results", field="doc_id")
        if not isinstance(doc_id, str) or not doc_id.strip():
            raise unavailable
        query = tantivy.Query.boolean_query([
            (tantivy.Occur.Must, tantivy.Query.term_query(self._schema, "id", doc_id.strip())),
            (tantivy.Occur.Must, date_bound(self._schema, as_of)),
        ])
        searcher = self._searcher()
        found = searcher.search(query, 1, count=False).hits
        if not found:
            raise unavailable
        doc = _from_stored(searcher.doc(found[0][1]))
        recheck_visible(doc, as_of)
        return doc

    def stats(self) -> CorpusStats:
        """Document count, first and last publication time, documents per source (most first)."""
        searcher = self._searcher()
        total = searcher.num_docs
        first = last = None
        if total:
            first, last = (self._edge(searcher, order) for order in (tantivy.Order.Asc, tantivy.Order.Desc))
        sources = dict(searcher.terms_with_prefix("source", ""))
        return CorpusStats(documents=total, first=first, last=last, sources=sources)

    def _edge(self, searcher: tantivy.Searcher, order: tantivy.Order) -> datetime:
        nanos = searcher.search(tantivy.Query.all_query(), 1, count=False, order_by_field="published_at",
                                order=order).hits[0][0]
        return _EPOCH + timedelta(microseconds=nanos // 1000)

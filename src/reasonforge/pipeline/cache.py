"""A verdict cache: the same request, judged by the same translator and checkers, is not judged twice.

The key is the sha256 of everything that can change a verdict: the request (its chain, question, domain, level,
prover, translator options, claimed and reference answers, translations), the translator's spec, the spec of every
checker the domain's artifacts may go to (name, version and arguments: a new checker version is a new key), the
check limits, and ReasonForge's own version and source files. So a cached verdict is only ever served to the request that produced
it under the code that produced it; on read, each step's checker spec is compared with the current one again, and
an entry that does not match (or does not parse) is a miss, never an answer.

Entries are JSON files under `REASONFORGE_CACHE_DIR` (default `~/.cache/reasonforge/verdicts`), two hex digits of
fan-out, written atomically so concurrent writers (a batch's workers) never leave half a file.
"""

from __future__ import annotations

import functools
import hashlib
import os
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

from pydantic import ValidationError

from reasonforge.atomic_file import write_atomic
from reasonforge.chain import canonical_json
from reasonforge.pipeline.run import verify_chain
from reasonforge.registry import CheckerRegistry, checkers
from reasonforge.translate.protocol import ExampleWriter, QuestionFormaliser, Translator
from reasonforge.translate.select import translator_for
from reasonforge.types import (
    DOMAIN_LANGUAGES,
    CheckLimits,
    Domain,
    Spec,
    StepTranslation,
    TranslatorMode,
    VerificationVerdict,
    VerifyRequest,
)

__all__ = ["CACHE_FORMAT", "VerdictCache", "default_cache_dir", "verify_cached"]

CACHE_FORMAT = 1  # bump when the key recipe or the stored form changes
_NOT_KEYED = {"callback_url", "generate_certificate"}  # where a verdict goes, not what it is


def default_cache_dir() -> Path:
    """`REASONFORGE_CACHE_DIR`, default `~/.cache/reasonforge/verdicts`."""
    configured = os.environ.get("REASONFORGE_CACHE_DIR")
    return Path(configured) if configured else Path.home() / ".cache" / "reasonforge" / "verdicts"


@functools.cache
def _version() -> str:
    try:
        return metadata.version("reasonforge")
    except metadata.PackageNotFoundError:
        return "unknown"


@functools.cache
def _code_digest() -> str:
    """The sha256 of ReasonForge's own source files: a reader or checker changed between two builds of one version
    string (a development install) is a new key, never a stale verdict served."""
    root = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _checker_specs(registry: CheckerRegistry, domain: Domain) -> list[dict[str, object]]:
    specs = []
    for language in sorted(DOMAIN_LANGUAGES[domain], key=lambda lang: lang.value):
        if language in registry.languages():
            specs.append({"language": language.value, **registry.get(language).spec.model_dump(mode="json")})
    return specs


class VerdictCache:
    """Verdicts on disk, keyed by `key`; `hits` and `misses` count this object's lookups."""

    def __init__(self, root: Path | None = None, *, registry: CheckerRegistry | None = None) -> None:
        self.root = root if root is not None else default_cache_dir()
        self.registry = registry or checkers
        self.hits = 0
        self.misses = 0
        self._specs: dict[Domain, list[dict[str, object]]] = {}

    def _domain_specs(self, domain: Domain) -> list[dict[str, object]]:
        if domain not in self._specs:
            self._specs[domain] = _checker_specs(self.registry, domain)
        return self._specs[domain]

    def key(self, request: VerifyRequest, translator: Spec | None, limits: CheckLimits) -> str:
        """The sha256 hex of everything that can change the verdict on `request` (module docstring)."""
        keyed = request.model_dump(mode="json", exclude=_NOT_KEYED)
        recipe = {"format": CACHE_FORMAT, "reasonforge": _version(), "code": _code_digest(), "request": keyed,
                  "translator": translator.model_dump(mode="json") if translator is not None else None,
                  "checkers": self._domain_specs(request.domain), "limits": limits.model_dump(mode="json")}
        return hashlib.sha256(canonical_json(recipe)).hexdigest()

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str, domain: Domain) -> VerificationVerdict | None:
        """The verdict stored under `key`, or None (absent, unreadable, or judged by a checker that has changed)."""
        try:
            verdict = VerificationVerdict.model_validate_json(self._path(key).read_bytes())
        except (OSError, ValidationError, ValueError):
            self.misses += 1
            return None
        current = {(s["name"], s["version"]) for s in self._domain_specs(domain)}
        if any(v.checker_spec is not None and (v.checker_spec.name, v.checker_spec.version) not in current
               for v in verdict.step_verdicts):
            self.misses += 1
            return None
        self.hits += 1
        return verdict

    def lookup(self, request: VerifyRequest, translator: Spec | None, limits: CheckLimits
               ) -> tuple[str, VerificationVerdict | None]:
        """The key of `request` judged by `translator` under `limits`, and the verdict stored under it (or None)."""
        key = self.key(request, translator, limits)
        return key, self.get(key, request.domain)

    def put(self, key: str, verdict: VerificationVerdict) -> None:
        """Store `verdict` under `key` (a cache that cannot be written is skipped: it only saves time)."""
        try:
            path = self._path(key)
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, verdict.model_dump_json().encode("utf-8"))
        except OSError:
            pass


def _asks_a_model(translator: Translator) -> bool:
    """Does `translator` ask a model (for the steps, the question or examples)? Its verdict is not cached: the model
    may answer otherwise next time (and its endpoint is keyed by name, not by weights), and a caller who points at
    a model asks for its answer, recorded when recording."""
    members = getattr(translator, "members", [translator])
    return any(getattr(m, "writer", TranslatorMode.RULES) is not TranslatorMode.RULES
               or isinstance(m, QuestionFormaliser | ExampleWriter) for m in members)


def verify_cached(request: VerifyRequest, cache: VerdictCache | None, *, translations: list[StepTranslation] | None
                  = None, translator: Translator | None = None, limits: CheckLimits | None = None,
                  progress: Callable[[str], None] | None = None) -> VerificationVerdict:
    """`verify_chain`, answered from `cache` when the same request was judged by the same tools (None: no cache).
    Supplied `translations` are keyed as part of the request; a translator that asks a model is never cached."""
    limits = limits or CheckLimits()
    if cache is not None and translations is None and request.translations is None:
        translator = translator or translator_for(request)  # the one verify_chain would choose: its spec is keyed
    if cache is not None and translator is not None and _asks_a_model(translator):
        cache = None  # beside supplied translations too: its examples or formalisations are a model's
    if cache is None:
        return verify_chain(request, translations=translations, translator=translator, limits=limits,
                            progress=progress)
    keyed = request if translations is None else request.model_copy(update={"translations": translations})
    key, hit = cache.lookup(keyed, translator.spec if keyed.translations is None and translator is not None else None,
                            limits)
    if hit is not None:
        return hit
    verdict = verify_chain(request, translations=translations, translator=translator, limits=limits,
                           progress=progress)
    cache.put(key, verdict)
    return verdict

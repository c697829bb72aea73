"""The verdict cache: the same request judged by the same tools is answered from disk; anything that could change
the verdict is a different key, and a stored verdict from another checker version is never served."""

import json

from reasonforge.pipeline import VerdictCache, verify_cached
from reasonforge.registry import CheckerRegistry
from reasonforge.types import CheckLimits, Domain, ProofLevel, Spec, VerifyRequest


def request(**fields):
    base = {"original_query": "Let n = 4. What is n + 1?", "domain": Domain.MATHEMATICS, "proof_level": ProofLevel.QUICK,
            "reasoning_chain": [{"step_id": 1, "content": "Let n = 4"}, {"step_id": 2, "content": "So n + 1 = 5"}]}
    return VerifyRequest(**(base | fields))


def test_a_second_verification_is_a_hit_with_the_same_verdict(tmp_path):
    cache = VerdictCache(tmp_path)
    first = verify_cached(request(), cache)
    again = verify_cached(request(), cache)
    assert (cache.hits, cache.misses) == (1, 1)
    assert again.model_dump() == first.model_dump()
    assert verify_cached(request(), None).overall == first.overall  # no cache: computed


def test_whatever_can_change_a_verdict_changes_the_key(tmp_path):
    cache = VerdictCache(tmp_path)
    base = cache.key(request(), None, CheckLimits())
    changed = [
        request(claimed_answer="5"), request(reference_answer="5"), request(proof_level=ProofLevel.STANDARD),
        request(original_query="Let n = 3. What is n + 1?"), request(translator="rules"),
    ]
    keys = {cache.key(r, None, CheckLimits()) for r in changed}
    assert base not in keys and len(keys) == len(changed)
    assert cache.key(request(), Spec(name="rules", version="1"), CheckLimits()) != base
    assert cache.key(request(), None, CheckLimits(timeout_s=3)) != base
    assert cache.key(request(callback_url="https://example.org/hook"), None, CheckLimits()) == base  # where, not what


def test_a_change_to_the_source_under_one_version_string_is_a_new_key(tmp_path, monkeypatch):
    # a reader fixed between two builds of one version (a development install) must not serve the old verdict
    import reasonforge.pipeline.cache as cache_module

    cache = VerdictCache(tmp_path)
    before = cache.key(request(), None, CheckLimits())
    monkeypatch.setattr(cache_module, "_code_digest", lambda: "another build")
    assert cache.key(request(), None, CheckLimits()) != before


def test_a_verdict_from_another_checker_version_is_never_served(tmp_path):
    cache = VerdictCache(tmp_path)
    verify_cached(request(), cache)
    (stored,) = list(tmp_path.glob("*/*.json"))
    verdict = json.loads(stored.read_text())
    for step in verdict["step_verdicts"]:
        if step.get("checker_spec"):
            step["checker_spec"]["version"] = "0.0-old"
    stored.write_text(json.dumps(verdict))
    fresh = VerdictCache(tmp_path)
    verify_cached(request(), fresh)
    assert (fresh.hits, fresh.misses) == (0, 1)


def test_a_torn_or_foreign_entry_is_a_miss_not_an_answer(tmp_path):
    cache = VerdictCache(tmp_path)
    verify_cached(request(), cache)
    (stored,) = list(tmp_path.glob("*/*.json"))
    stored.write_text('{"task_id": "x", "overall": "VERI')
    again = VerdictCache(tmp_path)
    assert verify_cached(request(), again).overall.value in ("VERIFIED", "PARTIAL")
    assert again.misses == 1


def test_a_new_checker_version_is_a_new_key(tmp_path):
    def registry(version: str) -> CheckerRegistry:
        class Checker:
            def __init__(self):
                self.spec = Spec(name="sympy-relations", version=version)

        made = CheckerRegistry(modules={})
        made.checker("sympy")(Checker)
        return made

    def key(version: str) -> str:
        return VerdictCache(tmp_path, registry=registry(version)).key(request(), None, CheckLimits())

    assert key("1.1") == key("1.1") != key("9.9")


class _ExampleWriter:
    """Writes code examples from the texts (what a model does beside supplied translations)."""

    spec = Spec(name="example-writer", version="1")

    def __init__(self):
        self.asked = 0

    def translate_chain(self, request, ancestors):
        raise AssertionError("supplied translations are never translated again")

    def write_examples(self, request):
        self.asked += 1
        return {1: ">>> double(2)\n4\n>>> double(5)\n10"}


def test_a_writer_beside_supplied_translations_is_asked_every_time_never_served_from_the_cache(tmp_path):
    cache = VerdictCache(tmp_path)
    code = "def double(n):\n    return n * 2\n"
    supplied = VerifyRequest(original_query="Write double(n), twice n.", domain=Domain.CODE,
                             proof_level=ProofLevel.QUICK,
                             reasoning_chain=[{"step_id": 1, "content": f"```python\n{code}```"}],
                             translations=[{"step_id": 1, "language": "python", "formal_representation": code}])
    writer = _ExampleWriter()
    first = verify_cached(supplied, cache, translator=writer)
    verify_cached(supplied, cache, translator=writer)
    assert writer.asked == 2 and cache.hits == 0 and first.overall.value == "VERIFIED"

"""The system's entry point: `verify_chain` takes a request through translate/ → verify/ → chain/ → verdict."""

from reasonforge.pipeline.cache import VerdictCache, default_cache_dir, verify_cached
from reasonforge.pipeline.provers import check_prover
from reasonforge.pipeline.run import verify_chain

__all__ = ["VerdictCache", "check_prover", "default_cache_dir", "verify_cached", "verify_chain"]

"""The system's entry point: `verify_chain` takes a request through translate/ → verify/ → chain/ → verdict."""

from reasonforge.pipeline.provers import check_prover
from reasonforge.pipeline.run import verify_chain

__all__ = ["check_prover", "verify_chain"]

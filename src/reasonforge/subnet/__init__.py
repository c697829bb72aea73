"""The Bittensor subnet layer: wire models, signed transport, chain adapters, miner and validator.

This is the only room that imports `bittensor`. Importing the package itself stays light (no
bittensor, no FastAPI): the names below load their module on first use, so the CLI and the
simulator can import `reasonforge.subnet.<module>` without paying for the SDK.

- `protocol`: TranslationTask, VerificationResult (pydantic, bounded, canonical hashes)
- `keys`: Identity (an sr25519 hotkey that signs btauth/1 requests)
- `miner_server`: create_miner_app, serve_miner (the FastAPI side)
- `validator_client`: ValidatorClient, QueryOutcome (the httpx side)
- `transport`: what both sides share (paths, size caps, `sign_response`)
- `chain`: Chain, InMemoryChain, BittensorChain, Metagraph, Neuron, Endpoint, SetWeightsResult
"""

from __future__ import annotations

from reasonforge.lazy import lazy_exports

_LAZY = {
    "TranslationTask": "protocol",
    "VerificationResult": "protocol",
    "Identity": "keys",
    "create_miner_app": "miner_server",
    "ValidatorClient": "validator_client",
    "QueryOutcome": "validator_client",
    "serve_miner": "miner_server",
    "Chain": "chain",
    "InMemoryChain": "chain",
    "BittensorChain": "chain",
    "Metagraph": "chain",
    "Neuron": "chain",
    "Endpoint": "chain",
    "SetWeightsResult": "chain",
}

__all__ = [
    "BittensorChain",
    "Chain",
    "Endpoint",
    "Identity",
    "InMemoryChain",
    "Metagraph",
    "Neuron",
    "QueryOutcome",
    "SetWeightsResult",
    "TranslationTask",
    "ValidatorClient",
    "VerificationResult",
    "create_miner_app",
    "serve_miner",
]


__getattr__ = lazy_exports(__name__, _LAZY)

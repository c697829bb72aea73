"""Commit–reveal forecasts: Poseidon Merkle batches, reveal matching, signed score certificates.

The names below load their module on first use (`reasonforge.lazy`): reading a batch or matching reveals does not
pay for web3, which only the on-chain calls (`onchain`) need."""

from __future__ import annotations

from reasonforge.lazy import lazy_exports

_LAZY = {
    "Batch": "batch",
    "before_cutoff": "batch",
    "Counted": "match",
    "Excluded": "match",
    "Exclusion": "match",
    "ForecastFields": "tree",
    "IncompleteReveal": "certificate",
    "MatchResult": "match",
    "Opening": "batch",
    "PredictionRow": "batch",
    "PublicCommitment": "batch",
    "ScoreBody": "certificate",
    "ScoreCertificate": "certificate",
    "ScoreCheck": "certificate",
    "Scores": "certificate",
    "build_body": "certificate",
    "certificate_id": "certificate",
    "commit_rows": "batch",
    "compute_scores": "certificate",
    "leaf_hash": "tree",
    "match_on_chain": "onchain",
    "match_reveals": "match",
    "question_set_digest": "batch",
    "read_batch": "batch",
    "read_openings": "batch",
    "read_prediction_rows": "batch",
    "register_batch": "onchain",
    "register_certificate": "onchain",
    "resolution_digest": "batch",
    "reveal": "batch",
    "sign_body": "certificate",
    "validator_addresses": "certificate",
    "verify_score": "certificate",
}

__all__ = [
    "Batch",
    "Counted",
    "Excluded",
    "Exclusion",
    "ForecastFields",
    "IncompleteReveal",
    "MatchResult",
    "Opening",
    "PredictionRow",
    "PublicCommitment",
    "ScoreBody",
    "ScoreCertificate",
    "ScoreCheck",
    "Scores",
    "before_cutoff",
    "build_body",
    "certificate_id",
    "commit_rows",
    "compute_scores",
    "leaf_hash",
    "match_on_chain",
    "match_reveals",
    "question_set_digest",
    "read_batch",
    "read_openings",
    "read_prediction_rows",
    "register_batch",
    "register_certificate",
    "resolution_digest",
    "reveal",
    "sign_body",
    "validator_addresses",
    "verify_score",
]


__getattr__ = lazy_exports(__name__, _LAZY)

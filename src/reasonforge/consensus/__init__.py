"""Consensus across translators: per-step majority of verified artifacts and per-miner agreement."""

from reasonforge.consensus.cross_validate import (
    ConsensusResult,
    MinerAgreement,
    correctness,
    cross_validate,
    decided_majority,
)

__all__ = ["ConsensusResult", "MinerAgreement", "correctness", "cross_validate", "decided_majority"]

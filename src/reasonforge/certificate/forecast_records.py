"""What the ForecastRegistry records, as plain data: a committed batch, a commit receipt, a registered score.

Kept apart from the web3 client (forecast_registry.py) so that code which only reads or returns these records
(reveal matching, the API's response models, the dashboard) does not load web3."""

from __future__ import annotations

from pydantic import BaseModel, Field

from reasonforge.certificate.common import RegistryError

__all__ = ["UNDEFINED_PPM", "BatchRecord", "CommitReceipt", "OnChainScore", "b32"]

UNDEFINED_PPM = -(1 << 63)
"""On-chain value of a score that is undefined (nothing scored) or −∞ (a perfect market beaten by nothing)."""


class BatchRecord(BaseModel):
    """What the registry recorded for one committed root (the timestamp is the block's)."""

    root: str = Field(pattern=r"^0x[0-9a-f]{64}$")
    committer: str
    timestamp: int = Field(ge=0)
    count: int = Field(ge=1)
    scope: str = Field(pattern=r"^0x[0-9a-f]{64}$")


class CommitReceipt(BaseModel):
    """A commit transaction: the stored record and its gas."""

    batch: BatchRecord
    tx_hash: str
    block_number: int
    gas_used: int


class OnChainScore(BaseModel):
    """The registry's Score struct (the fields a certificate id covers, besides the roots)."""

    forecaster: str
    scope: str
    resolution_digest: str
    body_digest: str
    scored: int = Field(ge=0, lt=1 << 32)
    excluded: int = Field(ge=0, lt=1 << 32)
    unrevealed: int = Field(ge=0, lt=1 << 32)
    brier_ppm: int = Field(ge=-(1 << 63), lt=1 << 63)
    log_loss_ppm: int = Field(ge=-(1 << 63), lt=1 << 63)
    market_skill_ppm: int = Field(ge=-(1 << 63), lt=1 << 63)

    def as_tuple(self) -> tuple:
        """The ABI tuple, in the struct's field order."""
        from eth_utils import to_checksum_address

        return (to_checksum_address(self.forecaster), b32(self.scope), b32(self.resolution_digest),
                b32(self.body_digest), self.scored, self.excluded, self.unrevealed, self.brier_ppm,
                self.log_loss_ppm, self.market_skill_ppm)


def b32(hex_value: str) -> bytes:
    """A 0x-hex string of exactly 32 bytes as bytes; RegistryError otherwise."""
    raw = bytes.fromhex(hex_value.removeprefix("0x"))
    if len(raw) != 32:
        raise RegistryError(f"expected a 32-byte hex value, got {hex_value!r}")
    return raw

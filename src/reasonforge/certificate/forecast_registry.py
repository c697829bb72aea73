"""ForecastRegistry (contracts/ForecastRegistry.sol): compile, deploy, commit batch roots, register scores.

web3.py like registry.py: explicit gas limits, a dry run before each transaction so a revert is named
by the contract's custom error.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from pydantic import BaseModel
from web3 import Web3
from web3.contract import Contract

from reasonforge.certificate import toolchain
from reasonforge.certificate.forecast_records import BatchRecord, CommitReceipt, OnChainScore
from reasonforge.certificate.forecast_records import b32 as _b32
from reasonforge.certificate.registry import RegistryError, connect
from reasonforge.certificate.registry import _send as _registry_send
from reasonforge.certificate.solidity import CONTRACTS, CompiledContract

__all__ = [
    "MAX_LISTED_SCORES",
    "BatchRecord",
    "CommitReceipt",
    "CompiledForecastRegistry",
    "ForecastDeployment",
    "OnChainScore",
    "RegistryError",
    "batch_of",
    "commit",
    "compile_forecast_registry",
    "connect",
    "deploy",
    "register_score",
    "registered_scores",
    "roots_of",
    "score_certificate_id",
    "score_of",
    "validators_of",
]

SOURCE = CONTRACTS / "ForecastRegistry.sol"
SCRIPT = Path(__file__).resolve().parent / "js" / "compile.cjs"
DEPLOY_GAS = 3_000_000
COMMIT_GAS = 200_000
REGISTER_BASE_GAS = 300_000
REGISTER_PER_ROOT_GAS = 30_000
REGISTER_PER_SIGNATURE_GAS = 15_000
CALL_GAS = 5_000_000
ZERO_ADDRESS = "0x" + "00" * 20


class CompiledForecastRegistry(BaseModel):
    """ABI and bytecode of ForecastRegistry."""

    contract: CompiledContract
    solc_version: str


class ForecastDeployment(BaseModel):
    """A deployed ForecastRegistry and the validators it trusts."""

    chain_id: int
    address: str
    validators: list[str]
    threshold: int
    deploy_gas: int


def _hex(raw: bytes) -> str:
    return "0x" + bytes(raw).hex()


def compile_forecast_registry(out_dir: Path) -> CompiledForecastRegistry:
    """Compile ForecastRegistry.sol with solc-js into out_dir (cached on the source and the script)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    cached, stamp = out_dir / "forecast-registry.json", out_dir / "forecast-registry.stamp"
    fingerprint = hashlib.sha256(SOURCE.read_bytes() + SCRIPT.read_bytes()).hexdigest()
    if not (cached.exists() and stamp.exists() and stamp.read_text() == fingerprint):
        tmp = out_dir / f".forecast-registry.{hashlib.sha256(str(out_dir).encode()).hexdigest()[:8]}.json"
        toolchain.run_node(SCRIPT, [str(toolchain.node_modules()), str(tmp), str(SOURCE)], cwd=out_dir)
        tmp.replace(cached)
        stamp.write_text(fingerprint)
    raw = json.loads(cached.read_text())
    return CompiledForecastRegistry(contract=CompiledContract.model_validate(raw["ForecastRegistry"]),
                                    solc_version=raw["solcVersion"])


def _send(w3: Web3, fn: object, gas: int, sender: str, abi: list[dict] | None) -> dict:
    """The certificate registry's send, its refusals named as this registry's."""
    return _registry_send(w3, fn, gas, sender, abi, refused="forecast registry refused the transaction")


def _contract(w3: Web3, compiled: CompiledForecastRegistry, address: str) -> Contract:
    return w3.eth.contract(address=Web3.to_checksum_address(address), abi=compiled.contract.abi)


def deploy(w3: Web3, compiled: CompiledForecastRegistry, validators: list[str], threshold: int,
           sender: str | None = None) -> ForecastDeployment:
    """Deploy a registry trusting these validator addresses with this signing threshold."""
    sender = sender or w3.eth.accounts[0]
    factory = w3.eth.contract(abi=compiled.contract.abi, bytecode=compiled.contract.bytecode)
    checksummed: list[str] = [Web3.to_checksum_address(v) for v in validators]
    if not 1 <= threshold <= len(set(checksummed)) == len(checksummed):
        raise RegistryError(f"a registry needs distinct validators and 1 <= threshold <= {len(checksummed)}, "
                            f"got threshold {threshold}")
    receipt = _send(w3, factory.constructor(checksummed, threshold), DEPLOY_GAS, sender, None)
    return ForecastDeployment(chain_id=w3.eth.chain_id, address=receipt["contractAddress"], validators=checksummed,
                              threshold=threshold, deploy_gas=receipt["gasUsed"])


def commit(w3: Web3, compiled: CompiledForecastRegistry, address: str, root: str, count: int, scope: str,
           sender: str | None = None) -> CommitReceipt:
    """commit(root, count, scope) from sender; the registry records the block timestamp."""
    sender = sender or w3.eth.accounts[0]
    contract = _contract(w3, compiled, address)
    receipt = _send(w3, contract.functions.commit(_b32(root), count, _b32(scope)), COMMIT_GAS, sender,
                    compiled.contract.abi)
    record = batch_of(w3, compiled, address, root)
    assert record is not None  # the transaction just succeeded
    return CommitReceipt(batch=record, tx_hash=_hex(receipt["transactionHash"]), block_number=receipt["blockNumber"],
                         gas_used=receipt["gasUsed"])


def batch_of(w3: Web3, compiled: CompiledForecastRegistry, address: str, root: str) -> BatchRecord | None:
    """The registry's record of a root; None when it was never committed."""
    committer, timestamp, count, scope = _contract(w3, compiled, address).functions.batchOf(_b32(root)).call(
        {"gas": CALL_GAS})
    if committer == ZERO_ADDRESS:
        return None
    return BatchRecord(root=root.lower(), committer=committer, timestamp=timestamp, count=count, scope=_hex(scope))


def roots_of(w3: Web3, compiled: CompiledForecastRegistry, address: str, committer: str, scope: str) -> list[str]:
    """Every root committer registered for scope, in commit order."""
    fn = _contract(w3, compiled, address).functions.rootsOf(Web3.to_checksum_address(committer), _b32(scope))
    return [_hex(r) for r in fn.call({"gas": CALL_GAS})]


def validators_of(w3: Web3, compiled: CompiledForecastRegistry, address: str) -> tuple[list[str], int]:
    """The validator addresses the registry trusts and its threshold."""
    contract = _contract(w3, compiled, address)
    return (list(contract.functions.validators().call({"gas": CALL_GAS})),
            int(contract.functions.threshold().call({"gas": CALL_GAS})))


def score_certificate_id(w3: Web3, compiled: CompiledForecastRegistry, address: str, score: OnChainScore,
                         roots: list[str]) -> str:
    """The certificate id as the contract computes it (to cross-check the offline formula)."""
    fn = _contract(w3, compiled, address).functions.scoreCertificateId(score.as_tuple(), [_b32(r) for r in roots])
    return _hex(fn.call({"gas": CALL_GAS}))


def register_score(w3: Web3, compiled: CompiledForecastRegistry, address: str, score: OnChainScore, roots: list[str],
                   signatures: list[str], sender: str | None = None) -> tuple[str, int]:
    """registerScore; returns (tx hash, gas used). A refusal raises RegistryError naming the contract's error."""
    sender = sender or w3.eth.accounts[0]
    fn = _contract(w3, compiled, address).functions.registerScore(
        score.as_tuple(), [_b32(r) for r in roots], [bytes.fromhex(s.removeprefix("0x")) for s in signatures])
    gas = REGISTER_BASE_GAS + REGISTER_PER_ROOT_GAS * len(roots) + REGISTER_PER_SIGNATURE_GAS * len(signatures)
    receipt = _send(w3, fn, gas, sender, compiled.contract.abi)
    return _hex(receipt["transactionHash"]), receipt["gasUsed"]


def score_of(w3: Web3, compiled: CompiledForecastRegistry, address: str, certificate_id: str) -> OnChainScore | None:
    """The registered score for a certificate id; None when not registered."""
    contract = _contract(w3, compiled, address)
    if not contract.functions.scoreRegisteredAt(_b32(certificate_id)).call({"gas": CALL_GAS}):
        return None
    raw = contract.functions.scoreOf(_b32(certificate_id)).call({"gas": CALL_GAS})
    return OnChainScore(forecaster=raw[0], scope=_hex(raw[1]), resolution_digest=_hex(raw[2]),
                        body_digest=_hex(raw[3]), scored=raw[4], excluded=raw[5], unrevealed=raw[6],
                        brier_ppm=raw[7], log_loss_ppm=raw[8], market_skill_ppm=raw[9])


MAX_LISTED_SCORES = 1000


def registered_scores(w3: Web3, compiled: CompiledForecastRegistry, address: str,
                      limit: int = MAX_LISTED_SCORES) -> list[tuple[str, OnChainScore]]:
    """(certificate id, score) of the newest `limit` scores registered on the contract (its ScoreRegistered events,
    each score read back from storage, so a log cannot claim a score the contract does not hold)."""
    contract = _contract(w3, compiled, address)
    try:
        logs = contract.events.ScoreRegistered.get_logs(from_block=0)
    except Exception as exc:  # web3 raises many types for a node that cannot answer
        raise RegistryError(f"cannot read the ForecastRegistry's events at {address}: {exc}") from exc
    out = []
    for log in list(logs)[-limit:]:
        cert_id = _hex(log["args"]["certId"])
        score = score_of(w3, compiled, address, cert_id)
        if score is not None:
            out.append((cert_id, score))
    return out

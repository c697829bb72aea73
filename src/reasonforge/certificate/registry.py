"""web3.py client for CertificateRegistry: deploy, register, query. Always explicit gas limits.

The generated verifier makes gas estimation return a figure too low for the pairing precompiles,
with which verifyProof silently returns false; so every call and transaction here carries a limit.
"""

from __future__ import annotations

from pydantic import BaseModel
from web3 import Web3
from web3.contract import Contract

from reasonforge.certificate.binding import ASSURANCES, DOMAINS, LEVELS, VERDICTS
from reasonforge.certificate.common import RegistryError
from reasonforge.certificate.schema import VerificationCertificate
from reasonforge.certificate.solidity import CompiledContracts

DEPLOY_GAS = 6_000_000
REGISTER_GAS = 1_500_000
SEGMENT_GAS = 600_000  # each further segment: one more verifyProof and a stored commitment
CALL_GAS = 1_000_000


class Deployment(BaseModel):
    """Addresses of a deployed verifier + registry and the gas their deployment used."""

    chain_id: int
    verifier: str
    registry: str
    deploy_gas: int


class Registration(BaseModel):
    """Where and how a certificate was registered."""

    chain_id: int
    registry_address: str
    tx_hash: str
    block_number: int
    gas_used: int


def connect(rpc_url: str) -> Web3:
    """An HTTP connection that must answer."""
    w3 = Web3(Web3.HTTPProvider(rpc_url, request_kwargs={"timeout": 120}))
    if not w3.is_connected():
        raise RegistryError(f"no EVM node answers at {rpc_url}")
    return w3


def _revert_reason(abi: list[dict], exc: Exception) -> str:
    """Name the registry's custom error from the revert data, when it is one of ours."""
    text = str(exc)
    for item in abi:
        if item.get("type") == "error":
            signature = f"{item['name']}({','.join(i['type'] for i in item['inputs'])})"
            if Web3.keccak(text=signature)[:4].hex().removeprefix("0x") in text:
                return item["name"]
    return text


def _send(w3: Web3, fn: object, gas: int, sender: str, abi: list[dict] | None = None, *,
          refused: str = "registry refused the certificate") -> dict:
    """Dry-run (to name a revert: `refused: reason`; not for a constructor, whose `abi` is None), then send from an
    unlocked node account with an explicit gas limit."""
    if abi is not None:
        try:
            fn.call({"from": sender, "gas": gas})  # type: ignore[attr-defined]
        except Exception as exc:  # web3 raises several revert types; all mean "would revert"
            raise RegistryError(f"{refused}: {_revert_reason(abi, exc)}") from exc
    tx_hash = fn.transact({"from": sender, "gas": gas})  # type: ignore[attr-defined]
    receipt = w3.eth.wait_for_transaction_receipt(tx_hash, timeout=120)
    if receipt["status"] != 1:
        raise RegistryError(f"transaction {tx_hash.hex()} reverted")
    return dict(receipt)


def deploy(w3: Web3, compiled: CompiledContracts, validator_root: int, sender: str | None = None) -> Deployment:
    """Deploy the verifier, then the registry for its key, trusting one validator root."""
    sender = sender or w3.eth.accounts[0]
    verifier = w3.eth.contract(abi=compiled.verifier.abi, bytecode=compiled.verifier.bytecode)
    r1 = _send(w3, verifier.constructor(), DEPLOY_GAS, sender)
    registry = w3.eth.contract(abi=compiled.registry.abi, bytecode=compiled.registry.bytecode)
    key_hash = bytes.fromhex(compiled.verification_key_sha256)
    constructor = registry.constructor(r1["contractAddress"], key_hash, validator_root.to_bytes(32, "big"))
    r2 = _send(w3, constructor, DEPLOY_GAS, sender)
    return Deployment(
        chain_id=w3.eth.chain_id,
        verifier=r1["contractAddress"],
        registry=r2["contractAddress"],
        deploy_gas=r1["gasUsed"] + r2["gasUsed"],
    )


def proof_words(proof_hex: str) -> tuple[list[int], list[list[int]], list[int]]:
    """Split the 256-byte proof into the verifier's (a, b, c); b is already in (c1, c0) order."""
    raw = bytes.fromhex(proof_hex)
    if len(raw) != 256:
        raise RegistryError(f"a Groth16 proof is 256 bytes, got {len(raw)}")
    w = [int.from_bytes(raw[i : i + 32], "big") for i in range(0, 256, 32)]
    return [w[0], w[1]], [[w[2], w[3]], [w[4], w[5]]], [w[6], w[7]]


def certificate_struct(cert: VerificationCertificate) -> tuple:
    """The on-chain Certificate tuple (segments and registrant are set by the contract)."""
    return (
        bytes.fromhex(cert.task_hash),
        bytes.fromhex(cert.verdict_digest),
        bytes.fromhex(cert.checkers_digest),
        int(cert.verdict_commitment, 16).to_bytes(32, "big"),
        int(cert.validator_commitment, 16).to_bytes(32, "big"),
        DOMAINS[cert.domain],
        LEVELS[cert.proof_level],
        VERDICTS[cert.overall_verdict],
        ASSURANCES[cert.assurance],
        cert.total_steps,
        cert.verified_steps,
        cert.validator_count,
        cert.validator_threshold,
        cert.timestamp,
        cert.stake_threshold,
        len(cert.zk_proof),
        "0x" + "00" * 20,
    )


def segment_structs(cert: VerificationCertificate) -> list[tuple]:
    """The on-chain Segment tuples: each proof with its commitment and step counts."""
    structs = []
    for seg in cert.zk_proof:
        a, b, c = proof_words(seg.proof)
        commitment = seg.public_ints()[1].to_bytes(32, "big")
        structs.append((commitment, seg.total_steps, seg.verified_steps, a, b, c))
    return structs


def registry_contract(w3: Web3, compiled: CompiledContracts, address: str) -> Contract:
    """A bound registry contract."""
    return w3.eth.contract(address=Web3.to_checksum_address(address), abi=compiled.registry.abi)


def register(
    w3: Web3, compiled: CompiledContracts, address: str, cert: VerificationCertificate, sender: str | None = None
) -> Registration:
    """registerCertificate with an explicit gas limit; a revert raises RegistryError."""
    contract = registry_contract(w3, compiled, address)
    fn = contract.functions.registerCertificate(
        bytes.fromhex(cert.certificate_id[2:]), certificate_struct(cert), segment_structs(cert)
    )
    gas = REGISTER_GAS + SEGMENT_GAS * (len(cert.zk_proof) - 1)
    receipt = _send(w3, fn, gas, sender or w3.eth.accounts[0], compiled.registry.abi)
    return Registration(
        chain_id=w3.eth.chain_id,
        registry_address=contract.address,
        tx_hash="0x" + bytes(receipt["transactionHash"]).hex(),
        block_number=receipt["blockNumber"],
        gas_used=receipt["gasUsed"],
    )


def segment_commitments(w3: Web3, compiled: CompiledContracts, address: str, certificate_id: str) -> list[str]:
    """The commitments the registry recorded for a certificate's segments, in order (0x hex)."""
    contract = registry_contract(w3, compiled, address)
    raw = contract.functions.segmentCommitmentsOf(bytes.fromhex(certificate_id[2:])).call({"gas": CALL_GAS})
    return ["0x" + bytes(c).hex() for c in raw]


def is_verified(w3: Web3, compiled: CompiledContracts, address: str, task_hash: str) -> bool:
    """registry.isVerified(taskHash): is the task's certificate at the highest level registered VERIFIED?"""
    contract = registry_contract(w3, compiled, address)
    return bool(contract.functions.isVerified(bytes.fromhex(task_hash)).call({"gas": CALL_GAS}))


def is_verified_at(w3: Web3, compiled: CompiledContracts, address: str, task_hash: str, min_level: str) -> bool:
    """registry.isVerifiedAt(taskHash, level): is there a VERIFIED certificate at `min_level` or stronger?"""
    contract = registry_contract(w3, compiled, address)
    fn = contract.functions.isVerifiedAt(bytes.fromhex(task_hash), LEVELS[min_level])
    return bool(fn.call({"gas": CALL_GAS}))


def certificates_of_task(w3: Web3, compiled: CompiledContracts, address: str, task_hash: str) -> list[str]:
    """registry.certificatesOfTask(taskHash): the task's certificate ids (0x hex), strongest level first."""
    contract = registry_contract(w3, compiled, address)
    raw = contract.functions.certificatesOfTask(bytes.fromhex(task_hash)).call({"gas": CALL_GAS})
    return ["0x" + bytes(c).hex() for c in raw]


def stored_certificate(w3: Web3, compiled: CompiledContracts, address: str, certificate_id: str) -> dict:
    """registry.certificates(certId) as a dict of the struct's field names (bytes32 as 0x hex)."""
    contract = registry_contract(w3, compiled, address)
    raw = contract.functions.certificates(bytes.fromhex(certificate_id[2:])).call({"gas": CALL_GAS})
    names = [o["name"] for o in next(i for i in compiled.registry.abi if i.get("name") == "certificates")["outputs"]]
    return {n: "0x" + bytes(v).hex() if isinstance(v, bytes) else v for n, v in zip(names, raw)}


def verify_on_chain(w3: Web3, compiled: CompiledContracts, verifier: str, cert: VerificationCertificate) -> bool:
    """Call the verifier directly on every segment's proof and public inputs."""
    contract = w3.eth.contract(address=Web3.to_checksum_address(verifier), abi=compiled.verifier.abi)
    for seg in cert.zk_proof:
        a, b, c = proof_words(seg.proof)
        if not contract.functions.verifyProof(a, b, c, seg.public_ints()).call({"gas": CALL_GAS}):
            return False
    return True


def verify_proof_gas(w3: Web3, compiled: CompiledContracts, verifier: str, cert: VerificationCertificate) -> int:
    """Gas used by verifyProof on the first segment as a transaction (the figure the plan's target refers to)."""
    contract = w3.eth.contract(address=Web3.to_checksum_address(verifier), abi=compiled.verifier.abi)
    a, b, c = proof_words(cert.zk_proof[0].proof)
    fn = contract.functions.verifyProof(a, b, c, cert.zk_proof[0].public_ints())
    return _send(w3, fn, CALL_GAS, w3.eth.accounts[0])["gasUsed"]

"""Generate Verifier.sol from the verification key and compile it with the registry (solc-js, cancun)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from pydantic import BaseModel

from reasonforge.certificate import toolchain

CONTRACTS = Path(__file__).resolve().parent / "contracts"
SCRIPT = Path(__file__).resolve().parent / "js" / "contracts.cjs"
COMPILER = SCRIPT.with_name("compile.cjs")  # contracts.cjs compiles through it: both are in the cache key
VERIFIER_TEMPLATE = CONTRACTS / "Verifier.sol.ejs"


class CompiledContract(BaseModel):
    """ABI and creation bytecode of one contract."""

    abi: list[dict]
    bytecode: str


class CompiledContracts(BaseModel):
    """The generated verifier and the registry, compiled together."""

    verifier: CompiledContract
    registry: CompiledContract
    solc_version: str
    verification_key_sha256: str  # the registry's constructor binds it: certificate ids name their key


def compile_contracts(
    vk_json_path: Path, out_dir: Path, verifier_template: Path = VERIFIER_TEMPLATE
) -> CompiledContracts:
    """Write out_dir/Verifier.sol and contracts.json; cached on the key, the template and the registry source."""
    out_dir.mkdir(parents=True, exist_ok=True)
    cached = out_dir / "contracts.json"
    stamp = out_dir / "contracts.stamp"
    registry = CONTRACTS / "CertificateRegistry.sol"
    fingerprint = hashlib.sha256(
        vk_json_path.read_bytes() + verifier_template.read_bytes() + registry.read_bytes() + SCRIPT.read_bytes()
        + COMPILER.read_bytes()
    ).hexdigest()
    if not (cached.exists() and stamp.exists() and stamp.read_text() == fingerprint):
        args = [str(toolchain.node_modules()), str(vk_json_path), str(verifier_template), str(registry), str(out_dir)]
        toolchain.run_node(SCRIPT, args, cwd=out_dir)
        stamp.write_text(fingerprint)
    raw = json.loads(cached.read_text())
    return CompiledContracts(
        verifier=CompiledContract.model_validate(raw["Groth16Verifier"]),
        registry=CompiledContract.model_validate(raw["CertificateRegistry"]),
        solc_version=raw["solcVersion"],
        verification_key_sha256=hashlib.sha256(vk_json_path.read_bytes()).hexdigest(),
    )

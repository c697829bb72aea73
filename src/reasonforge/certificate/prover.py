"""Circuit build (circom2 --O2), cached circuit-specific Groth16 setup, witness, prove, verify.

Witnesses come from circom's C++ generator where the host can build it (native_witness.py), else
from the WASM one under Node; both write the same .wtns.

Setup here is single-party and therefore INSECURE FOR PRODUCTION: whoever runs it could forge
proofs. Production keys come from the multi-party ceremony in scripts/ceremony.sh, imported with
`import_ceremony_keys`.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

from pydantic import BaseModel

from reasonforge.certificate import native_witness, toolchain
from reasonforge.certificate.params import CircuitParams

CIRCUITS = Path(__file__).resolve().parent / "circuits"
PUBLIC_INPUTS = ("taskHash", "commitment", "validatorRoot", "packed")
Progress = Callable[[str], None]
NATIVE_FAILED = "native-witness.failed"  # why the C++ build failed, so it is not retried on every start


class CircuitKeys(BaseModel):
    """Where one circuit instance's artefacts live."""

    params: CircuitParams
    folder: Path

    @property
    def wasm(self) -> Path:
        """Witness generator compiled by circom."""
        return self.folder / "main_js" / "main.wasm"

    @property
    def r1cs(self) -> Path:
        """Constraint system."""
        return self.folder / "main.r1cs"

    @property
    def proving_key(self) -> Path:
        """groth16py proving key (arkworks serialisation)."""
        return self.folder / "proving_key.bin"

    @property
    def verification_key(self) -> Path:
        """snarkjs-shaped verification_key.json."""
        return self.folder / "verification_key.json"


def main_source(params: CircuitParams) -> str:
    """The main component for an instance: the only place template arguments are written."""
    return (
        "pragma circom 2.1.0;\n"
        'include "verdict_lib.circom";\n'
        f"component main {{public [{', '.join(PUBLIC_INPUTS)}]}} = "
        f"VerdictCertificate({params.max_steps}, {params.max_validators}, {params.merkle_depth}, {params.open_bits});\n"
    )


def source_digest(params: CircuitParams) -> str:
    """Fingerprint of everything the build depends on, so a changed circuit rebuilds."""
    lib = (CIRCUITS / "verdict_lib.circom").read_bytes()
    circom = (toolchain.node_modules() / "circom2" / "package.json").read_bytes()
    return hashlib.sha256(lib + main_source(params).encode() + circom).hexdigest()


@contextmanager
def _locked(folder: Path) -> Iterator[None]:
    """Serialise builds of one instance across processes (pytest-xdist workers share the cache)."""
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / ".lock", "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def compile_circuit(folder: Path, outputs: tuple[str, ...] = ("--r1cs", "--wasm")) -> None:
    """circom2 --O2 from inside the build folder (circom2's WASI sandbox sees only the cwd)."""
    lib = folder / "lib" / "circomlib"
    if lib.exists():
        shutil.rmtree(lib)
    shutil.copytree(toolchain.node_modules() / "circomlib" / "circuits", lib)
    shutil.copy(CIRCUITS / "verdict_lib.circom", folder / "verdict_lib.circom")
    script = toolchain.bin_script("circom2", "cli.js")
    toolchain.run_node(script, ["--O2", *outputs, "-l", "lib/circomlib", "-o", ".", "main.circom"], cwd=folder)


def keys_ready(params: CircuitParams, cache: Path) -> bool:
    """Are this circuit's keys built for its current source (so the next `ensure_keys` returns at once)?"""
    keys = CircuitKeys(params=params, folder=cache / params.name)
    try:
        built = (keys.folder / "build.stamp").read_text() == source_digest(params) and keys.proving_key.exists()
    except OSError:
        return False
    native_settled = (native_witness.binary(keys.folder) is not None or (keys.folder / NATIVE_FAILED).exists()
                      or native_witness.unavailable_reason() is not None)
    return built and native_settled


def ensure_keys(params: CircuitParams, cache: Path, progress: Progress | None = None) -> CircuitKeys:
    """Compile and run the (development, single-party) setup once; reuse the cache afterwards."""
    keys = CircuitKeys(params=params, folder=cache / params.name)
    digest = source_digest(params)
    stamp = keys.folder / "build.stamp"
    say = progress or (lambda _msg: None)
    with _locked(keys.folder):
        if stamp.exists() and stamp.read_text() == digest and keys.proving_key.exists():
            _ensure_native_witness(keys, say)
            return keys
        (keys.folder / "main.circom").write_text(main_source(params))
        shutil.rmtree(keys.folder / native_witness.SOURCE_DIR, ignore_errors=True)  # built for the old circuit
        (keys.folder / NATIVE_FAILED).unlink(missing_ok=True)
        started = time.monotonic()
        say(f"compiling circuit {params.name} with circom2 --O2 (one-off)...")
        compile_circuit(keys.folder)
        say(
            f"running development Groth16 setup (insecure for production; one-off, {time.monotonic() - started:.0f}s so far)..."
        )
        pk, vk = _groth16().setup(str(keys.r1cs))
        pk.save(str(keys.proving_key))
        keys.verification_key.write_text(vk.to_json())
        (keys.folder / "INSECURE-DEVELOPMENT-KEYS.txt").write_text(
            "These keys come from a single-party setup: whoever ran it can forge proofs.\n"
            "Use scripts/ceremony.sh for production keys.\n"
        )
        stamp.write_text(digest)
        _ensure_native_witness(keys, say)
        say(f"circuit keys ready in {time.monotonic() - started:.0f}s")
    return keys


def _ensure_native_witness(keys: CircuitKeys, say: Progress) -> None:
    """Build the C++ witness generator once where the host allows; on failure keep the WASM one."""
    if native_witness.binary(keys.folder) or (keys.folder / NATIVE_FAILED).exists():
        return
    if native_witness.unavailable_reason() is not None:
        return  # nothing to report: the WASM generator is the documented fallback
    say("building the C++ witness generator (one-off)...")
    try:
        if not (keys.folder / native_witness.SOURCE_DIR / "main.cpp").exists():
            # A run of its own: with --c, circom2 names every output main_c (main_c.r1cs, main_c_js/), so
            # combining it with the --r1cs --wasm build would move the files the keys are made from.
            compile_circuit(keys.folder, ("--c",))
        native_witness.build(keys.folder)
    except (toolchain.ToolchainError, subprocess.TimeoutExpired) as exc:
        (keys.folder / NATIVE_FAILED).write_text(f"{exc}\n")
        say(f"C++ witness generator not built, witnesses stay on WASM: {exc}")


class Prover:
    """Loaded keys for one circuit instance; safe to share between threads (proofs take turns)."""

    def __init__(self, keys: CircuitKeys, *, native: bool = True) -> None:
        """`native`: use the C++ witness generator when it is built (else always the WASM one)."""
        self.keys = keys
        self._lock = threading.Lock()
        self._pk = _groth16().ProvingKey.load(str(keys.proving_key))
        self._vk_json = keys.verification_key.read_text()
        self._verifier = _groth16().Verifier(_groth16().VerifyingKey.from_snarkjs(self._vk_json))
        self._native = native_witness.binary(keys.folder) if native else None

    @property
    def witness_engine(self) -> str:
        """Which generator computes witnesses: "native" (C++) or "wasm" (Node)."""
        return "native" if self._native else "wasm"

    @property
    def verification_key_json(self) -> str:
        """snarkjs verification key JSON."""
        return self._vk_json

    def witness(self, inputs: dict[str, object], workdir: Path) -> Path:
        """Compute the .wtns with circom's generated witness calculator."""
        workdir.mkdir(parents=True, exist_ok=True)
        (workdir / "input.json").write_text(json.dumps(_stringify(inputs)))
        if self._native:
            native_witness.compute(self._native, workdir / "input.json", workdir / "witness.wtns")
            return workdir / "witness.wtns"
        script = self.keys.folder / "main_js" / "generate_witness.js"
        toolchain.run_node(script, [str(self.keys.wasm), "input.json", "witness.wtns"], cwd=workdir)
        return workdir / "witness.wtns"

    def prove(self, inputs: dict[str, object], public: list[int], workdir: Path) -> bytes:
        """Witness, prove, then verify the proof."""
        return self.prove_witness(self.witness(inputs, workdir), public)

    def prove_witness(self, wtns: Path, public: list[int]) -> bytes:
        """Prove from a witness file, then verify: groth16py does not check the witness, so never trust an unverified proof."""
        with self._lock:
            proof = _groth16().prove_wtns(self._pk, str(wtns))
        if not self._verifier.verify(proof, public):
            raise ProofError("the fresh proof does not verify: the inputs violate the circuit's constraints")
        return proof

    def verify(self, proof: bytes, public: list[int]) -> bool:
        """Groth16 verification of a 256-byte proof against the public inputs."""
        return verify_proof(self._vk_json, proof, public)


def _groth16() -> ModuleType:
    """groth16py (the certificate extra), imported when a proof is made or checked, so that what only reads
    certificates imports without it."""
    import groth16py

    return groth16py


class ProofError(toolchain.ReasonForgeError):
    """Proving failed or produced an invalid proof."""

    code = "certificate_proof_error"


def verify_proof(vk_json: str, proof: bytes, public: list[int]) -> bool:
    """Offline verification with only the verification key (no proving key, no Node)."""
    if len(proof) != 256:
        return False
    groth16py = _groth16()
    try:
        return bool(groth16py.Verifier(groth16py.VerifyingKey.from_snarkjs(vk_json)).verify(proof, public))
    except (groth16py.VerificationError, groth16py.EncodingError, ValueError):
        return False


def _stringify(value: object) -> object:
    """Ints as decimal strings: circom's witness calculator reads JSON numbers as doubles."""
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list):
        return [_stringify(v) for v in value]
    if isinstance(value, dict):
        return {k: _stringify(v) for k, v in value.items()}
    return value


def import_ceremony_keys(zkey: Path, params: CircuitParams, cache: Path) -> CircuitKeys:
    """Install keys from a finished multi-party ceremony (scripts/ceremony.sh) in place of dev keys."""
    keys = ensure_keys(params, cache)  # the compiled circuit must exist; its dev keys are replaced
    with _locked(keys.folder):
        pk, vk = _groth16().import_zkey(str(zkey))
        pk.save(str(keys.proving_key))
        keys.verification_key.write_text(vk.to_json())
        (keys.folder / "INSECURE-DEVELOPMENT-KEYS.txt").unlink(missing_ok=True)
        (keys.folder / "CEREMONY-KEYS.txt").write_text(f"imported from {zkey.name}\n")
    return keys

"""Proofs on the reduced circuit: issue, offline check, independent verifiers, tampering, sequences."""

from __future__ import annotations

import json
import secrets
import subprocess
from pathlib import Path

import pytest

from reasonforge.certificate import (
    CertificateError,
    check_certificate,
    toolchain,
    validators,
    witness,
)
from reasonforge.certificate.issue import plan_verdict_hash
from reasonforge.certificate.params import FIELD_MODULUS, SMALL, pack_public
from reasonforge.certificate.prover import ProofError, Prover
from reasonforge.chain import digest_of
from reasonforge.types import Assurance, Overall, ProofLevel, Spec, StepStatus

import pyecc_groth16
from certhelpers import load_verdict

CANNOT_PROVE = (ProofError, toolchain.ToolchainError)  # witness calculator asserts, or proof check fails


def resealed(cert, **changes):
    """A tampered certificate whose id is recomputed, so only the proof can catch the change."""
    tampered = cert.model_copy(update={"attestations": [], **changes}, deep=True)  # attacker cannot re-sign
    tampered.certificate_id = tampered.content_hash()
    return tampered


def test_issued_certificate_verifies_offline(issued, vk_json) -> None:
    cert, opening = issued
    result = check_certificate(cert, vk_json, opening=opening)
    assert result.valid, result.reasons
    assert (cert.total_steps, cert.verified_steps, cert.overall_verdict) == (4, 4, "VERIFIED")
    assert cert.validator_count == 3 and cert.validator_threshold == 2
    assert len(bytes.fromhex(cert.zk_proof[0].proof)) == 256
    assert {s.name for s in cert.checker_specs} >= {"sympy-relations"}


def test_snarkjs_and_py_ecc_accept_the_same_proof(issued, vk_json, tmp_path: Path) -> None:
    cert, _ = issued
    seg = cert.zk_proof[0]
    proof = bytes.fromhex(seg.proof)
    w = [str(int.from_bytes(proof[i : i + 32], "big")) for i in range(0, 256, 32)]
    snark_proof = {
        "pi_a": [w[0], w[1], "1"],
        "pi_b": [[w[3], w[2]], [w[5], w[4]], ["1", "0"]],
        "pi_c": [w[6], w[7], "1"],
        "protocol": "groth16",
        "curve": "bn128",
    }
    (tmp_path / "vk.json").write_text(vk_json)
    (tmp_path / "proof.json").write_text(json.dumps(snark_proof))
    cli = str(toolchain.node_modules() / "snarkjs" / "build" / "cli.cjs")

    def snarkjs(public: list[str]) -> bool:
        (tmp_path / "public.json").write_text(json.dumps(public))
        run = subprocess.run(
            ["node", cli, "groth16", "verify", "vk.json", "public.json", "proof.json"],
            check=False,
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )
        return run.returncode == 0 and "OK" in run.stdout

    assert snarkjs(seg.public_inputs)
    bumped = [seg.public_inputs[0], seg.public_inputs[1], seg.public_inputs[2], str(int(seg.public_inputs[3]) + 1)]
    assert not snarkjs(bumped)
    assert pyecc_groth16.verify(vk_json, proof, seg.public_ints())
    assert not pyecc_groth16.verify(vk_json, proof, [int(x) for x in bumped])


# --- tampering with the public certificate: the offline check fails (one test each)


def test_flipping_verified_count_fails(issued, vk_json) -> None:
    cert, _ = issued
    seg = cert.zk_proof[0].model_copy(update={"verified_steps": 3})
    bad = resealed(cert, verified_steps=3, overall_verdict="PARTIAL", zk_proof=[seg])
    reasons = check_certificate(bad, vk_json).reasons
    assert any("verified_steps is 4, certificate says 3" in r for r in reasons)


BOUND = "task input is not derived from this certificate's"


def test_changing_task_hash_fails(issued, vk_json) -> None:
    cert, _ = issued
    bad = resealed(cert, task_hash="00" + cert.task_hash[2:])
    assert any(BOUND in r for r in check_certificate(bad, vk_json).reasons)


@pytest.mark.parametrize(
    "changes",
    [
        {"proof_level": "formal"},
        {"proof_level": "standard"},
        {"domain": "code"},
        {"assurance": "corroborated"},
        {"verdict_digest": "ab" * 32},
        {"checkers_digest": "cd" * 32},
    ],
    ids=lambda c: next(iter(c)),
)
def test_a_quick_check_cannot_be_presented_as_another(issued, vk_json, changes) -> None:
    """Every bound field is under the validators' signatures: resealing the id after an edit is not enough."""
    cert, _ = issued
    assert cert.proof_level == "quick"
    reasons = check_certificate(resealed(cert, **changes), vk_json).reasons
    assert any(BOUND in r for r in reasons), reasons


def test_edited_checker_list_is_refused(issued, vk_json) -> None:
    cert, _ = issued
    lean = Spec(name="lean4", version="1", args={})
    reasons = check_certificate(resealed(cert, checker_specs=[lean]), vk_json).reasons
    assert any("checker_specs are not the checkers the validators signed" in r for r in reasons), reasons


def test_certificate_binds_what_was_proven(issued) -> None:
    cert, _ = issued
    verdict = load_verdict()
    assert (cert.proof_level, cert.domain, cert.assurance) == ("quick", "mathematics", "proven")
    assert cert.verdict_digest == verdict.verdict_digest == digest_of(verdict)
    assert cert.zk_proof[0].public_ints()[0] == cert.bound_task_input()


def test_verdict_json_is_checked_against_the_digest(issued, vk_json) -> None:
    cert, _ = issued
    verdict = load_verdict()
    assert check_certificate(cert, vk_json, verdict=verdict).valid
    edited = verdict.model_copy(update={"claimed_answer": "z = 6"})
    reasons = check_certificate(cert, vk_json, verdict=edited).reasons
    assert any("recomputed verdict_digest is not the certificate's" in r for r in reasons), reasons
    formal = verdict.model_copy(update={"proof_level": ProofLevel.FORMAL})
    reasons = check_certificate(cert, vk_json, verdict=formal).reasons
    assert "the verdict's proof_level is formal, the certificate's quick" in reasons


def test_forged_public_inputs_fail_the_proof(issued, vk_json) -> None:
    cert, _ = issued
    seg = cert.zk_proof[0]
    values = {
        "verified_steps": 4,
        "total_steps": 4,
        "validator_count": 3,
        "threshold": 1,
        "timestamp": cert.timestamp,
        "stake_threshold": cert.stake_threshold,
    }
    forged = seg.model_copy(update={"public_inputs": seg.public_inputs[:3] + [str(pack_public(values))]})
    bad = resealed(cert, validator_threshold=1, zk_proof=[forged])
    reasons = check_certificate(bad, vk_json).reasons
    assert reasons == ["segment 0: Groth16 proof does not verify"]


def test_changing_threshold_fails(issued, vk_json) -> None:
    cert, _ = issued
    reasons = check_certificate(resealed(cert, validator_threshold=1), vk_json).reasons
    assert any("threshold is 2, certificate says 1" in r for r in reasons)


def test_changing_validator_key_commitment_fails(issued, vk_json) -> None:
    cert, _ = issued
    bad = resealed(cert, validator_commitment="0x" + "11" * 32)
    assert any("validator root differs" in r for r in check_certificate(bad, vk_json).reasons)


def test_tampered_attestation_fails(issued, vk_json) -> None:
    cert, _ = issued
    att = cert.attestations[0].model_copy(update={"signature": "00" * 64})
    bad = cert.model_copy(update={"attestations": [att, *cert.attestations[1:]]})
    assert any("Ed25519 attestation" in r for r in check_certificate(bad, vk_json).reasons)


def test_unsealed_edit_breaks_certificate_id(issued, vk_json) -> None:
    cert, _ = issued
    bad = cert.model_copy(update={"domain": "code"})
    assert any("certificate_id" in r for r in check_certificate(bad, vk_json).reasons)


def test_flipped_step_in_opening_fails(issued, vk_json) -> None:
    cert, opening = issued
    bits = list(opening.step_bits)
    bits[1] = not bits[1]
    reasons = check_certificate(cert, vk_json, opening=opening.model_copy(update={"step_bits": bits})).reasons
    assert reasons == ["segment 0: step verdicts do not open the commitment"]


def test_wrong_verification_key_fails(issued, vk_json) -> None:
    cert, _ = issued
    other = json.loads(vk_json)
    other["IC"][1], other["IC"][2] = other["IC"][2], other["IC"][1]
    reasons = check_certificate(cert, json.dumps(other)).reasons
    assert "verification key does not match the certificate's key reference" in reasons


# --- tampering with the witness: no valid proof can be produced


@pytest.fixture(scope="module")
def statement_setup():
    vset = validators.generate(4, threshold=2)
    root = vset.levels(SMALL.merkle_depth)[-1][0]
    statement = witness.Statement(
        task_input=987654321,
        step_bits=(True, False, True),
        salt=secrets.randbelow(FIELD_MODULUS),
        timestamp=1_767_000_000,
        threshold=2,
        stake_threshold=200,
        validator_root=root,
    )
    return vset, statement


def _inputs(vset, statement, slots) -> dict:
    return witness.circuit_inputs(SMALL, statement, slots, witness.tree_opening(vset, SMALL))


def _prove(prover: Prover, vset, statement, slots, tmp_path: Path) -> bytes:
    return prover.prove(_inputs(vset, statement, slots), witness.public_inputs(statement, len(slots)), tmp_path)


def test_honest_statement_proves(prover, statement_setup, tmp_path: Path) -> None:
    vset, statement = statement_setup
    slots = witness.sign_statement(vset, statement, SMALL.merkle_depth, [0, 2])
    assert len(_prove(prover, vset, statement, slots, tmp_path)) == 256


def test_flipped_step_verdict_cannot_be_proved(prover, statement_setup, tmp_path: Path) -> None:
    vset, statement = statement_setup
    slots = witness.sign_statement(vset, statement, SMALL.merkle_depth, [0, 1])
    inputs = _inputs(vset, statement, slots)
    inputs["stepBits"][1] = 1  # the signed commitment says step 2 failed
    inputs["verifiedSteps"] += 1
    with pytest.raises(CANNOT_PROVE):
        prover.prove(inputs, witness.public_inputs(statement, 2), tmp_path)


def test_padding_step_cannot_be_counted(prover, statement_setup, tmp_path: Path) -> None:
    vset, statement = statement_setup
    slots = witness.sign_statement(vset, statement, SMALL.merkle_depth, [0, 1])
    inputs = _inputs(vset, statement, slots)
    inputs["stepBits"][5] = 1  # beyond total_steps
    with pytest.raises(CANNOT_PROVE):
        prover.prove(inputs, witness.public_inputs(statement, 2), tmp_path)


def test_bad_signature_cannot_be_proved(prover, statement_setup, tmp_path: Path) -> None:
    vset, statement = statement_setup
    slots = witness.sign_statement(vset, statement, SMALL.merkle_depth, [0, 1])
    bad_sig = slots[1].signature.model_copy(update={"s": (slots[1].signature.s + 1)})
    slots[1] = slots[1].model_copy(update={"signature": bad_sig})
    with pytest.raises(CANNOT_PROVE):
        _prove(prover, vset, statement, slots, tmp_path)


def test_validator_outside_root_cannot_count(prover, statement_setup, tmp_path: Path) -> None:
    vset, statement = statement_setup
    outsider = validators.generate(1, threshold=1)
    merged = validators.ValidatorSet(
        validators=[*vset.validators[:1], outsider.validators[0]], threshold=2, stake_threshold=200
    )
    # Signed correctly, with a Merkle path in *its own* tree, but the statement's root is the real set's.
    slots = witness.sign_statement(merged, statement, SMALL.merkle_depth, [0, 1])
    with pytest.raises(CANNOT_PROVE):
        _prove(prover, vset, statement, slots, tmp_path)


def test_duplicated_validator_cannot_count_twice(prover, statement_setup, tmp_path: Path) -> None:
    vset, statement = statement_setup
    slot = witness.sign_statement(vset, statement, SMALL.merkle_depth, [1])[0]
    with pytest.raises(CANNOT_PROVE):
        _prove(prover, vset, statement, [slot, slot], tmp_path)


@pytest.mark.parametrize("claimed", [3, 6], ids=["other-sibling-position", "other-opening-node"])
def test_claimed_tree_position_must_match_the_path(prover, statement_setup, tmp_path: Path, claimed) -> None:
    vset, statement = statement_setup
    slots = witness.sign_statement(vset, statement, SMALL.merkle_depth, [0, 2])
    inputs = _inputs(vset, statement, slots)
    assert inputs["indexBits"][1] == [0, 1, 0, 0]  # leaf 2: position 2 under opening node 0
    # still above slot 0's index, so only the tree position can be wrong
    inputs["indexBits"][1] = [(claimed >> b) & 1 for b in range(SMALL.merkle_depth)]
    with pytest.raises(CANNOT_PROVE):
        prover.prove(inputs, witness.public_inputs(statement, 2), tmp_path)


def test_below_threshold_cannot_be_proved(prover, statement_setup, tmp_path: Path) -> None:
    vset, statement = statement_setup
    slots = witness.sign_statement(vset, statement, SMALL.merkle_depth, [3])
    with pytest.raises(CANNOT_PROVE):
        _prove(prover, vset, statement, slots, tmp_path)


def test_insufficient_stake_cannot_be_proved(prover, statement_setup, tmp_path: Path) -> None:
    vset, statement = statement_setup
    rich = statement.model_copy(update={"stake_threshold": 201})
    slots = witness.sign_statement(vset, rich, SMALL.merkle_depth, [0, 1])
    with pytest.raises(CANNOT_PROVE):
        _prove(prover, vset, rich, slots, tmp_path)


# --- chains longer than the circuit: a verified sequence of linked proofs


def rehashed(verdict):
    """The verdict with its plan hash and digest recomputed (as the pipeline would have written them)."""
    verdict = verdict.model_copy(update={"verdict_hash": plan_verdict_hash(verdict)})
    return verdict.model_copy(update={"verdict_digest": digest_of(verdict)})


def long_verdict(n: int = 11):
    base = load_verdict()
    steps = [
        base.step_verdicts[0].model_copy(update={
            "step_id": i + 1,
            "verified": i % 4 != 3,
            "status": StepStatus.VERIFIED if i % 4 != 3 else StepStatus.UNSUPPORTED,
        })
        for i in range(n)
    ]
    verdict = base.model_copy(
        update={
            "step_verdicts": steps,
            "total_steps": n,
            "verified_steps": sum(s.verified for s in steps),
            "overall": Overall.PARTIAL,
            "assurance": Assurance.UNPROVEN,
        }
    )
    return rehashed(verdict)


def test_long_chain_becomes_linked_sequence(issuer, vk_json) -> None:
    cert, opening = issuer.issue(long_verdict(), timestamp=1_767_000_000)
    assert [s.total_steps for s in cert.zk_proof] == [8, 3]
    assert check_certificate(cert, vk_json, opening=opening).valid
    # Reordering or dropping a segment breaks the accumulator chain.
    swapped = resealed(cert, zk_proof=list(reversed(cert.zk_proof)))
    assert not check_certificate(swapped, vk_json).valid
    dropped = resealed(cert, zk_proof=cert.zk_proof[1:], total_steps=3, verified_steps=cert.zk_proof[1].verified_steps)
    assert any(BOUND in r for r in check_certificate(dropped, vk_json).reasons)


def test_one_issuer_serves_concurrent_requests(issuer, vk_json) -> None:
    from concurrent.futures import ThreadPoolExecutor

    base = load_verdict()
    verdicts = [base, rehashed(base.model_copy(update={"task_hash": "ab" * 32}))]
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda v: issuer.issue(v, timestamp=1_767_000_000), verdicts))
    assert len({cert.certificate_id for cert, _ in results}) == 2
    for (cert, opening), verdict in zip(results, verdicts):
        assert cert.task_hash == verdict.task_hash
        assert check_certificate(cert, vk_json, opening=opening).valid


def test_verify_url_names_the_certificate(issuer, vk_json) -> None:
    cert, _ = issuer.issue(load_verdict(), timestamp=1_767_000_000, verify_base="https://verify.example.org/")
    assert cert.verify_url == f"https://verify.example.org/{cert.certificate_id}"
    assert check_certificate(cert, vk_json).valid
    moved = cert.model_copy(update={"verify_url": "https://verify.example.org/0x" + "00" * 32})
    assert check_certificate(moved, vk_json).reasons == ["verify_url does not point at this certificate id"]
    with pytest.raises(CertificateError, match="not an http"):
        issuer.issue(load_verdict(), verify_base="ftp://example.org")


def test_benchmark_reads_constraint_count(prover) -> None:
    import importlib.util

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "certificates.py"
    spec = importlib.util.spec_from_file_location("certificates_bench", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    counts = module.r1cs_counts(prover.keys.r1cs)
    assert counts["public_inputs"] == 4 and 10_000 < counts["constraints"] < 30_000

"""Hashes, Poseidon, EdDSA-Poseidon (against circomlibjs), Merkle tree, Ed25519, packing."""

from __future__ import annotations

import json
import subprocess

import pytest

from reasonforge.certificate import attest, babyjub, canonical, merkle, toolchain
from reasonforge.certificate.params import FULL, pack_public, unpack_public
from reasonforge.certificate.poseidon import poseidon
from reasonforge.certificate.prover import CIRCUITS, main_source

from certhelpers import HERE, require_node_tools


def test_poseidon_matches_circomlibjs_vectors() -> None:
    # Reference values printed by circomlibjs 0.1.7 buildPoseidon().
    assert poseidon([1, 2]) == 7853200120776062878684798364095072458815029376092732009249414926327459813530
    assert poseidon([1, 2, 3, 4, 5]) == 6183221330272524995739186171720101788151706631170188140075976616310159254464


def test_poseidon_rejects_non_field_input() -> None:
    with pytest.raises(ValueError, match="not a BN254 field element"):
        poseidon([-1])


def test_eddsa_poseidon_interoperates_with_circomlibjs() -> None:
    require_node_tools()
    seed, message = bytes(range(32)), 123456789
    pub = babyjub.public_key(seed)
    sig = babyjub.sign(seed, message)
    request = {
        "prv": "11" * 32,
        "msg": str(message),
        "py_pub": [str(pub[0]), str(pub[1])],
        "py_sig": sig.model_dump(mode="json") | {k: str(v) for k, v in sig.model_dump().items()},
        "poseidon_inputs": [[7, 8, 9], [1, 2, 3, 4]],
    }
    out = subprocess.run(
        ["node", str(HERE / "eddsa_compat.cjs"), str(toolchain.node_modules())],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    reply = json.loads(out.stdout)
    assert reply["py_sig_valid"] is True  # circomlibjs accepts our signature
    assert reply["py_sig_wrong_msg_valid"] is False
    js_pub = (int(reply["pub"][0]), int(reply["pub"][1]))
    js_sig = babyjub.EddsaSignature(**{k: int(v) for k, v in reply["sig"].items()})
    assert babyjub.verify(js_pub, message, js_sig)  # we accept circomlibjs's signature
    assert not babyjub.verify(js_pub, message + 1, js_sig)
    assert [int(x) for x in reply["poseidon"]] == [poseidon([7, 8, 9]), poseidon([1, 2, 3, 4])]


def test_eddsa_rejects_tampering() -> None:
    seed = bytes(32)
    pub, sig = babyjub.public_key(seed), babyjub.sign(seed, 42)
    assert babyjub.verify(pub, 42, sig)
    assert not babyjub.verify(pub, 43, sig)
    assert not babyjub.verify(babyjub.public_key(bytes([1]) * 32), 42, sig)
    assert not babyjub.verify(pub, 42, sig.model_copy(update={"s": sig.s + 1}))


def test_merkle_membership_and_refusals() -> None:
    leaves = [merkle.leaf_for(babyjub.public_key(bytes([i]) * 32), 10 + i) for i in range(5)]
    levels = merkle.build_levels(leaves, 4)
    assert [len(level) for level in levels] == [16, 4, 1]  # quaternary: 2 index bits per level
    root = merkle.root(levels)
    for i, leaf in enumerate(leaves):
        assert merkle.verify(leaf, merkle.prove(levels, i), root)
    assert not merkle.verify(leaves[0], merkle.prove(levels, 1), root)
    outsider = merkle.leaf_for(babyjub.public_key(bytes([99]) * 32), 10)
    assert not merkle.verify(outsider, merkle.prove(levels, 0), root)
    # the same children under another index put the leaf at another position: refused
    moved = merkle.prove(levels, 4).model_copy(update={"index": 5})
    assert not merkle.verify(leaves[4], moved, root)
    assert merkle.opening(levels, 2) == levels[1]
    assert merkle.root([[poseidon(levels[1])]]) == root
    with pytest.raises(ValueError, match="duplicate validator key"):
        merkle.build_levels([leaves[0], leaves[0]], 4)
    with pytest.raises(ValueError, match="do not fit"):
        merkle.build_levels(leaves, 2)
    with pytest.raises(ValueError, match="even depth"):
        merkle.build_levels(leaves, 5)


def test_circuit_params_are_whole_quaternary_levels() -> None:
    from pydantic import ValidationError

    from reasonforge.certificate.params import CircuitParams

    assert (FULL.merkle_depth, FULL.open_bits, FULL.path_levels) == (10, 4, 3)
    with pytest.raises(ValidationError, match="must be even"):
        CircuitParams(max_steps=8, max_validators=3, merkle_depth=5, open_bits=2)
    with pytest.raises(ValidationError, match="must be below"):
        CircuitParams(max_steps=8, max_validators=3, merkle_depth=4, open_bits=4)


def test_ed25519_attestation() -> None:
    a = attest.attest(bytes(32), "0xabc")
    assert attest.check_attestation(a, "0xabc")
    assert not attest.check_attestation(a, "0xabd")
    assert not attest.check_attestation(a.model_copy(update={"signature": "00" * 64}), "0xabc")


def test_canonical_hash_is_order_independent() -> None:
    assert canonical.sha256_hex({"b": 1, "a": "é"}) == canonical.sha256_hex({"a": "é", "b": 1})
    assert canonical.hex_to_field("ff" * 32) == (1 << 248) - 1


def test_pack_roundtrip_and_range() -> None:
    values = {
        "verified_steps": 3,
        "total_steps": 4,
        "validator_count": 3,
        "threshold": 2,
        "timestamp": 1_767_000_000,
        "stake_threshold": 200,
    }
    assert unpack_public(pack_public(values)) == values
    with pytest.raises(ValueError, match="does not fit"):
        pack_public(values | {"total_steps": 256})


def test_committed_main_circuit_matches_full_params() -> None:
    committed = (CIRCUITS / "verdict.circom").read_text()
    assert main_source(FULL).splitlines()[-1] in committed


def test_local_validator_set_is_created_once_with_private_permissions(tmp_path) -> None:
    import os

    from reasonforge.certificate import validators
    from reasonforge.certificate.params import SMALL

    path = tmp_path / "validators.json"
    first, created = validators.load_or_create(path, SMALL)
    again, created_again = validators.load_or_create(path, SMALL)
    assert (created, created_again) == (True, False) and first == again
    assert os.stat(path).st_mode & 0o777 == 0o600
    assert len(first.validators) == SMALL.max_validators and first.threshold == 2


def test_issue_refuses_inconsistent_verdicts(tmp_path) -> None:
    from reasonforge.certificate import CertificateError, issue
    from reasonforge.certificate.params import SMALL

    from certhelpers import load_verdict

    verdict = load_verdict()
    with pytest.raises(CertificateError, match="verified_steps disagrees"):
        issue(verdict.model_copy(update={"verified_steps": 3}), home=tmp_path, params=SMALL)
    with pytest.raises(CertificateError, match="no task_hash"):
        issue(verdict.model_copy(update={"task_hash": ""}), home=tmp_path, params=SMALL)
    with pytest.raises(CertificateError, match="verdict_hash does not match"):
        issue(verdict.model_copy(update={"verdict_hash": "00" * 32}), home=tmp_path, params=SMALL)


def test_issue_refuses_a_verdict_that_overstates_what_was_proven(tmp_path) -> None:
    """Edits an attacker would make to a verdict file before asking for a certificate."""
    from reasonforge.certificate import CertificateError, issue
    from reasonforge.certificate.params import SMALL
    from reasonforge.chain import digest_of
    from reasonforge.types import Assurance, Overall, ProofLevel

    from certhelpers import load_verdict

    verdict = load_verdict()
    # relabelled formal, digest left as it was: the digest no longer matches
    with pytest.raises(CertificateError, match="verdict_digest does not match"):
        issue(verdict.model_copy(update={"proof_level": ProofLevel.FORMAL}), home=tmp_path, params=SMALL)
    # relabelled formal with the digest recomputed: SymPy is not a proof assistant
    formal = verdict.model_copy(update={"proof_level": ProofLevel.FORMAL})
    formal = formal.model_copy(update={"verdict_digest": digest_of(formal)})
    with pytest.raises(CertificateError, match="step 1 is verified at the formal level by sympy-relations"):
        issue(formal, home=tmp_path, params=SMALL)
    # a step checked only on the arithmetic inside its prose keeps the chain PARTIAL
    steps = list(verdict.step_verdicts)
    steps[1] = steps[1].model_copy(update={"evidence": steps[1].evidence.model_copy(update={"kind": "relations"})})
    relations = verdict.model_copy(update={"step_verdicts": steps, "verdict_digest": ""})
    with pytest.raises(CertificateError, match="overall VERIFIED is not what the steps' statuses and evidence give"):
        issue(relations, home=tmp_path, params=SMALL)
    with pytest.raises(CertificateError, match="assurance corroborated is not what the steps give"):
        issue(verdict.model_copy(update={"assurance": Assurance.CORROBORATED, "verdict_digest": ""}),
              home=tmp_path, params=SMALL)
    with pytest.raises(CertificateError, match="overall PARTIAL"):
        issue(verdict.model_copy(update={"overall": Overall.PARTIAL, "verdict_digest": "", "verdict_hash": ""}),
              home=tmp_path,
              params=SMALL)
    assert not (tmp_path / "certificate" / "keys").exists()  # refused before any key was built


def test_binding_rules_match_the_chain_verdict_rules() -> None:
    from reasonforge.certificate.binding import expected_overall

    assert expected_overall("proven", 4, 4) == expected_overall("corroborated", 4, 4) == "VERIFIED"
    assert expected_overall("arithmetic", 4, 4) == expected_overall("self_tested", 4, 4) == "PARTIAL"
    assert expected_overall("unproven", 2, 4) == expected_overall("refuted", 1, 4) == "PARTIAL"
    assert expected_overall("refuted", 0, 4) == "FAILED"
    assert expected_overall("proven", 3, 4) is None and expected_overall("unproven", 4, 4) is None


def test_every_certificate_asset_ships_as_package_data() -> None:
    import fnmatch
    import tomllib

    root = HERE.parent.parent
    patterns = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["reasonforge"]
    package = root / "src" / "reasonforge"
    assets = [
        p.relative_to(package).as_posix()
        for p in (package / "certificate").rglob("*")
        if p.is_file() and p.suffix not in {".py", ".pyc"} and "__pycache__" not in p.parts
    ]
    assert {"certificate/circuits/verdict_lib.circom", "certificate/js/contracts.cjs"} <= set(assets)
    missing = [a for a in assets if not any(fnmatch.fnmatch(a, pattern) for pattern in patterns)]
    assert missing == [], f"add these to [tool.setuptools.package-data]: {missing}"

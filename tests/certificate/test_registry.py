"""The EVM registry on a loopback node: deploy, register, query, refuse tampering; CLI end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from certhelpers import HERE
from typer.testing import CliRunner

from reasonforge.certificate import devnode, registry, solidity
from reasonforge.certificate.registry import RegistryError
from reasonforge.cli import app

ROOT = HERE.parent.parent


@pytest.fixture(scope="module")
def node():
    server, url = devnode.start()
    yield url
    devnode.stop(server)


@pytest.fixture(scope="module")
def chain(node, issued, prover, tmp_path_factory):
    """Compiled contracts and a fresh deployment trusting the issued certificate's validator root."""
    cert, _ = issued
    compiled = solidity.compile_contracts(prover.keys.verification_key, tmp_path_factory.mktemp("contracts"))
    w3 = registry.connect(node)
    deployment = registry.deploy(w3, compiled, int(cert.validator_commitment, 16))
    return w3, compiled, deployment


def test_register_then_is_verified(chain, issued) -> None:
    w3, compiled, dep = chain
    cert, _ = issued
    assert not registry.is_verified(w3, compiled, dep.registry, cert.task_hash)
    assert registry.verify_on_chain(w3, compiled, dep.verifier, cert)
    reg = registry.register(w3, compiled, dep.registry, cert)
    assert registry.is_verified(w3, compiled, dep.registry, cert.task_hash)
    contract = registry.registry_contract(w3, compiled, dep.registry)
    assert contract.functions.verifyCertificate(bytes.fromhex(cert.certificate_id[2:])).call({"gas": 10**6})
    receipt = w3.eth.get_transaction_receipt(reg.tx_hash)
    (event,) = contract.events.CertificateRegistered().process_receipt(receipt)
    assert event["args"]["taskHash"] == bytes.fromhex(cert.task_hash)
    assert (event["args"]["verifiedSteps"], event["args"]["totalSteps"]) == (4, 4)
    with pytest.raises(RegistryError, match="CertificateExists"):
        registry.register(w3, compiled, dep.registry, cert)
    other_id = cert.model_copy(update={"certificate_id": "0x" + "ab" * 32})
    with pytest.raises(RegistryError, match="TaskAlreadyCertified"):
        registry.register(w3, compiled, dep.registry, other_id)


def _fresh(cert, **changes):
    """Same proof, new id (so duplicate checks do not mask the proof check)."""
    return cert.model_copy(update={"certificate_id": "0x" + "cd" * 32, **changes})


@pytest.mark.parametrize(
    ("changes", "error"),
    [
        ({"verified_steps": 3, "overall_verdict": "PARTIAL"}, "InvalidProof"),
        ({"task_hash": "00" * 32}, "InvalidProof"),
        ({"validator_threshold": 1}, "InvalidProof"),
        ({"verdict_commitment": "0x" + "01" * 32}, "InvalidProof"),  # a flipped step changes the commitment
        ({"timestamp": 1}, "InvalidProof"),
        ({"validator_commitment": "0x" + "22" * 32}, "UntrustedValidatorRoot"),
        ({"overall_verdict": "FAILED"}, "InconsistentVerdict"),
    ],
    ids=["verified-count", "task-hash", "threshold", "step-verdict", "timestamp", "validator-key", "verdict-label"],
)
def test_tampered_registration_reverts(chain, issued, changes, error) -> None:
    w3, compiled, _ = chain
    cert, _ = issued
    dep = registry.deploy(w3, compiled, int(cert.validator_commitment, 16))  # task not yet certified here
    tampered = _fresh(cert, **changes)
    with pytest.raises(RegistryError, match=error):
        registry.register(w3, compiled, dep.registry, tampered)


def test_trusted_but_wrong_root_fails_the_proof(chain, issued) -> None:
    w3, compiled, _ = chain
    cert, _ = issued
    dep = registry.deploy(w3, compiled, int(cert.validator_commitment, 16))
    other_root = "0x" + "33" * 32
    contract = registry.registry_contract(w3, compiled, dep.registry)
    contract.functions.setValidatorRoot(bytes.fromhex(other_root[2:]), True).transact(
        {"from": w3.eth.accounts[0], "gas": 100_000})
    with pytest.raises(RegistryError, match="InvalidProof"):
        registry.register(w3, compiled, dep.registry, _fresh(cert, validator_commitment=other_root))


def test_verify_proof_gas_is_within_budget(chain, issued) -> None:
    w3, compiled, dep = chain
    cert, _ = issued
    assert registry.verify_proof_gas(w3, compiled, dep.verifier, cert) < 250_000  # the plan's target


def test_cli_end_to_end(node, cert_home, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REASONFORGE_HOME", str(cert_home))
    runner = CliRunner()
    verdict = runner.invoke(app, ["verify", str(ROOT / "examples" / "pythagoras.json"), "--json"])
    assert verdict.exit_code == 0, verdict.output
    verdict_file, cert_file = tmp_path / "verdict.json", tmp_path / "cert.json"
    verdict_file.write_text(verdict.stdout)

    issued = runner.invoke(app, ["cert", "issue", str(verdict_file), "--out", str(cert_file), "--circuit", "small", "--json"])
    assert issued.exit_code == 0, issued.output
    assert json.loads(issued.stdout.strip().splitlines()[-1])["overall_verdict"] == "VERIFIED"

    ok = runner.invoke(app, ["cert", "verify", str(cert_file), "--opening", str(tmp_path / "cert.opening.json")])
    assert ok.exit_code == 0, ok.output

    reg = runner.invoke(app, ["cert", "register", str(cert_file), "--rpc", node, "--json"])
    assert reg.exit_code == 0, reg.output
    assert json.loads(reg.stdout.strip().splitlines()[-1])["is_verified"] is True

    after = runner.invoke(app, ["cert", "verify", str(cert_file), "--json"])
    assert after.exit_code == 0 and json.loads(after.stdout)["valid"] is True
    shown = runner.invoke(app, ["cert", "show", str(cert_file)])
    assert shown.exit_code == 0 and "registry_address" in shown.stdout

    data = json.loads(cert_file.read_text())
    data["verified_steps"] = 3
    cert_file.write_text(json.dumps(data))
    bad = runner.invoke(app, ["cert", "verify", str(cert_file)])
    assert bad.exit_code == 1
    assert "invalid:" in bad.stderr

"""The EVM registry on a loopback node: deploy, register, query, refuse tampering; CLI end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reasonforge.certificate import devnode, registry, solidity
from reasonforge.certificate.registry import RegistryError
from reasonforge.cli import app
from reasonforge.types import Assurance, Overall, StepStatus

from certhelpers import HERE, load_verdict

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


def test_register_then_is_verified(chain, issued, issuer) -> None:
    w3, compiled, dep = chain
    cert, _ = issued
    assert not registry.is_verified(w3, compiled, dep.registry, cert.task_hash)
    assert registry.verify_on_chain(w3, compiled, dep.verifier, cert)
    reg = registry.register(w3, compiled, dep.registry, cert)
    assert registry.is_verified(w3, compiled, dep.registry, cert.task_hash)
    assert registry.segment_commitments(w3, compiled, dep.registry, cert.certificate_id) == [cert.verdict_commitment]
    contract = registry.registry_contract(w3, compiled, dep.registry)
    assert contract.functions.verifyCertificate(bytes.fromhex(cert.certificate_id[2:])).call({"gas": 10**6})
    receipt = w3.eth.get_transaction_receipt(reg.tx_hash)
    (event,) = contract.events.CertificateRegistered().process_receipt(receipt)
    assert event["args"]["taskHash"] == bytes.fromhex(cert.task_hash)
    assert (event["args"]["verifiedSteps"], event["args"]["totalSteps"], event["args"]["proofLevel"]) == (4, 4, 2)
    stored = registry.stored_certificate(w3, compiled, dep.registry, cert.certificate_id)
    assert stored["verdictDigest"] == "0x" + cert.verdict_digest and stored["proofLevel"] == 2
    assert stored["checkersDigest"] == "0x" + cert.checkers_digest and stored["assurance"] == 0
    with pytest.raises(RegistryError, match="CertificateExists"):
        registry.register(w3, compiled, dep.registry, cert)
    # the registrant cannot choose the id: it is the content hash the contract recomputes
    other_id = cert.model_copy(update={"certificate_id": "0x" + "ab" * 32})
    with pytest.raises(RegistryError, match="CertificateIdMismatch"):
        registry.register(w3, compiled, dep.registry, other_id)
    again, _ = issuer.issue(load_verdict(), timestamp=1_767_000_001)  # the same task, the same level, a new id
    with pytest.raises(RegistryError, match="TaskAlreadyCertified"):
        registry.register(w3, compiled, dep.registry, again)


def _fresh(cert, **changes):
    """A tampered certificate with its id recomputed, so only the proof (or a consistency rule) can catch it."""
    tampered = cert.model_copy(update=changes)
    tampered.certificate_id = tampered.content_hash()
    return tampered


@pytest.mark.parametrize(
    ("changes", "error"),
    [
        ({"verified_steps": 3, "overall_verdict": "PARTIAL", "assurance": "unproven",
          "segment": {"verified_steps": 3}}, "InvalidProof"),
        ({"verified_steps": 3, "overall_verdict": "PARTIAL"}, "InconsistentVerdict"),
        ({"task_hash": "00" * 32}, "InvalidProof"),
        ({"validator_threshold": 1}, "InvalidProof"),
        ({"verdict_commitment": "0x" + "01" * 32}, "InvalidProof"),  # a flipped step changes the commitment
        ({"timestamp": 1}, "InvalidProof"),
        ({"validator_commitment": "0x" + "22" * 32}, "UntrustedValidatorRoot"),
        ({"overall_verdict": "FAILED"}, "InconsistentVerdict"),
        ({"proof_level": "formal"}, "InvalidProof"),
        ({"proof_level": "standard"}, "InvalidProof"),
        ({"domain": "logic"}, "InvalidProof"),
        ({"assurance": "corroborated"}, "InvalidProof"),
        ({"assurance": "arithmetic"}, "InconsistentVerdict"),  # every step verified on arithmetic is PARTIAL
        ({"verdict_digest": "ab" * 32}, "InvalidProof"),
        ({"checkers_digest": "cd" * 32}, "InvalidProof"),
    ],
    ids=[
        "verified-count",
        "count-vs-assurance",
        "task-hash",
        "threshold",
        "step-verdict",
        "timestamp",
        "validator-key",
        "verdict-label",
        "quick-as-formal",
        "quick-as-standard",
        "domain",
        "assurance",
        "arithmetic-as-verified",
        "verdict-digest",
        "checkers",
    ],
)
def test_tampered_registration_reverts(chain, issued, changes, error) -> None:
    w3, compiled, _ = chain
    cert, _ = issued
    dep = registry.deploy(w3, compiled, int(cert.validator_commitment, 16))  # task not yet certified here
    changes = dict(changes)
    segment = changes.pop("segment", {})
    if "verdict_commitment" in changes:  # a flipped step changes the commitment the proof must be for
        inputs = list(cert.zk_proof[0].public_inputs)
        inputs[1] = str(int(changes["verdict_commitment"], 16))
        segment["public_inputs"] = inputs
    if segment:
        changes["zk_proof"] = [cert.zk_proof[0].model_copy(update=segment)]
    tampered = _fresh(cert, **changes)
    with pytest.raises(RegistryError, match=error):
        registry.register(w3, compiled, dep.registry, tampered)


def test_one_certificate_per_level_and_a_higher_level_is_never_blocked(chain, issuer) -> None:
    from test_prover import rehashed

    w3, compiled, _ = chain
    quick = load_verdict()
    steps = list(quick.step_verdicts)
    steps[-1] = steps[-1].model_copy(update={"verified": False, "status": StepStatus.UNSUPPORTED})
    partial = rehashed(quick.model_copy(update={
        "step_verdicts": steps, "verified_steps": 3, "overall": Overall.PARTIAL, "assurance": Assurance.UNPROVEN}))
    formal = load_verdict("pythagoras-formal")
    assert formal.task_hash == partial.task_hash
    partial_cert, _ = issuer.issue(partial, timestamp=1_767_000_000)
    formal_cert, _ = issuer.issue(formal, timestamp=1_767_000_000)
    dep = registry.deploy(w3, compiled, int(partial_cert.validator_commitment, 16))
    task = partial_cert.task_hash

    registry.register(w3, compiled, dep.registry, partial_cert)  # a PARTIAL quick certificate first
    assert not registry.is_verified(w3, compiled, dep.registry, task)
    assert not registry.is_verified_at(w3, compiled, dep.registry, task, "quick")
    registry.register(w3, compiled, dep.registry, formal_cert)  # the formal one is not refused
    assert registry.certificates_of_task(w3, compiled, dep.registry, task) == [
        formal_cert.certificate_id, partial_cert.certificate_id]
    assert registry.is_verified(w3, compiled, dep.registry, task)  # the highest level registered is VERIFIED
    for level in ("formal", "standard", "quick"):
        assert registry.is_verified_at(w3, compiled, dep.registry, task, level)
    contract = registry.registry_contract(w3, compiled, dep.registry)
    assert contract.functions.certificateOfTask(bytes.fromhex(task)).call({"gas": 10**6}) == bytes.fromhex(
        formal_cert.certificate_id[2:])


def test_a_quick_verified_certificate_never_answers_for_formal(chain, issued) -> None:
    w3, compiled, _ = chain
    cert, _ = issued
    dep = registry.deploy(w3, compiled, int(cert.validator_commitment, 16))
    registry.register(w3, compiled, dep.registry, cert)
    assert registry.is_verified(w3, compiled, dep.registry, cert.task_hash)
    assert registry.is_verified_at(w3, compiled, dep.registry, cert.task_hash, "quick")
    assert not registry.is_verified_at(w3, compiled, dep.registry, cert.task_hash, "standard")
    assert not registry.is_verified_at(w3, compiled, dep.registry, cert.task_hash, "formal")


def test_trusted_but_wrong_root_fails_the_proof(chain, issued) -> None:
    w3, compiled, _ = chain
    cert, _ = issued
    dep = registry.deploy(w3, compiled, int(cert.validator_commitment, 16))
    other_root = "0x" + "33" * 32
    contract = registry.registry_contract(w3, compiled, dep.registry)
    contract.functions.setValidatorRoot(bytes.fromhex(other_root[2:]), True).transact(
        {"from": w3.eth.accounts[0], "gas": 100_000}
    )
    with pytest.raises(RegistryError, match="InvalidProof"):
        registry.register(w3, compiled, dep.registry, _fresh(cert, validator_commitment=other_root))


def test_verify_proof_gas_is_within_budget(chain, issued) -> None:
    w3, compiled, dep = chain
    cert, _ = issued
    # ours (<= 235,000 with four public inputs), inside the plan's < 250,000
    assert registry.verify_proof_gas(w3, compiled, dep.verifier, cert) <= 235_000


def test_our_verifier_agrees_with_snarkjs_template(chain, issued, prover, tmp_path: Path) -> None:
    from reasonforge.certificate import toolchain
    from reasonforge.certificate.params import FIELD_MODULUS

    w3, ours, dep = chain
    cert, _ = issued
    template = toolchain.node_modules() / "snarkjs" / "templates" / "verifier_groth16.sol.ejs"
    reference = solidity.compile_contracts(prover.keys.verification_key, tmp_path, verifier_template=template)
    ref_dep = registry.deploy(w3, reference, int(cert.validator_commitment, 16))
    seg = cert.zk_proof[0]
    a, b, c = registry.proof_words(seg.proof)
    public = seg.public_ints()
    cases = {
        "honest": public,
        "bumped packed": public[:3] + [public[3] + 1],
        "task hash + r (same point, not a field element)": [public[0] + FIELD_MODULUS, *public[1:]],
        "other commitment": [public[0], public[1] ^ 1, *public[2:]],
    }
    for name, inputs in cases.items():
        verdicts = []
        for compiled, verifier in ((ours, dep.verifier), (reference, ref_dep.verifier)):
            contract = w3.eth.contract(address=verifier, abi=compiled.verifier.abi)
            verdicts.append(contract.functions.verifyProof(a, b, c, inputs).call({"gas": registry.CALL_GAS}))
        assert verdicts == [name == "honest"] * 2, name
    a_bad = [a[0], (a[1] + 1)]  # not on the curve: the precompile fails, the verifier says false
    contract = w3.eth.contract(address=dep.verifier, abi=ours.verifier.abi)
    assert contract.functions.verifyProof(a_bad, b, c, public).call({"gas": registry.CALL_GAS}) is False


def test_long_chain_registers_every_segment(chain, issuer) -> None:
    from test_prover import long_verdict

    w3, compiled, _ = chain
    cert, _ = issuer.issue(long_verdict(), timestamp=1_767_000_000)
    assert len(cert.zk_proof) == 2
    dep = registry.deploy(w3, compiled, int(cert.validator_commitment, 16))
    swapped = _fresh(cert, zk_proof=list(reversed(cert.zk_proof)))
    with pytest.raises(RegistryError, match="InconsistentSegments|InvalidProof"):
        registry.register(w3, compiled, dep.registry, swapped)
    first_only = _fresh(
        cert, zk_proof=cert.zk_proof[:1], verdict_commitment="0x" + f"{cert.zk_proof[0].public_ints()[1]:064x}"
    )
    with pytest.raises(RegistryError, match="InconsistentSegments"):
        registry.register(w3, compiled, dep.registry, first_only)
    assert cert.zk_proof[1].verified_steps == 3  # steps 9..11 all passed; claim one failed
    lied = _fresh(
        cert,
        zk_proof=[cert.zk_proof[0], cert.zk_proof[1].model_copy(update={"verified_steps": 2})],
        verified_steps=cert.verified_steps - 1,
    )
    with pytest.raises(RegistryError, match="InvalidProof"):
        registry.register(w3, compiled, dep.registry, lied)

    reg = registry.register(w3, compiled, dep.registry, cert)
    assert reg.gas_used < registry.REGISTER_GAS + registry.SEGMENT_GAS
    recorded = registry.segment_commitments(w3, compiled, dep.registry, cert.certificate_id)
    assert recorded == [f"0x{seg.public_ints()[1]:064x}" for seg in cert.zk_proof]
    assert recorded[-1] == cert.verdict_commitment
    assert not registry.is_verified(w3, compiled, dep.registry, cert.task_hash)  # PARTIAL: 9 of 11
    stored = registry.stored_certificate(w3, compiled, dep.registry, cert.certificate_id)
    assert (stored["totalSteps"], stored["verifiedSteps"], stored["segments"]) == (11, cert.verified_steps, 2)


def test_cli_end_to_end(node, cert_home, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REASONFORGE_HOME", str(cert_home))
    runner = CliRunner()
    verdict = runner.invoke(app, ["verify", str(ROOT / "examples" / "pythagoras.json"), "--json"])
    assert verdict.exit_code == 0, verdict.output
    verdict_file, cert_file = tmp_path / "verdict.json", tmp_path / "cert.json"
    verdict_file.write_text(verdict.stdout)

    issued = runner.invoke(
        app, ["cert", "issue", str(verdict_file), "--out", str(cert_file), "--circuit", "small", "--json"]
    )
    assert issued.exit_code == 0, issued.output
    assert json.loads(issued.stdout.strip().splitlines()[-1])["overall_verdict"] == "VERIFIED"

    ok = runner.invoke(app, ["cert", "verify", str(cert_file), "--opening", str(tmp_path / "cert.opening.json"),
                             "--verdict", str(verdict_file)])
    assert ok.exit_code == 0, ok.output
    assert "bound: mathematics, quick level, assurance proven; checkers: sympy-relations" in ok.stdout
    assert "the verdict JSON matches" in ok.stdout
    formal = json.loads(verdict_file.read_text()) | {"proof_level": "formal"}
    (tmp_path / "formal.json").write_text(json.dumps(formal))
    claimed = runner.invoke(app, ["cert", "verify", str(cert_file), "--verdict", str(tmp_path / "formal.json")])
    assert claimed.exit_code == 1 and "the verdict's proof_level is formal" in claimed.stderr

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


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d.update(task_hash="zz" * 32), "task_hash: 'zzzz"),
        (lambda d: d["verification_key"].update(circuit="../../elsewhere"), "verification_key.circuit"),
        (lambda d: d["zk_proof"][0].update(public_inputs=["1", "2", "3", str(1 << 254)]), "zk_proof.0.public_inputs"),
        (lambda d: d.update(domain="astrology"), "domain: 'astrology' is not one of"),
    ],
    ids=["task-hash", "circuit-path", "public-input", "domain"],
)
def test_cli_refuses_malformed_certificates(issued, tmp_path: Path, edit, message) -> None:
    cert, _ = issued
    data = json.loads(cert.model_dump_json())
    edit(data)
    path = tmp_path / "cert.json"
    path.write_text(json.dumps(data))
    result = CliRunner().invoke(app, ["cert", "verify", str(path)])
    assert result.exit_code == 2
    assert message in " ".join(result.stderr.split())


def test_cli_refuses_malformed_opening(issued, vk_json, tmp_path: Path) -> None:
    cert, opening = issued
    (tmp_path / "cert.json").write_text(cert.model_dump_json())
    (tmp_path / "vk.json").write_text(vk_json)
    bad = json.loads(opening.model_dump_json())
    bad["salts"] = ["not-a-number"]
    (tmp_path / "opening.json").write_text(json.dumps(bad))
    args = ["cert", "verify", str(tmp_path / "cert.json"), "--vk", str(tmp_path / "vk.json")]
    result = CliRunner().invoke(app, [*args, "--opening", str(tmp_path / "opening.json")])
    assert result.exit_code == 2 and "salts.0" in result.stderr
    assert CliRunner().invoke(app, args).exit_code == 0


def test_cli_unreadable_files_exit_2_without_a_traceback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REASONFORGE_HOME", str(tmp_path / "home"))
    runner = CliRunner()
    latin1 = tmp_path / "latin1.json"
    latin1.write_bytes(b'{"certificate_id": "caf\xe9"}')
    for args, message in (
        (["cert", "show", str(tmp_path)], "cannot read the certificate file"),
        (["cert", "verify", str(latin1)], "certificate file is not UTF-8 text"),
        (["cert", "issue", str(tmp_path)], "cannot read the verdict file"),
        (["cert", "devnode", "--port", "70000"], "--port: must be at most 65535, not 70000"),
    ):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        assert message in result.output, (args, result.output)
        assert result.exception is None or isinstance(result.exception, SystemExit), args


def test_cli_issue_refuses_an_unwritable_out_before_proving(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REASONFORGE_HOME", str(tmp_path / "home"))
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    verdict = HERE / "pythagoras.verdict.json"
    result = CliRunner().invoke(app, ["cert", "issue", str(verdict), "--out", str(blocker / "cert.json"),
                                      "--circuit", "small"])
    assert result.exit_code == 2, result.output
    assert "is not a writable directory" in result.output
    assert not (tmp_path / "home").exists()  # no keys made, nothing proved

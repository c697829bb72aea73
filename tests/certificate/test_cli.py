"""`reasonforge cert …` on files a holder might hand it: what it prints and how it refuses the wrong document.

None of these needs a proof to be checked, so the certificate here is a well-formed one with a stand-in proof."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reasonforge.certificate.params import SMALL
from reasonforge.certificate.schema import ProofSegment, VerificationCertificate, VerificationKeyRef
from reasonforge.cli import app

HERE = Path(__file__).resolve().parent
WIDE = {"COLUMNS": "240"}  # one table row per line


def _certificate() -> VerificationCertificate:
    """A certificate as `cert issue` writes it before `cert register`: no chain, registry, transaction or block."""
    return VerificationCertificate(
        certificate_id="ab" * 32, task_hash="1" * 64, domain="mathematics", proof_level="quick", total_steps=3,
        verified_steps=3, overall_verdict="VERIFIED", assurance="proven", verdict_digest="2" * 64,
        checkers_digest="3" * 64, timestamp=1_767_000_000, validator_count=3, validator_threshold=2,
        stake_threshold=0, validator_commitment="0x" + "4" * 64, verdict_commitment="0x" + "5" * 64,
        verdict_hash="6" * 64,
        zk_proof=[ProofSegment(proof="7" * 512, public_inputs=["1", "2", "3", "4"], first_step=0, total_steps=3,
                               verified_steps=3)],
        verification_key=VerificationKeyRef(circuit="small", params=SMALL, sha256="8" * 64),
    )


@pytest.fixture
def cert_file(tmp_path: Path) -> Path:
    path = tmp_path / "certificate.json"
    path.write_text(_certificate().model_dump_json(indent=2))
    return path


def test_show_says_an_unregistered_certificate_has_no_registration_instead_of_printing_none(cert_file: Path) -> None:
    shown = CliRunner().invoke(app, ["cert", "show", str(cert_file)], env=WIDE)
    assert shown.exit_code == 0, shown.output
    assert "None" not in shown.stdout
    rows = {line.split("│")[1].strip(): line.split("│")[2].strip() for line in shown.stdout.splitlines()
            if line.count("│") == 3}
    assert rows["registration"] == "none (`reasonforge cert register` records one)"
    assert not {"chain_id", "registry_address", "tx_hash", "block_number", "verify_url"} & set(rows)
    assert rows["overall_verdict"] == "VERIFIED" and rows["checkers"] == "none recorded"


def test_show_lists_a_registration_once_there_is_one(cert_file: Path) -> None:
    registered = _certificate().model_copy(update={"chain_id": 1337, "registry_address": "0x" + "9" * 40,
                                                   "tx_hash": "0x" + "a" * 64, "block_number": 7})
    cert_file.write_text(registered.model_dump_json())
    shown = CliRunner().invoke(app, ["cert", "show", str(cert_file)], env=WIDE)
    assert shown.exit_code == 0 and "registration" not in shown.stdout
    assert "1337" in shown.stdout and "0x" + "9" * 40 in shown.stdout


def test_a_verdict_given_as_a_certificate_is_named_as_a_verdict(tmp_path: Path) -> None:
    verdict = HERE / "pythagoras.verdict.json"
    for command in (["verify"], ["show"], ["register", "--rpc", "http://127.0.0.1:1"]):
        result = CliRunner().invoke(app, ["cert", command[0], str(verdict), *command[1:]])
        assert result.exit_code == 2, result.output
        assert result.stderr == (f"error: {verdict} is a verdict, not a certificate; `reasonforge cert issue "
                                 "VERDICT.json` makes one from a verdict\n")


def test_a_certificate_or_a_request_given_as_a_verdict_is_named_as_what_it_is(cert_file: Path) -> None:
    request = HERE.parents[1] / "examples" / "pythagoras.json"
    for path, what in ((cert_file, "a certificate"), (request, "a verification request")):
        result = CliRunner().invoke(app, ["cert", "issue", str(path), "--out", str(cert_file.parent / "c.json")])
        assert result.exit_code == 2, result.output
        assert result.stderr == (f"error: {path} is {what}, not a verdict; `reasonforge verify --json` prints "
                                 "one\n")


@pytest.mark.parametrize(("edit", "message"), [
    (lambda d: d.update(domain="astrology"), "domain: 'astrology' is not one of 'mathematics', 'code' or 'logic'"),
    (lambda d: d.pop("overall_verdict"), "overall_verdict is missing"),
    (lambda d: d.update(total_steps=0), "total_steps: must be at least 1, not 0"),
], ids=["choice", "missing", "bound"])
def test_a_malformed_certificate_is_refused_in_plain_words(cert_file: Path, edit, message: str) -> None:
    data = json.loads(cert_file.read_text())
    edit(data)
    cert_file.write_text(json.dumps(data))
    result = CliRunner().invoke(app, ["cert", "show", str(cert_file)])
    assert result.exit_code == 2
    assert result.stderr == f"error: {cert_file}: not a certificate: {message}\n"

"""A report or page vouches for a verdict only when something its reader trusts authenticated it: a signature by a
trusted key, or the same verdict computed again on the spot. Everything else is unattested, in every header.

Driven through `reasonforge report` (Typer's CliRunner) and `verify --html`, with real Ed25519 keys."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from test_pdf import _tool
from typer.testing import CliRunner

from reasonforge.certificate.verdict_signature import public_key_of, sign_verdict
from reasonforge.chain import assurance_of, overall_of, verdict_digest, verdict_hash
from reasonforge.cli import app
from reasonforge.report import build_view, verdict_page
from reasonforge.types import Evidence, EvidenceKind, Formaliser, Overall, StepStatus, VerificationVerdict

SERVICE_SEED = bytes(range(32))
SERVICE_KEY = public_key_of(SERVICE_SEED)
FORGER_SEED = bytes(range(32, 64))


def forged_all_verified(verdict: VerificationVerdict) -> VerificationVerdict:
    """The forgery of the issue: a PARTIAL or FAILED verdict edited so every step is verified, its summary made to
    agree, and its verdict_digest (and the plan's verdict_hash) recomputed by the public recipes."""
    steps = [sv.model_copy(update={"status": StepStatus.VERIFIED, "verified": True, "error_message": None,
                                   "error_kind": None, "invalidated_by": [], "local_status": None, "details": {},
                                   "evidence": Evidence(kind=EvidenceKind.CLAIM, aligned_claim=f"claim {sv.step_id}",
                                                        formaliser=Formaliser.OFFLINE_READER)})
             for sv in verdict.step_verdicts]
    by_id = {sv.step_id: sv for sv in steps}
    forged = verdict.model_copy(update={
        "overall": overall_of(by_id), "assurance": assurance_of(by_id), "step_verdicts": steps,
        "verified_steps": len(steps), "failure_points": [], "failure_report": None, "assumptions": []})
    forged.verdict_hash = verdict_hash(forged.task_id, forged.overall.value, forged.step_verdicts)
    forged.verdict_digest = verdict_digest(
        task_hash=forged.task_hash, claimed_answer=forged.claimed_answer, domain=forged.domain,
        proof_level=forged.proof_level, overall=forged.overall, assurance=forged.assurance,
        step_verdicts=forged.step_verdicts)
    return forged


def report(tmp_path: Path, request, verdict: VerificationVerdict, *args: str,
           env: dict[str, str] | None = None) -> tuple[int, str, list[str]]:
    """`reasonforge report` of `verdict`: (exit code, its output, the text of each page of the PDF, line breaks
    undone)."""
    (tmp_path / "verdict.json").write_text(verdict.model_dump_json())
    (tmp_path / "request.json").write_text(request.model_dump_json())
    out = tmp_path / "report.pdf"
    out.unlink(missing_ok=True)
    result = CliRunner().invoke(app, ["report", str(tmp_path / "verdict.json"), "--request",
                                      str(tmp_path / "request.json"), "--out", str(out), *args], env=env)
    if not out.exists():
        return result.exit_code, result.output, []
    raw = subprocess.run([_tool("pdftotext"), "-layout", str(out), "-"], capture_output=True, text=True,
                         timeout=120, check=True).stdout
    return result.exit_code, result.output, [" ".join(page.split()) for page in raw.split("\f") if page.strip()]


def assert_unattested(output: str, pages: list[str], overall: str) -> None:
    assert "unattested" in output
    assert len(pages) > 1
    for page in pages:  # every page's header says so
        assert page.startswith(f"UNATTESTED verdict: it claims {overall}, but nothing"), page[:200]
    text = " ".join(pages)
    # the verdict is never named without the qualifier
    assert re.search(rf"Verdict {overall}(?! \(unattested\))", text) is None
    assert f"Verdict {overall} (unattested)" in text


@pytest.mark.parametrize("overall", ["PARTIAL", "FAILED"])
def test_a_forged_verdict_with_its_digest_recomputed_is_reported_unattested(verdicts, overall, tmp_path) -> None:
    request, verdict = verdicts[overall]
    forged = forged_all_verified(verdict)
    assert forged.overall is Overall.VERIFIED and forged.verdict_digest != verdict.verdict_digest
    code, output, pages = report(tmp_path, request, forged)
    assert code == 0, output
    assert_unattested(output, pages, "VERIFIED")
    assert "it carries no signature" in pages[0] and "no certificate covers it" in pages[0]
    # recomputing it here contradicts it: still unattested, exit 1, and the report says what the chain gives
    code, output, pages = report(tmp_path, request, forged, "--recheck")
    assert code == 1, output
    assert_unattested(output, pages, "VERIFIED")
    assert f"computed again from its request by this reader it is {overall}" in pages[0]


def test_a_signature_by_a_trusted_key_attests_the_verdict_and_only_that_verdict(verdicts, tmp_path) -> None:
    request, verdict = verdicts["PARTIAL"]
    signed = sign_verdict(verdict, SERVICE_SEED)
    code, output, pages = report(tmp_path, request, signed, "--trust", SERVICE_KEY)
    assert code == 0 and "verdict PARTIAL; attested: signed by trusted key" in output, output
    assert all(page.startswith("Verdict PARTIAL, attested: signed") for page in pages)
    assert "unattested" not in " ".join(pages).lower() and SERVICE_KEY in pages[0]
    # the same signed verdict for a reader who trusts no key, or another key
    for args in ((), ("--trust", public_key_of(FORGER_SEED))):
        code, output, pages = report(tmp_path, request, signed, *args)
        assert code == 0
        assert_unattested(output, pages, "PARTIAL")
        assert f"signed by key {SERVICE_KEY}, which this reader does not trust" in pages[0]
    # forged after signing (the signature kept): the signature no longer signs it
    forged = forged_all_verified(signed)
    assert forged.signature == signed.signature
    code, output, pages = report(tmp_path, request, forged, "--trust", SERVICE_KEY)
    assert_unattested(output, pages, "VERIFIED")
    assert "it was changed after it was signed" in pages[0]
    # the forger signs the forgery with a key of their own: valid, but nobody trusts it
    code, output, pages = report(tmp_path, request, sign_verdict(forged, FORGER_SEED), "--trust", SERVICE_KEY)
    assert_unattested(output, pages, "VERIFIED")
    # only a field outside the digest edited (a checker message): the signature covers it too
    message = signed.model_copy(update={"step_verdicts": [
        signed.step_verdicts[0].model_copy(update={"error_message": "reviewed and approved by the auditor"}),
        *signed.step_verdicts[1:]]})
    code, output, pages = report(tmp_path, request, message, "--trust", SERVICE_KEY)
    assert_unattested(output, pages, "PARTIAL")
    assert "it was changed after it was signed" in pages[0]


def test_trusted_keys_come_from_the_environment_too_and_bad_ones_are_refused(verdicts, tmp_path) -> None:
    request, verdict = verdicts["VERIFIED"]
    signed = sign_verdict(verdict, SERVICE_SEED)
    listed = f"{public_key_of(FORGER_SEED)}, {SERVICE_KEY.upper()}"
    code, output, _ = report(tmp_path, request, signed, env={"REASONFORGE_TRUSTED_VERDICT_KEYS": listed})
    assert code == 0 and "verdict VERIFIED; attested: signed by trusted key" in output, output
    code, output, _ = report(tmp_path, request, signed, "--trust", "not-a-key")
    assert code == 2 and "--trust: 'not-a-key' is not an Ed25519 public key" in output
    assert "Traceback" not in output


def test_recheck_attests_a_verdict_it_computes_again_and_shows_what_it_computed(verdicts, tmp_path) -> None:
    request, verdict = verdicts["PARTIAL"]
    # an edited message keeps the digest; the recomputed verdict is the one shown, so the edit is not
    edited = verdict.model_copy(update={"failure_report": verdict.failure_report.model_copy(
        update={"verification_error": "nothing to worry about"})})
    code, output, pages = report(tmp_path, request, edited, "--recheck")
    assert code == 0 and "verdict PARTIAL; attested: computed from its request by this reader" in output, output
    text = " ".join(pages)
    assert "unattested" not in text.lower() and "nothing to worry about" not in text


def body(page: str) -> str:
    """What the page shows (its stylesheet names both classes)."""
    return page[page.index("<body>"):]


def test_the_page_says_so_in_its_header(verdicts) -> None:
    request, verdict = verdicts["VERIFIED"]
    page = verdict_page(build_view(request, verdict))
    header = page[page.index("<header>"):page.index("</header>")]
    assert 'id="attestation" data-standing="unattested"' in header and "UNATTESTED" in header
    assert "Verdict (unattested):" in header
    assert "<title>Verdict VERIFIED (unattested)" in page
    signed = sign_verdict(verdict, SERVICE_SEED)
    trusted = verdict_page(build_view(request, signed, trusted_keys=frozenset({SERVICE_KEY})))
    header = trusted[trusted.index("<header>"):trusted.index("</header>")]
    assert 'data-standing="signed"' in header and "unattested" not in body(trusted).lower()
    assert 'id="overall">VERIFIED<' in header


def test_the_page_verify_writes_shows_the_verdict_it_computed_as_attested(tmp_path) -> None:
    examples = Path(__file__).resolve().parents[2] / "examples"
    out = tmp_path / "page.html"
    result = CliRunner().invoke(app, ["verify", str(examples / "whale.json"), "--html", str(out)])
    assert result.exit_code == 0, result.output
    page = out.read_text(encoding="utf-8")
    assert 'data-standing="recomputed"' in page and "unattested" not in body(page).lower()


@pytest.fixture(scope="module")
def circuit_keys(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The reduced circuit's keys folder and verification key, built once and shared with the certificate tests'
    cache."""
    from reasonforge.certificate.params import SMALL
    from reasonforge.certificate.prover import ensure_keys

    from certhelpers import require_node_tools

    require_node_tools()
    cache = getattr(request.config, "cache", None)
    base = Path(cache.mkdir("reasonforge-certificate")) if cache else tmp_path_factory.mktemp("certificate")
    keys = base / "home" / "certificate" / "keys"
    return keys, Path(ensure_keys(SMALL, keys).verification_key)


def issuer_with_own_validators(keys: Path, home: Path):
    """An issuer with a validator set of its own (as anyone can make), on the shared circuit keys."""
    from reasonforge.certificate import SMALL, Issuer

    (home / "certificate").mkdir(parents=True)
    (home / "certificate" / "keys").symlink_to(keys, target_is_directory=True)
    return Issuer(home, SMALL)


def test_a_valid_certificate_counts_only_when_a_trusted_validator_attested_it(verdicts, circuit_keys,
                                                                              tmp_path) -> None:
    request, verdict = verdicts["PARTIAL"]
    keys, vk = circuit_keys
    honest = issuer_with_own_validators(keys, tmp_path / "service")
    cert, _ = honest.issue(verdict, timestamp=1_767_000_000)
    (tmp_path / "cert.json").write_text(cert.model_dump_json())
    args = ("--certificate", str(tmp_path / "cert.json"), "--vk", str(vk))
    validator = cert.attestations[0].public_key
    code, output, pages = report(tmp_path, request, verdict, *args, "--trust", validator)
    assert code == 0 and "attested: certificate" in output and "trusted validator key" in output, output
    assert all(page.startswith("Verdict PARTIAL, attested: certified") for page in pages)
    code, output, pages = report(tmp_path, request, verdict, *args)
    assert_unattested(output, pages, "PARTIAL")
    assert "is valid but attested by no validator key this reader trusts" in pages[0]
    # the forger certifies the forgery with validators of their own: `cert verify` finds it valid, and still
    # nothing a reader trusts vouches for it
    forged = forged_all_verified(verdict)
    forger = issuer_with_own_validators(keys, tmp_path / "forger")
    forged_cert, _ = forger.issue(forged, timestamp=1_767_000_000)
    (tmp_path / "cert.json").write_text(forged_cert.model_dump_json())
    verify = CliRunner().invoke(app, ["cert", "verify", str(tmp_path / "cert.json"), "--vk", str(vk)])
    assert verify.exit_code == 0, verify.output
    code, output, pages = report(tmp_path, request, forged, *args, "--trust", validator)
    assert_unattested(output, pages, "VERIFIED")
    assert "is valid but attested by no validator key this reader trusts" in pages[0]

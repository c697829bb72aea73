"""The service signs every verdict it records with its own key, publishes the public key, and its pages vouch
only for verdicts that key signed: a verdict edited in the store is shown as unattested. A reader who trusts the
published key gets an attested report of the verdict the API hands out (in-process app, real workers, SQLite)."""

from __future__ import annotations

import json
import stat
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from reasonforge.certificate.verdict_signature import SignatureState, read_key, signature_state
from reasonforge.cli import app as cli_app
from reasonforge.service import create_app
from reasonforge.service.accounts import Tier, create_key
from reasonforge.service.jobs.tables import JobRow
from reasonforge.service.settings import ServiceSettings
from reasonforge.types import VerificationVerdict

CHAIN = {
    "original_query": "Let n = 4. What is n + 1 and 2n?",
    "claimed_answer": "8",
    "domain": "mathematics",
    "proof_level": "quick",
    "generate_certificate": False,
    "reasoning_chain": [
        {"step_id": 1, "content": "Let n = 4"},
        {"step_id": 2, "content": "So n + 1 = 6"},
        {"step_id": 3, "content": "Then 2 * n = 8", "dependencies": [2]},
    ],
}


class Service:
    """A running app with one API key."""

    def __init__(self, client: TestClient, home: Path) -> None:
        self.client, self.home = client, home
        self.sm = client.app.state.rf.jobs.sessionmaker
        with self.sm() as session:
            plaintext, _ = create_key(session, "reader", tier=Tier.PRO, scopes=("verify", "read"))
        self.headers = {"Authorization": f"Bearer {plaintext}"}

    def finished(self, body: dict) -> str:
        task_id = self.client.post("/v1/verify", json=body, headers=self.headers).json()["task_id"]
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.client.get(f"/v1/verify/{task_id}", headers=self.headers).json()["status"] == "complete":
                return task_id
            time.sleep(0.05)
        raise AssertionError(f"task {task_id} did not complete")


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    home = tmp_path_factory.mktemp("rf-verdict-key")
    settings = ServiceSettings(home=home, rate_limit_per_minute=100_000, workers=1, build_keys_at_start=False)
    with TestClient(create_app(settings)) as client:
        yield Service(client, home)


def test_the_key_is_made_on_first_start_and_published(service: Service) -> None:
    path = service.home / "verdict_signing_key"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    published = service.client.get("/v1/verdict-key").json()  # public: no API key
    assert published["algorithm"] == "ed25519" and len(published["public_key"]) == 64
    printed = CliRunner().invoke(cli_app, ["verdict-key"], env={"REASONFORGE_HOME": str(service.home)})
    assert printed.exit_code == 0 and printed.output.strip() == published["public_key"]
    seed = read_key(path).hex()
    assert seed not in printed.output and seed not in service.client.get("/openapi.json").text


def test_a_verdict_is_stored_signed_and_handed_out_whole(service: Service, tmp_path: Path) -> None:
    task_id = service.finished(CHAIN)
    served = service.client.get(f"/v1/verify/{task_id}/verdict", headers=service.headers)
    assert served.status_code == 200 and served.headers["content-type"] == "application/json"
    verdict = VerificationVerdict.model_validate_json(served.content)
    assert signature_state(verdict) is SignatureState.VALID
    key = service.client.get("/v1/verdict-key").json()["public_key"]
    assert verdict.signature is not None and verdict.signature.public_key == key
    assert verdict.overall.value == "PARTIAL"
    assert service.client.get(f"/v1/verify/{task_id}/verdict").status_code == 401
    assert service.client.get("/v1/verify/nope/verdict", headers=service.headers).status_code == 404
    # a reader who trusts the published key gets an attested report; one who does not, an unattested one
    (tmp_path / "verdict.json").write_bytes(served.content)
    (tmp_path / "request.json").write_text(json.dumps({**CHAIN, "task_id": task_id}))
    args = ["report", str(tmp_path / "verdict.json"), "--request", str(tmp_path / "request.json"), "--out",
            str(tmp_path / "report.pdf")]
    trusted = CliRunner().invoke(cli_app, [*args, "--trust", key])
    assert trusted.exit_code == 0 and f"attested: signed by trusted key {key}" in trusted.output, trusted.output
    stranger = CliRunner().invoke(cli_app, args)
    assert stranger.exit_code == 0 and "verdict PARTIAL (unattested)" in stranger.output


def test_the_pages_vouch_for_what_the_service_signed_and_nothing_else(service: Service, tmp_path: Path) -> None:
    task_id = service.finished(CHAIN)
    page = service.client.get(f"/verdicts/{task_id}", headers=service.headers).text
    assert 'data-standing="signed"' in page and 'id="overall">PARTIAL<' in page
    # the stored verdict edited to all-verified, its digest recomputed by the public recipe, its signature kept
    from reasonforge.chain import assurance_of, overall_of, verdict_digest
    from reasonforge.types import Evidence, EvidenceKind, Formaliser, StepStatus

    with service.sm() as session:
        row = session.get(JobRow, task_id)
        stored = VerificationVerdict.model_validate_json(row.verdict_json)
        steps = [sv.model_copy(update={"status": StepStatus.VERIFIED, "verified": True, "error_message": None,
                                       "error_kind": None, "invalidated_by": [], "local_status": None,
                                       "evidence": Evidence(kind=EvidenceKind.CLAIM, aligned_claim="x",
                                                            formaliser=Formaliser.OFFLINE_READER)})
                 for sv in stored.step_verdicts]
        by_id = {sv.step_id: sv for sv in steps}
        forged = stored.model_copy(update={"step_verdicts": steps, "overall": overall_of(by_id),
                                           "assurance": assurance_of(by_id), "verified_steps": len(steps),
                                           "failure_points": [], "failure_report": None})
        forged.verdict_digest = verdict_digest(
            task_hash=forged.task_hash, claimed_answer=forged.claimed_answer, domain=forged.domain,
            proof_level=forged.proof_level, overall=forged.overall, assurance=forged.assurance,
            step_verdicts=forged.step_verdicts)
        assert forged.overall.value == "VERIFIED"
        row.verdict_json = forged.model_dump_json()
        session.commit()
    page = service.client.get(f"/verdicts/{task_id}", headers=service.headers).text
    header = page[page.index("<header>"):page.index("</header>")]
    assert 'data-standing="unattested"' in header and "Verdict (unattested):" in header
    assert "it was changed after it was signed" in header
    pdf = service.client.get(f"/v1/verify/{task_id}/report.pdf", headers=service.headers)
    assert pdf.status_code == 200
    (tmp_path / "report.pdf").write_bytes(pdf.content)
    text = subprocess.run(["pdftotext", "-layout", str(tmp_path / "report.pdf"), "-"], capture_output=True,
                          text=True, timeout=120, check=True).stdout
    assert text.lstrip().startswith("UNATTESTED verdict: it claims VERIFIED") and "VERIFIED (unattested)" in text

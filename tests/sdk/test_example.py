"""The plan's SDK example (examples/sdk/pythagoras.py, formal level) against a live server, then its certificate."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from reasonforge.certificate import VerificationCertificate
from reasonforge.sdk import Certificate, CertificateCheck

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "sdk" / "pythagoras.py"


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_pythagoras_example_prints_verdict_and_certificate_url(service, rf):
    done = subprocess.run(
        [
            sys.executable,
            str(EXAMPLE),
            "--base-url",
            service.base_url,
            "--api-key",
            service.api_key,
            "--timeout",
            "400",
        ],
        capture_output=True,
        text=True,
        timeout=450,
        check=False,
    )
    assert done.returncode == 0, (
        f"exit {done.returncode}:\n{done.stdout}\n{done.stderr}\n{service.log()}"
    )
    verdict, url = done.stdout.splitlines()[:2]
    assert verdict == "VERIFIED"
    assert url.startswith(f"{service.base_url}/verify/")
    cert_id = url.rsplit("/", 1)[1]

    certificate = rf.certificate(cert_id)
    assert (
        isinstance(certificate, Certificate) and certificate.certificate_id == cert_id
    )
    assert (certificate.proof_level, certificate.overall_verdict) == (
        "formal",
        "VERIFIED",
    )
    assert (certificate.verified_steps, certificate.total_steps) == (4, 4)
    # The typed model keeps the whole document: its content hash is still the certificate id.
    document = VerificationCertificate.model_validate(
        certificate.model_dump(mode="json")
    )
    assert document.content_hash() == cert_id
    check = rf.verify_certificate(cert_id)
    assert isinstance(check, CertificateCheck) and check.valid, check
    page = httpx.get(url, timeout=30)
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert cert_id in page.text


def test_example_without_a_server_exits_2_with_a_message(tmp_path):
    done = subprocess.run(
        [
            sys.executable,
            str(EXAMPLE),
            "--base-url",
            "http://127.0.0.1:9",
            "--api-key",
            "rf_x",
            "--timeout",
            "5",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("error: ") and "127.0.0.1:9" in done.stderr
    assert "Traceback" not in done.stderr

"""The OpenAPI document is the contract: schemathesis (the CLI a client's CI would run) against a live embedded
server, every operation, every check, bounded examples."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_api import small_circuit_home

CONFIG = Path(__file__).with_name("schemathesis.toml")  # the two checks it reads differently, and why

from servers import running_service


def _schemathesis() -> list[str]:
    """The schemathesis CLI of this interpreter's installation (a test dependency)."""
    script = Path(sys.executable).with_name("schemathesis")
    if script.exists():
        return [str(script)]
    found = shutil.which("schemathesis")
    if found is None:
        pytest.fail("schemathesis is not installed: run `make install` (it is a test dependency)", pytrace=False)
    return [found]


def test_every_operation_keeps_its_schema(request: pytest.FixtureRequest, tmp_path: Path) -> None:
    # small circuit keys, so the certificate jobs generated requests ask for are proved in seconds
    home = small_circuit_home(request, tmp_path / "home")
    env = {"REASONFORGE_RATE_LIMIT_PER_MINUTE": "1000000", "REASONFORGE_CERTIFICATE_CIRCUIT": "small"}
    with running_service(home, env=env, key_args=("--tier", "enterprise")) as service:
        run = subprocess.run(
            [
                *_schemathesis(), "--config-file", str(CONFIG), "run", f"{service.base_url}/openapi.json",
                "--checks", "all",
                # DELETE /v1/verify/{task_id} cancels the job (documented); the cancelled job stays readable with
                # its status and cost, so a client sees what the cancellation left: not a deletion to 404 after
                "--exclude-checks", "use_after_free",
                "--max-examples", "12",
                "--seed", "1",
                "--header", f"Authorization: Bearer {service.api_key}",
                "--request-timeout", "60",
                "--no-color",
            ],
            capture_output=True, text=True, timeout=1500, check=False, cwd=tmp_path,
        )
    report = run.stdout[-8000:] + run.stderr[-2000:]
    assert run.returncode == 0, report
    assert "No issues found" in run.stdout or "passed" in run.stdout, report

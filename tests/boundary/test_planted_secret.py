"""A planted secret never leaves: not in the CLI's JSON or table, the verdict page or PDF, `reasonforge config`, an
error message from a failing endpoint, nor in the service's API answers, job errors, pages, metrics, logs or the
verdicts it stores.

The secrets are planted where an operator puts them: the password in the model base URL's userinfo, the API key
in REASONFORGE_MODEL_API_KEY (sent as a header), the webhook secret in the service's settings; and the endpoint
echoes back every header it was sent (a server whose error message quotes our Authorization header). Every
output is searched for each secret as written, percent-decoded and base64-encoded as HTTP Basic credentials (what
an HTTP client sends for URL userinfo), and a PDF's compressed streams are decoded first.
"""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import sys
import time
import zlib
from pathlib import Path

import httpx
import pytest

from hostile_endpoint import HostileEndpoint, Script
from llm_replay import openai_reply
from servers import running_service

ROOT = Path(__file__).resolve().parents[2]
WHALE = ROOT / "examples" / "whale.json"
URL_PASSWORD = "PLANTED-url-pass-7731"
API_KEY = "sk-PLANTED-key-5512"
WEBHOOK_SECRET = "PLANTED-webhook-secret-0042"
SECRETS = (URL_PASSWORD, API_KEY, WEBHOOK_SECRET, base64.b64encode(f"alice:{URL_PASSWORD}".encode()).decode())
GOOD_REPLY = json.dumps(openai_reply("```fol\n∀x (Whale(x) → Mammal(x))\nWhale(moby)\n⊢ Mammal(moby)\n```")).encode()


def assert_clean(where: str, text: str) -> None:
    """No planted secret, in any of its forms, appears in `text`."""
    found = [secret for secret in SECRETS if secret in text]
    assert not found, f"{where} shows {found}: {text[:3000]}"


def pdf_text(data: bytes) -> str:
    """The PDF's bytes and its decoded content streams (ASCII85 and Flate, as reportlab writes them)."""
    texts = [data.decode("latin-1")]
    for match in re.finditer(rb"stream\r?\n(.*?)endstream", data, re.DOTALL):
        stream = match.group(1).strip()
        if stream.endswith(b"~>"):
            stream = base64.a85decode(re.sub(rb"\s", b"", stream[:-2]))
        try:
            texts.append(zlib.decompress(stream).decode("latin-1"))
        except zlib.error:
            continue
    return "\n".join(texts)


def planted_url(server: HostileEndpoint) -> str:
    return server.url.replace("http://", f"http://alice:{URL_PASSWORD}@") + "/v1"


def _cli(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if not k.startswith("REASONFORGE_")}
    full |= {"PYTHONPATH": str(ROOT / "src"), "REASONFORGE_MODEL": "gpt-x", "REASONFORGE_MODEL_API_KEY": API_KEY,
             "REASONFORGE_WEBHOOK_SECRET": WEBHOOK_SECRET, **(env or {})}
    return subprocess.run([sys.executable, "-m", "reasonforge.cli", *args], capture_output=True, text=True, env=full,
                          timeout=300, check=False, cwd=cwd)


def test_the_cli_shows_no_planted_secret_in_any_output(tmp_path: Path) -> None:
    with HostileEndpoint(Script(body=GOOD_REPLY)) as server:
        url = planted_url(server)
        model = ("--translator", "model", "--model", url)
        as_json = _cli("verify", str(WHALE), *model, "--json", "--html", str(tmp_path / "page.html"), cwd=tmp_path)
        assert as_json.returncode in (0, 1, 3), as_json.stderr[-2000:]
        verdict = json.loads(as_json.stdout)
        translator = json.dumps([step["translator_spec"] for step in verdict["step_verdicts"]])
        assert "http://***@127.0.0.1" in translator  # the spec says a credential was there, not what it was
        assert_clean("verify --json", as_json.stdout + as_json.stderr)
        assert_clean("verify --html", (tmp_path / "page.html").read_text())
        table = _cli("verify", str(WHALE), *model, cwd=tmp_path)
        assert_clean("verify (table)", table.stdout + table.stderr)
        (tmp_path / "verdict.json").write_text(as_json.stdout)
        report = _cli("report", str(tmp_path / "verdict.json"), "--request", str(WHALE), "--out",
                      str(tmp_path / "report.pdf"), cwd=tmp_path)
        assert report.returncode == 0, report.stderr[-2000:]
        text = pdf_text((tmp_path / "report.pdf").read_bytes())
        assert "Mammal" in text  # the streams were decoded: the check below reads the PDF's text
        assert_clean("report PDF", text)
        config = _cli("config", cwd=tmp_path, env={"REASONFORGE_MODEL_BASE_URL": url})
        assert "REASONFORGE_MODEL_BASE_URL=http://***@127.0.0.1" in config.stdout
        assert "REASONFORGE_MODEL_API_KEY=***" in config.stdout
        assert_clean("config", config.stdout + config.stderr)
        # the endpoint refuses, quoting every header it was sent (the Basic credentials of the URL's userinfo)
        server.script = Script(status=401, echo_headers=True)
        failed = _cli("verify", str(WHALE), *model, cwd=tmp_path)
        assert failed.returncode == 2 and "HTTP 401" in failed.stderr and "Authorization: ***" in failed.stderr
        assert_clean("a failing endpoint's error", failed.stdout + failed.stderr)
        # without userinfo the key itself goes out as the bearer token, and comes back in the error
        bare = _cli("verify", str(WHALE), "--translator", "model", "--model", f"{server.url}/v1", cwd=tmp_path)
        assert bare.returncode == 2 and "Authorization: ***" in bare.stderr
        assert_clean("a failing endpoint's error (bearer key)", bare.stdout + bare.stderr)
        sent = {request["headers"].get("Authorization", "") for request in server.requests}
        assert f"Bearer {API_KEY}" in sent  # the key did go out, as a header: only never back


def _wait(client: httpx.Client, task_id: str) -> dict:
    for _ in range(120):
        job = client.get(f"/v1/verify/{task_id}", params={"wait": 5}).json()
        if job["status"] in ("complete", "failed", "cancelled"):
            return job
        time.sleep(0.2)
    pytest.fail(f"job {task_id} did not finish: {job}")


def test_the_service_shows_no_planted_secret_in_answers_pages_metrics_or_logs(tmp_path: Path) -> None:
    with HostileEndpoint(Script(body=GOOD_REPLY)) as endpoint:
        env = {"REASONFORGE_MODEL_BASE_URL": planted_url(endpoint), "REASONFORGE_MODEL": "gpt-x",
               "REASONFORGE_MODEL_API_KEY": API_KEY, "REASONFORGE_WEBHOOK_SECRET": WEBHOOK_SECRET,
               "REASONFORGE_TRANSLATOR": "model", "REASONFORGE_MAX_ATTEMPTS": "1"}
        with running_service(tmp_path / "home", env=env, key_args=("--tier", "enterprise")) as service, \
                httpx.Client(base_url=service.base_url, headers=service.headers, timeout=120) as client:
            request = json.loads(WHALE.read_text()) | {"generate_certificate": False}
            submitted = client.post("/v1/verify", json=request)
            assert submitted.status_code == 202, submitted.text
            done = _wait(client, submitted.json()["task_id"])
            assert done["status"] == "complete", done
            outputs = {"verdict": json.dumps(done),
                       "page": client.get(f"/verdicts/{done['task_id']}").text,
                       "pdf": pdf_text(client.get(f"/v1/verify/{done['task_id']}/report.pdf").content)}
            endpoint.script = Script(status=401, echo_headers=True)
            failed = _wait(client, client.post("/v1/verify", json=request).json()["task_id"])
            assert failed["status"] == "failed" and "HTTP 401" in json.dumps(failed), failed
            outputs |= {"failed job": json.dumps(failed),
                        "failed page": client.get(f"/verdicts/{failed['task_id']}").text,
                        "metrics": client.get("/metrics").text,
                        "stats": client.get("/v1/stats").text,
                        "config": service.cli("config").stdout}
        outputs["log"] = (tmp_path / "home" / "serve.log").read_text(errors="replace")
        outputs["store"] = (tmp_path / "home" / "service.db").read_bytes().decode("latin-1")
    assert "HTTP 401" in outputs["log"]  # the failure was logged: the check below reads that line
    assert "http://***@127.0.0.1" in outputs["store"]  # the stored verdict's translator spec, stripped
    for where, text in outputs.items():
        assert_clean(where, text)

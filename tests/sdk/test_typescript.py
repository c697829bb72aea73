"""The TypeScript SDK (`sdk-ts/`): built with its pinned `tsc`, then its `node --test` suite against a live server."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SDK_TS = Path(__file__).resolve().parents[2] / "sdk-ts"


def _run(
    argv: list[str], timeout: float, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    return subprocess.run(
        argv,
        cwd=SDK_TS,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        check=False,
    )


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_typescript_sdk_builds_and_passes_its_node_tests():
    node = shutil.which("node")
    tsc = SDK_TS / "node_modules" / ".bin" / "tsc"
    if node is None or not tsc.exists():
        pytest.fail(
            "the TypeScript SDK needs node and its pinned TypeScript: run `make install` "
            "(it runs `npm ci` in sdk-ts/)",
            pytrace=False,
        )
    built = _run([str(tsc), "-p", "."], timeout=300)
    assert built.returncode == 0, f"tsc failed:\n{built.stdout}{built.stderr}"
    # The node tests start `reasonforge serve` themselves: point them at this interpreter's CLI.
    cli = Path(sys.executable).with_name("reasonforge")
    env = {k: v for k, v in os.environ.items() if not k.startswith("REASONFORGE_")}
    env["REASONFORGE_CLI"] = str(cli)
    files = sorted(
        str(p.relative_to(SDK_TS)) for p in (SDK_TS / "test").glob("*.test.mjs")
    )
    assert files, "sdk-ts/test holds no *.test.mjs files"
    done = _run([node, "--test", "--test-reporter=spec", *files], timeout=600, env=env)
    assert done.returncode == 0, (
        f"node --test failed:\n{done.stdout[-6000:]}{done.stderr[-3000:]}"
    )

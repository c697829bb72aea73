"""The Rust SDK (`sdk-rs/`): `cargo test` offline from Debian's crates, its live tests against a server they start."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

SDK_RS = Path(__file__).resolve().parents[2] / "sdk-rs"
# sdk-rs/.cargo/config.toml builds from this directory registry, which Debian's librust-*-dev packages fill.
REGISTRY = Path("/usr/share/cargo/registry")
CRATES = {
    "ureq": "librust-ureq-dev",
    "serde_json": "librust-serde-json-dev",
    "serde": "librust-serde-dev",
    "serde_derive": "librust-serde-derive-dev",
    "url": "librust-url-dev",
}
CARGO_TIMEOUT_S = 900


def _missing() -> list[str]:
    missing = [] if shutil.which("cargo") else ["cargo"]
    return missing + [
        package
        for crate, package in CRATES.items()
        if not any(REGISTRY.glob(f"{crate}-[0-9]*"))
    ]


def _certificate_keys(request: pytest.FixtureRequest) -> Path | None:
    """The reduced circuit's keys from the certificate suite's cache, so the server need not set them up.

    Without pytest's cache the server builds them itself, while the other checks run.
    """
    cache = getattr(request.config, "cache", None)
    if cache is None:
        return None
    from reasonforge.certificate.params import SMALL
    from reasonforge.certificate.prover import ensure_keys

    base = Path(cache.mkdir("reasonforge-certificate"))
    return ensure_keys(SMALL, base / "home" / "certificate" / "keys").folder


@pytest.mark.slow
@pytest.mark.timeout(CARGO_TIMEOUT_S + 300)
def test_rust_sdk_builds_offline_and_passes_its_cargo_tests(
    request: pytest.FixtureRequest,
):
    missing = _missing()
    if missing:
        pytest.fail(
            f"the Rust SDK needs Debian's {', '.join(missing)}: run `make install` (it installs cargo "
            "and the librust-*-dev crates sdk-rs/ builds from, offline)",
            pytrace=False,
        )
    # The live tests start `reasonforge serve` themselves: point them at this interpreter's CLI.
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("REASONFORGE_") and k != "CARGO_TARGET_DIR"
    }
    env["REASONFORGE_CLI"] = str(Path(sys.executable).with_name("reasonforge"))
    keys = _certificate_keys(request)
    if keys is not None:
        env["REASONFORGE_TEST_CERTIFICATE_KEYS"] = str(keys)
    # Its own session, so a timeout stops cargo, the test binaries and the server they started together.
    with subprocess.Popen(
        ["cargo", "test", "--offline"],
        cwd=SDK_RS,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    ) as cargo:
        try:
            out, err = cargo.communicate(timeout=CARGO_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            os.killpg(cargo.pid, signal.SIGKILL)
            out, err = cargo.communicate()
            pytest.fail(
                f"cargo test ran past {CARGO_TIMEOUT_S}s:\n{out[-6000:]}{err[-3000:]}",
                pytrace=False,
            )
    assert cargo.returncode == 0, f"cargo test failed:\n{out[-6000:]}{err[-3000:]}"
    # The live checks ran (a filter or a harness change could leave them out and still pass).
    assert re.search(r"^live: [1-9]\d* passed; 0 failed", out, re.MULTILINE), out[-3000:]

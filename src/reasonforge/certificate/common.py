"""The certificate room's error type and data-dir layout."""

from __future__ import annotations

import os
from pathlib import Path

from reasonforge.errors import ReasonForgeError


class CertificateError(ReasonForgeError):
    """A verdict, certificate or key cannot be used as asked."""

    code = "certificate_error"


def data_home() -> Path:
    """$REASONFORGE_HOME, default ~/.reasonforge."""
    return Path(os.environ.get("REASONFORGE_HOME") or Path.home() / ".reasonforge")


def certificate_dir(home: Path) -> Path:
    """Where validator keys, circuit artefacts and compiled contracts live under the data dir."""
    return home / "certificate"


class RegistryError(ReasonForgeError):
    """A registry transaction failed or the certificate cannot go on chain."""

    code = "certificate_registry_error"

"""The optional configuration file: the same settings as the REASONFORGE_* environment variables, in TOML.

    # reasonforge.toml (or ~/.config/reasonforge/config.toml, or the file REASONFORGE_CONFIG names)
    home = "/var/lib/reasonforge"
    model_base_url = "http://127.0.0.1:8080/v1"
    translator = "ensemble"
    workers = 4

Each key is a variable's name without the prefix, in lower case (`model_base_url` → REASONFORGE_MODEL_BASE_URL).
One file is read: REASONFORGE_CONFIG if set, else ./reasonforge.toml, else the user's config file. A variable
set in the environment wins over the file. An unknown key is an error (a typo must not silently do nothing), and so is
a key given twice (TOML forbids it), a file over 1 MiB, or arrays, inline tables or dotted keys nested deeper than 8
levels (refused with their line before the TOML decoder recurses into them)."""

from __future__ import annotations

import os
from collections.abc import Mapping, MutableMapping
from pathlib import Path

from reasonforge.boundary.tomltext import load_toml
from reasonforge.errors import InputError

__all__ = ["MAX_CONFIG_BYTES", "OTHER_SETTINGS", "applied_config", "config_path", "known_settings"]

MAX_CONFIG_BYTES = 1024 * 1024
MAX_CONFIG_DEPTH = 8  # every setting is a string, number or boolean: deeper nesting is refused with its line
PREFIX = "REASONFORGE_"
OTHER_SETTINGS = (
    "model", "model_base_url", "model_api_key", "model_max_tokens", "model_timeout_s", "model_concurrency",
    "model_grammar", "model_dir", "translator", "log_format", "lean", "lean_imports", "lean_project", "lean_repl",
    "node_modules", "sandbox_venv", "api_key", "base_url", "verify_base", "home", "trusted_verdict_keys",
)
"""Settings read from the environment outside the service's settings model (models, provers, SDK, paths)."""


def known_settings() -> frozenset[str]:
    """Every key the file may set: the service's settings and the others the commands read."""
    from reasonforge.service.settings import ServiceSettings

    return frozenset(ServiceSettings.model_fields) | frozenset(OTHER_SETTINGS)


def config_path(env: Mapping[str, str] | None = None, cwd: Path | None = None) -> Path | None:
    """The file to read, or None; REASONFORGE_CONFIG naming a missing file is an InputError."""
    env = os.environ if env is None else env
    named = env.get(f"{PREFIX}CONFIG")
    if named:
        path = Path(named).expanduser()
        if not path.is_file():
            raise InputError(f"REASONFORGE_CONFIG names '{named}', which is not a file; create it or unset the "
                             "variable", field="REASONFORGE_CONFIG")
        return path
    local = (cwd or Path.cwd()) / "reasonforge.toml"
    if local.is_file():
        return local
    base = Path(env.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    user = base / "reasonforge" / "config.toml"
    return user if user.is_file() else None


def _value(path: Path, key: str, value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int, float)):
        return str(value)
    raise InputError(f"{path}: '{key}' must be a string, number or true/false, not a {type(value).__name__}",
                     field=key)


def read_config(path: Path) -> dict[str, str]:
    """The file's settings as environment variable names → values; InputError naming the file on any problem."""
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise InputError(f"cannot read the configuration file {path} ({exc.strerror or exc})", field="config") from None
    if len(data) > MAX_CONFIG_BYTES:
        raise InputError(f"the configuration file {path} is over {MAX_CONFIG_BYTES} bytes", field="config")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"the configuration file {path} is not UTF-8 text", field="config") from None
    # nesting bounded before tomllib recurses; a key given twice is a TOML error, named with its line
    parsed = load_toml(text, f"the configuration file {path}", max_depth=MAX_CONFIG_DEPTH)
    known = known_settings()
    out: dict[str, str] = {}
    for key, value in parsed.items():
        name = key.lower()
        if name not in known:
            raise InputError(f"{path}: unknown setting '{key}'; known ones: {', '.join(sorted(known))}", field=key)
        out[PREFIX + name.upper()] = _value(path, key, value)
    return out


def applied_config(env: MutableMapping[str, str] | None = None, cwd: Path | None = None) -> tuple[Path | None,
                                                                                               list[str]]:
    """Read the configuration file (if any) into `env` (default os.environ) where a variable is not set already;
    return the file and the variables it set."""
    env = os.environ if env is None else env
    path = config_path(env, cwd)
    if path is None:
        return None, []
    settings = read_config(path)
    applied = [name for name in settings if name not in env]
    for name in applied:
        env[name] = settings[name]
    return path, applied

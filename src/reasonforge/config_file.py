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

import difflib
import os
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass
from enum import Enum, StrEnum
from pathlib import Path

from reasonforge.boundary.tomltext import load_toml
from reasonforge.errors import InputError

__all__ = ["MAX_CONFIG_BYTES", "OTHER_DEFAULTS", "OTHER_SETTINGS", "Setting", "Source", "applied_config",
           "config_path", "known_settings", "settings_in_force"]

MAX_CONFIG_BYTES = 1024 * 1024
MAX_CONFIG_DEPTH = 8  # every setting is a string, number or boolean: deeper nesting is refused with its line
PREFIX = "REASONFORGE_"
OTHER_DEFAULTS: Mapping[str, str | None] = {
    "model": None, "model_base_url": None, "model_api_key": None, "model_max_tokens": "4096",
    "model_timeout_s": "120.0", "model_concurrency": "4", "model_grammar": "false", "model_prompt_cache": "true",
    "model_dir": "~/.cache/reasonforge/models", "model_record": None, "model_replay": None, "translator": None,
    "log_format": "text", "lean": None, "lean_imports": None, "lean_project": None, "lean_repl": None,
    "node_modules": None, "sandbox_venv": None, "api_key": None, "base_url": "http://127.0.0.1:8000",
    "verify_base": None, "home": "~/.reasonforge", "trusted_verdict_keys": None,
    "cache_dir": "~/.cache/reasonforge/verdicts", "no_progress": None,
}
"""Settings read from the environment outside the service's settings model (models, provers, SDK, paths), each
with the value that applies while it is unset (None: none; the command decides, e.g. the rules translate)."""
OTHER_SETTINGS = tuple(OTHER_DEFAULTS)


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
            close = difflib.get_close_matches(name, sorted(known), n=3)
            hint = (f"did you mean {' or '.join(close)}?" if close else
                    "no setting is named like it (a setting is a REASONFORGE_* variable's name in lower case, "
                    "without the prefix)")
            raise InputError(f"{path}: unknown setting '{key}'; {hint}", field=key)
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


class Source(StrEnum):
    """Where a setting's value comes from."""

    DEFAULT = "default"
    FILE = "file"
    ENVIRONMENT = "environment"


@dataclass(frozen=True)
class Setting:
    """One setting as it stands: its variable, its value (None: unset) and where that comes from."""

    name: str
    value: str | None
    source: Source


def _default(key: str) -> str | None:
    """The value a setting has while nothing sets it, as the environment would spell it (None: none)."""
    from reasonforge.service.settings import ServiceSettings

    field = ServiceSettings.model_fields.get(key)
    if field is None:
        return OTHER_DEFAULTS.get(key)
    value = field.get_default(call_default_factory=True)
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value.value if isinstance(value, Enum) else value)


def settings_in_force(env: Mapping[str, str], from_file: Mapping[str, str]) -> list[Setting]:
    """Every known setting, by variable name: its value in `env` (where `applied_config` has put the file's) and
    whether the file, the environment or the default gave it."""
    out = []
    for key in sorted(known_settings(), key=str.upper):  # in the order of the variables' names
        name = PREFIX + key.upper()
        if name not in env:
            out.append(Setting(name, _default(key), Source.DEFAULT))
        else:
            value = env[name]
            out.append(Setting(name, value, Source.FILE if from_file.get(name) == value else Source.ENVIRONMENT))
    return out

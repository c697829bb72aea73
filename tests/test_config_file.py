"""The configuration file: the REASONFORGE_* settings in TOML, the environment winning, typos refused."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import reasonforge
from reasonforge.config_file import applied_config, config_path, known_settings
from reasonforge.errors import InputError


def _config(folder: Path, extra: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`reasonforge config` run in `folder` as a shell would run it there (PWD set), no REASONFORGE_* inherited."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("REASONFORGE_")}
    # the package under test, wherever the folder is
    env |= {"PWD": str(folder), "HOME": str(folder), "PYTHONPATH": str(Path(reasonforge.__file__).parents[1]),
            **(extra or {})}
    return subprocess.run([sys.executable, "-m", "reasonforge", "config"], cwd=folder, env=env, capture_output=True,
                          text=True, timeout=120)


def test_the_file_fills_what_the_environment_does_not_set(tmp_path: Path) -> None:
    (tmp_path / "reasonforge.toml").write_text('workers = 3\ntranslator = "rules"\nrequire_auth = false\n')
    env = {"REASONFORGE_WORKERS": "5", "HOME": str(tmp_path)}
    path, applied = applied_config(env, cwd=tmp_path)
    assert path == tmp_path / "reasonforge.toml" and sorted(applied) == ["REASONFORGE_REQUIRE_AUTH",
                                                                        "REASONFORGE_TRANSLATOR"]
    assert env["REASONFORGE_WORKERS"] == "5" and env["REASONFORGE_REQUIRE_AUTH"] == "false"


def test_which_file_is_read(tmp_path: Path) -> None:
    user = tmp_path / "xdg" / "reasonforge" / "config.toml"
    user.parent.mkdir(parents=True)
    user.write_text("workers = 2\n")
    env = {"XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    assert config_path(env, cwd=tmp_path) == user
    (tmp_path / "reasonforge.toml").write_text("workers = 4\n")
    assert config_path(env, cwd=tmp_path) == tmp_path / "reasonforge.toml"
    with pytest.raises(InputError, match="REASONFORGE_CONFIG names"):
        config_path({"REASONFORGE_CONFIG": str(tmp_path / "missing.toml")}, cwd=tmp_path)


@pytest.mark.parametrize(("text", "message"), [
    ("wrokers = 3\n", "unknown setting 'wrokers'"),
    ("workers = [1, 2]\n", "must be a string, number or true/false"),
    ("workers = \n", "not valid TOML"),
    ("[service]\nworkers = 1\n", "unknown setting 'service'"),
    ("workers = 1\nworkers = 2\n", r"not valid TOML: Cannot overwrite a value \(at line 2"),  # a key given twice
    # once a RecursionError (tomllib recurses per level), or minutes and gigabytes (quadratic in a key's parts)
    ("workers = " + "[" * 100_000 + "]" * 100_000 + "\n", "nested more than 8 levels deep at line 1, column 19"),
    ("workers = " + "{a = " * 100_000 + "1" + "}" * 100_000 + "\n", "nested more than 8 levels deep at line 1"),
    ("a" + ".a" * 300_000 + " = 1\n", "has a key of more than 8 dotted parts at line 1, column 16"),
    ("[a" + '."a"' * 200_000 + "]\n", "has a key of more than 8 dotted parts at line 1"),
])
def test_bad_files_are_refused_by_name(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "reasonforge.toml").write_text(text)
    with pytest.raises(InputError, match=message):
        applied_config({}, cwd=tmp_path)


@pytest.mark.parametrize("text", [
    'translator = "[[[{{{ a.b.c.d.e.f.g.h.i.j"  # [[[[[[[[[ a.b.c.d.e.f.g.h.i.j\n',
    "model = '''\n[[[[[[[[[[[[\n'''\nworkers = 2\n",
    'model = """\\"""[[[[[[[[[[[[a.b.c.d.e.f.g.h.i.j"""\nmodel_timeout_s = 1.5\n',
    "workers = 2\nmodel_timeout_s = 1.5\nmodel = 'a.b.c.d.e.f.g.h.i.j'\n",
])
def test_brackets_and_dots_in_strings_comments_and_numbers_are_not_nesting(tmp_path: Path, text: str) -> None:
    (tmp_path / "reasonforge.toml").write_text(text)
    env: dict[str, str] = {}
    _, applied = applied_config(env, cwd=tmp_path)
    assert applied and all(env[name] for name in applied)


def test_cli_reads_it_and_says_where_each_setting_comes_from(tmp_path: Path) -> None:
    (tmp_path / "reasonforge.toml").write_text('translator = "rules"\nmodel_api_key = "sk-secret"\n')
    env = {k: v for k, v in os.environ.items() if not k.startswith("REASONFORGE_")} | {"REASONFORGE_WORKERS": "7"}
    out = subprocess.run([sys.executable, "-m", "reasonforge.cli", "config"], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "REASONFORGE_TRANSLATOR=rules  (file)" in out.stdout and "REASONFORGE_WORKERS=7  (environment)" in out.stdout
    assert "sk-secret" not in out.stdout and "REASONFORGE_MODEL_API_KEY=***" in out.stdout
    (tmp_path / "reasonforge.toml").write_text("translater = 'rules'\n")
    bad = subprocess.run([sys.executable, "-m", "reasonforge.cli", "schema", "VerifyRequest"], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "unknown setting 'translater'" in bad.stderr and "Traceback" not in bad.stderr
    (tmp_path / "reasonforge.toml").write_text("workers = " + "[" * 100_000 + "]" * 100_000 + "\n")
    deep = subprocess.run([sys.executable, "-m", "reasonforge.cli", "config"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert deep.returncode == 2 and "nested more than 8 levels deep" in deep.stderr and "Traceback" not in deep.stderr


def test_an_unknown_key_is_one_line_naming_the_closest_settings(tmp_path: Path) -> None:
    (tmp_path / "reasonforge.toml").write_text("translater = 'rules'\n")
    out = _config(tmp_path)
    assert out.returncode == 2 and out.stdout == ""
    path = tmp_path / "reasonforge.toml"
    assert out.stderr == f"error: {path}: unknown setting 'translater'; did you mean translator?\n"
    (tmp_path / "reasonforge.toml").write_text("zzz = 1\n")
    far = _config(tmp_path)
    assert far.returncode == 2 and far.stderr.count("\n") == 1 and "no setting is named like it" in far.stderr


def test_config_shows_every_setting_with_its_value_and_where_it_comes_from(tmp_path: Path) -> None:
    (tmp_path / "reasonforge.toml").write_text('translator = "rules"\n')
    out = _config(tmp_path, {"REASONFORGE_WORKERS": "7"})
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()[1:]
    assert [line.split("=")[0].split(" ")[0] for line in lines] == sorted(f"REASONFORGE_{k.upper()}"
                                                                          for k in known_settings())
    for line in ("REASONFORGE_TRANSLATOR=rules  (file)", "REASONFORGE_WORKERS=7  (environment)",
                 "REASONFORGE_QUEUE=inprocess  (default)", "REASONFORGE_REQUIRE_AUTH=true  (default)",
                 "REASONFORGE_MODEL_MAX_TOKENS=4096  (default)",
                 f"REASONFORGE_HOME={tmp_path / '.reasonforge'}  (default)",
                 "REASONFORGE_DATABASE_URL unset  (default)", "REASONFORGE_MODEL_API_KEY unset  (default)"):
        assert line in lines, (line, out.stdout)
    assert "None" not in out.stdout


def test_the_defaults_listed_are_the_ones_the_commands_use(monkeypatch: pytest.MonkeyPatch) -> None:
    from reasonforge.config_file import OTHER_DEFAULTS
    from reasonforge.pipeline.cache import default_cache_dir
    from reasonforge.sdk.protocol import DEFAULT_BASE_URL
    from reasonforge.translate.llm import ModelSettings
    from reasonforge.translate.local_model import model_dir

    for name in ("REASONFORGE_CACHE_DIR", "REASONFORGE_MODEL_DIR"):
        monkeypatch.delenv(name, raising=False)
    fields = ModelSettings.model_fields
    assert [OTHER_DEFAULTS[f"model_{k}"] for k in ("max_tokens", "timeout_s", "concurrency")] == \
        [str(fields[k].default) for k in ("max_tokens", "timeout_s", "concurrency")]
    assert [OTHER_DEFAULTS[f"model_{k}"] for k in ("grammar", "prompt_cache")] == \
        [str(fields[k].default).lower() for k in ("grammar", "prompt_cache")]
    assert OTHER_DEFAULTS["base_url"] == DEFAULT_BASE_URL
    assert Path(str(OTHER_DEFAULTS["model_dir"])).expanduser() == model_dir()
    assert Path(str(OTHER_DEFAULTS["cache_dir"])).expanduser() == default_cache_dir()

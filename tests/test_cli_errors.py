"""The one CLI error hook: a ReasonForgeError escaping any command is one `error:` line on stderr and exit 2."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from reasonforge.bench.cli import app as bench_app
from reasonforge.certificate.cli import app as cert_app
from reasonforge.cli import app
from reasonforge.cli_errors import ReasonForgeTyper, ReportingCommand, ReportingGroup, fail
from reasonforge.errors import InputError
from reasonforge.forecast.agentic.corpus_cli import app as corpus_app
from reasonforge.forecast.agentic.episode_cli import app as episode_app
from reasonforge.forecast.cli import app as forecast_app
from reasonforge.forecast.ledger.cli import app as reasoning_app
from reasonforge.service.accounts.cli import keys_app
from reasonforge.subnet.cli import app as subnet_app

# (sub-app, its name under `reasonforge`, its arguments, the message) with {t} the test's folder. Every message comes
# from a ReasonForgeError the command does not catch itself, the bad input each app already rejects.
CASES = [
    (bench_app, ["bench"], ["--data", "{t}/missing.jsonl"],
     "data file '{t}/missing.jsonl' does not exist or is not a file"),
    (cert_app, ["cert"], ["show", "{t}/missing.json"], "{t}/missing.json: no such certificate file"),
    (subnet_app, ["subnet"], ["localnet", "--miners", "1", "--epochs", "1", "--dir", "{t}/blocker/net"],
     ("cannot use {t}/blocker/net as the localnet folder: Not a directory; give --dir a new or earlier localnet "
      "directory")),
    (forecast_app, ["forecast"], ["score", "{t}/p.jsonl", "--data", "{t}/missing.jsonl"],
     "data file '{t}/missing.jsonl' does not exist; pass --data with a JSONL file"),
    (episode_app, ["forecast", "episode"], ["analyse", "{t}/run"],
     "no episode records in {t}/run/records.jsonl; run `reasonforge forecast episode run --out {t}/run` first"),
    (reasoning_app, ["forecast", "reasoning"], ["grade", "--ledger", "{t}/nope.json", "--forecasts", "{t}/f.jsonl"],
     "ledger file {t}/nope.json does not exist; check the path"),
    (corpus_app, ["corpus"], ["stats", "--index", "{t}/no-index"],
     "no corpus index at {t}/no-index; build one with `reasonforge corpus ingest FILE --index {t}/no-index`"),
    (keys_app, ["keys"], ["revoke", "rf_nosuchkey00"],
     "no API key with id 'rf_nosuchkey00'; `reasonforge keys list` shows the ids"),
]
# Commands registered on the root app only.
ROOT_CASES = [
    (["verify", "{t}/missing.json"], "request file '{t}/missing.json' does not exist or is not a file"),
    (["worker", "--pool", "nope"], "unknown --pool 'nope'; use solo or threads"),
]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """Bad inputs: an empty run directory and a file where the localnet wants a folder."""
    (tmp_path / "run").mkdir()
    (tmp_path / "blocker").write_text("a file, not a folder")
    return tmp_path


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str | None]:
    """A private REASONFORGE_HOME and no inherited REASONFORGE_ settings."""
    return {**{k: None for k in os.environ if k.startswith("REASONFORGE_")}, "REASONFORGE_HOME": str(tmp_path / "h")}


def _filled(items: list[str], folder: Path) -> list[str]:
    return [item.format(t=folder) for item in items]


def _assert_reported(result, message: str) -> None:
    """Exactly the line `fail(message)` prints, exit 2, nothing on stdout, no exception but the exit."""
    assert result.exit_code == 2, result.output
    assert result.stderr == f"error: {message}\n"
    assert result.stdout == ""
    assert isinstance(result.exception, SystemExit)


@pytest.mark.parametrize(("sub_app", "prefix", "args", "message"), CASES, ids=[" ".join(c[1]) for c in CASES])
def test_an_uncaught_error_is_one_line_and_exit_2_through_the_root_app(folder, env, sub_app, prefix, args, message):
    command = [*prefix, *args] if sub_app is not bench_app else [*prefix, "translate", *args]
    result = CliRunner().invoke(app, _filled(command, folder), env=env)
    _assert_reported(result, message.format(t=folder))


@pytest.mark.parametrize(("sub_app", "prefix", "args", "message"), CASES, ids=[" ".join(c[1]) for c in CASES])
def test_an_uncaught_error_is_one_line_and_exit_2_through_the_sub_app_itself(folder, env, sub_app, prefix, args,
                                                                             message):
    # bench has one command, so invoked on its own it is that command (no `translate` word)
    result = CliRunner().invoke(sub_app, _filled(args, folder), env=env)
    _assert_reported(result, message.format(t=folder))


@pytest.mark.parametrize(("args", "message"), ROOT_CASES, ids=[c[0][0] for c in ROOT_CASES])
def test_root_commands_report_errors_the_same_way(folder, env, args, message):
    _assert_reported(CliRunner().invoke(app, _filled(args, folder), env=env), message.format(t=folder))


def test_the_console_script_reports_without_a_traceback(tmp_path: Path) -> None:
    # what the `reasonforge` entry point (reasonforge.cli:app) runs, in a real process
    script = "import sys; from reasonforge.cli import app; sys.argv[0] = 'reasonforge'; app()"
    out = subprocess.run([sys.executable, "-c", script, "cert", "show", str(tmp_path / "missing.json")],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2, out.stderr
    assert out.stderr == f"error: {tmp_path / 'missing.json'}: no such certificate file\n"
    assert out.stdout == ""


def test_the_hook_prints_what_fail_prints_and_escapes_markup(capsys) -> None:
    probe = ReasonForgeTyper()

    @probe.command()
    def boom(text: str) -> None:
        raise InputError(text)

    @probe.command()
    def direct(text: str) -> None:
        raise fail(text)

    for text in ("plain", "a [bold]path[/bold] with [brackets]"):
        hooked, failed = (CliRunner().invoke(probe, [name, text]) for name in ("boom", "direct"))
        assert hooked.exit_code == failed.exit_code == 2
        assert hooked.stderr == failed.stderr == f"error: {text}\n"


def _tree(command, path=()):
    yield path, command
    for name, sub in getattr(command, "commands", {}).items():
        yield from _tree(sub, (*path, name))


def test_every_group_and_command_of_the_cli_carries_the_hook() -> None:
    # a command built with plain typer.Typer would still be covered under `reasonforge`, not when invoked directly
    for path, command in _tree(typer.main.get_command(app)):
        assert isinstance(command, ReportingGroup | ReportingCommand), (path, type(command))
    assert isinstance(typer.main.get_command(bench_app), ReportingCommand)


# The parser's own usage errors, each as a new user meets it: one `error:` line (what, where, how to fix), exit 2.
USAGE_CASES = [
    (["verify", "--jsn"], "reasonforge verify: no such option --jsn; did you mean --json?"),
    (["verfy"], "reasonforge: no such command 'verfy'; did you mean 'verify'?"),
    (["cert", "nope"], "reasonforge cert: no such command 'nope'; `reasonforge cert --help` lists its commands"),
    (["verify", "--text", "x", "--domain", "maths"],
     "reasonforge verify: --domain: 'maths' is not a domain; use one of: mathematics, code, logic"),
    (["report", "v.json", "--request", "r.json", "--out", "r.pdf", "--template", "pdf"],
     "reasonforge report: --template: 'pdf' is not a template; use one of: plain, eu_ai_act, fda, sec"),
    (["verify", "x", "--samples", "0"],
     "reasonforge verify: --samples: must be at least 1, not 0; `reasonforge verify --help` shows what it takes"),
    (["verify", "x", "--samples", "two"],
     "reasonforge verify: --samples: 'two' is not a whole number; `reasonforge verify --help` shows what it takes"),
    (["verify-batch", "--out", "o.jsonl"],
     ("reasonforge verify-batch: the argument IN.jsonl is missing; `reasonforge verify-batch --help` shows what it "
     "takes")),
    (["keys", "create"],
     "reasonforge keys create: the option --name is missing; `reasonforge keys create --help` shows what it takes"),
    (["verify", "a.json", "b.json"],
     ("reasonforge verify: got unexpected extra argument(s) (b.json); `reasonforge verify --help` shows what it "
     "takes")),
    (["forecast", "eval", "--model", "m", "--data"],
     ("reasonforge forecast eval: option '--data' requires an argument; `reasonforge forecast eval --help` shows "
     "what it takes")),
    (["view", "x", "--out", "{t}/blocker"],
     ("reasonforge view: --out: '{t}/blocker' is a file, not a folder; `reasonforge view --help` shows what it "
     "takes")),
]


@pytest.mark.parametrize(("args", "message"), USAGE_CASES, ids=[" ".join(c[0][:2]) for c in USAGE_CASES])
def test_usage_errors_are_the_same_one_line_in_plain_words(folder, env, args, message):
    _assert_reported(CliRunner().invoke(app, _filled(args, folder), env=env), message.format(t=folder))


def test_the_console_script_reports_a_usage_error_without_a_box(tmp_path: Path) -> None:
    env = {**os.environ, "COLUMNS": "80", "FORCE_COLOR": "1"}  # as on a terminal: no Rich panel either way
    out = subprocess.run([sys.executable, "-m", "reasonforge", "verify", "--domain", "maths", "--text", "x"],
                         capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 2 and out.stdout == ""
    assert "╭" not in out.stderr and "Value error" not in out.stderr and len(out.stderr.splitlines()) == 1
    assert "error:" in out.stderr and "'maths' is not a domain; use one of: mathematics, code, logic" in out.stderr


def _params(command):
    return [p for p in command.params if not getattr(p, "hidden", False)]


def test_help_at_80_columns_names_every_option_whole_and_shows_no_value_for_a_flag() -> None:
    for path, command in _tree(typer.main.get_command(app)):
        if not getattr(command, "add_help_option", True):
            continue  # a stand-in for a room whose extra is not installed
        shown = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": "80"}, terminal_width=80)
        assert shown.exit_code == 0, (path, shown.output)
        text = shown.stdout
        assert "<bool>" not in text and "…" not in text and "╭" not in text, (path, text)
        assert max(len(line) for line in text.splitlines()) <= 80, (path, text)
        assert not any(line.rstrip().endswith("...") and "[ARGS]..." not in line for line in text.splitlines()), text
        for param in _params(command):
            for name in [*param.opts, *param.secondary_opts]:
                if name.startswith("-"):
                    assert f"{name} " in text or f"{name}\n" in text or f"{name}," in text, (path, name, text)
            if getattr(param, "is_flag", False):
                line = next(ln for ln in text.splitlines() if param.opts[-1] in ln.split())
                assert "<" not in line.split(param.opts[-1])[1].split("  ")[0], (path, line)

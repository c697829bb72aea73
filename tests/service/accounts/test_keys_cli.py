"""`reasonforge keys …` against the store the service uses (REASONFORGE_HOME / DATABASE_URL)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from reasonforge.cli import app
from reasonforge.service.accounts import authenticate, usage
from reasonforge.service.db import make_engine, make_sessionmaker
from reasonforge.service.errors import UnauthorizedError


@pytest.fixture
def home_env(tmp_path):
    """Variables for a CLI run: a private home and no inherited REASONFORGE_ settings."""
    env = {k: None for k in os.environ if k.startswith("REASONFORGE_")}
    env["REASONFORGE_HOME"] = str(tmp_path / "home")
    return env


@pytest.fixture
def env(home_env, database_url):
    return {**home_env, "REASONFORGE_DATABASE_URL": database_url}


def _keys(env, *args):
    """Run `reasonforge keys ARGS` in process (the real Typer app) with `env` applied."""
    return CliRunner().invoke(app, ["keys", *args], env=env)


def test_create_in_a_shell_prints_only_the_key(env, database_url):
    # The documented `KEY=$(reasonforge keys create --name x)`: a real process, stdout is the key.
    environ = {k: v for k, v in os.environ.items() if not k.startswith("REASONFORGE_")}
    environ.update({k: v for k, v in env.items() if v is not None})
    created = subprocess.run(
        [sys.executable, "-m", "reasonforge.cli", "keys", "create", "--name", "ci bot"],
        capture_output=True,
        text=True,
        timeout=300,
        env=environ,
        check=False,
    )
    assert created.returncode == 0, created.stderr
    key = created.stdout.strip()
    assert created.stdout == key + "\n" and key.startswith("rf_")
    assert "only its hash is kept" in created.stderr
    engine = make_engine(database_url)
    with make_sessionmaker(engine)() as s:
        principal = authenticate(s, f"Bearer {key}")
    engine.dispose()
    assert principal.name == "ci bot" and principal.tier.value == "free"
    assert principal.scopes == ["verify", "read"]


def test_key_lifecycle_through_the_cli(env, database_url):
    created = _keys(
        env, "create", "--name", "svc", "--tier", "pro", "--scope", "verify"
    )
    assert created.exit_code == 0, created.stderr
    key = created.stdout.strip()
    engine = make_engine(database_url)
    sessions = make_sessionmaker(engine)
    with sessions() as s:
        principal = authenticate(s, f"Bearer {key}")
    assert principal.scopes == ["verify"] and principal.tier.value == "pro"

    listed = _keys(env, "list", "--json")
    [record] = json.loads(listed.stdout)
    assert record["prefix"] == f"rf_{principal.key_id}" and record["revoked"] is False
    assert key.split("_", 2)[2] not in listed.stdout
    table = _keys(env, "list")
    assert record["prefix"] in table.stdout and "active" in table.stdout

    granted = _keys(env, "grant", principal.key_id, "12.50", "--note", "trial")
    assert granted.exit_code == 0 and "balance 12.50" in granted.stderr
    report = _keys(env, "usage", record["prefix"], "--json")
    assert json.loads(report.stdout)["balance_credits"] == 12.5

    secret = _keys(env, "webhook-secret", principal.key_id)
    assert secret.exit_code == 0 and secret.stdout.startswith("whsec_")

    revoked = _keys(env, "revoke", record["prefix"])
    assert revoked.exit_code == 0 and "revoked" in revoked.stderr
    with sessions() as s:
        with pytest.raises(UnauthorizedError, match="revoked"):
            authenticate(s, f"Bearer {key}")
        assert usage(s, principal.key_id).balance_credits == 12.5
    engine.dispose()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("revoke", "rf_nosuchkey00"), "no API key with id"),
        (("grant", "rf_nosuchkey00", "5"), "no API key with id"),
        (("usage", "rf_nosuchkey00"), "no API key with id"),
        (("create", "--name", " "), "key name must be"),
    ],
)
def test_errors_exit_2_with_a_message(home_env, args, message):
    out = _keys(home_env, *args)
    assert out.exit_code == 2 and message in out.stderr and out.stdout == ""
    assert out.exception is None or isinstance(out.exception, SystemExit)


def test_unreachable_store_is_a_clear_error(home_env):
    home_env["REASONFORGE_DATABASE_URL"] = "postgresql://rf:secretpw@127.0.0.1:1/none"
    out = _keys(home_env, "list")
    assert out.exit_code == 2 and "cannot use the store" in out.stderr
    assert "secretpw" not in out.stderr


@pytest.mark.parametrize(
    ("amount", "message"),
    [
        ("1e400", "must be finite with at most two decimals"),
        ("99999999999999999999999", "above the most one grant may add"),
    ],
)
def test_grant_of_an_unrepresentable_amount_is_an_input_error(env, amount, message):
    out = _keys(env, "grant", "rf_nosuchkey00", amount)
    assert out.exit_code == 2 and message in out.stderr, out.output
    assert out.exception is None or isinstance(out.exception, SystemExit)


def test_store_that_cannot_be_opened_is_a_clear_error(home_env, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    home_env["REASONFORGE_HOME"] = str(blocker / "home")
    out = _keys(home_env, "list")
    assert out.exit_code == 2 and "cannot create the store" in out.stderr and "REASONFORGE_HOME" in out.stderr
    assert out.exception is None or isinstance(out.exception, SystemExit)
    home_env["REASONFORGE_DATABASE_URL"] = "nosuchdialect://x"
    out = _keys(home_env, "list")
    assert out.exit_code == 2 and "REASONFORGE_DATABASE_URL" in out.stderr
    assert out.exception is None or isinstance(out.exception, SystemExit)

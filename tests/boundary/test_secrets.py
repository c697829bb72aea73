"""Credentials are stripped from URLs, structures and free text; a spec never holds one, however it is built."""

from __future__ import annotations

import base64
import logging
import string

from hypothesis import given, settings
from hypothesis import strategies as st

from reasonforge.boundary.secrets import env_secrets, is_secret_name, redact_args, redact_url, scrub, url_secrets
from reasonforge.service.logs import LogFormat, configure_logging
from reasonforge.types import Spec

SECRET_TEXT = st.text(alphabet=string.ascii_letters + string.digits + "-_.~!$&'()*+,;=%@:", min_size=8, max_size=30)


def test_a_urls_userinfo_and_secret_parameters_are_stripped():
    assert redact_url("https://alice:s3cret-pass@host:8443/v1?api_key=abcdefgh&x=1") == \
        "https://***@host:8443/v1?api_key=***&x=1"
    assert redact_url("https://TOKEN123456@host/v1") == "https://***@host/v1"
    assert redact_url("http://127.0.0.1:8080/v1") == "http://127.0.0.1:8080/v1"  # nothing to strip: unchanged
    assert redact_url("not a url") == "not a url"


def test_the_credentials_in_a_url_include_their_decoded_and_basic_forms():
    found = url_secrets("https://alice:p%40ss-word9@host/v1")
    assert {"p%40ss-word9", "p@ss-word9", base64.b64encode(b"alice:p@ss-word9").decode()} <= found


def test_secret_names_are_the_ones_that_hold_credentials():
    for name in ("api_key", "OPENAI_API_KEY", "REASONFORGE_WEBHOOK_SECRET", "x-api-key", "token", "password",
                 "Authorization", "apikey"):
        assert is_secret_name(name), name
    for name in ("max_tokens", "base_url", "model", "require_auth", "build_keys_at_start", "temperature"):
        assert not is_secret_name(name), name


def test_free_text_loses_userinfo_tokens_headers_and_known_secrets():
    text = ("POST https://bob:hunter2hunter2@h/v1 failed; Authorization: Bearer sk-live-abcdef123; "
            "x-api-key: \"sk-ant-zzzzzz99\"; ?token=qwertyuiop; the key was KNOWN-secret-77")
    out = scrub(text, {"KNOWN-secret-77"})
    for secret in ("hunter2hunter2", "sk-live-abcdef123", "sk-ant-zzzzzz99", "qwertyuiop", "KNOWN-secret-77"):
        assert secret not in out, out
    assert "a token count of 12" == scrub("a token count of 12")  # ordinary words are left alone


@settings(max_examples=300, deadline=None)
@given(SECRET_TEXT, st.text(max_size=40), st.text(max_size=40))
def test_a_known_secret_is_gone_from_any_text_around_it(secret, before, after):
    assert secret not in scrub(before + secret + after, {secret})


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=string.ascii_letters + string.digits + "-_.~", min_size=1, max_size=12), SECRET_TEXT)
def test_any_userinfo_password_is_gone_from_the_url_and_from_text_quoting_it(user, password):
    url = f"https://{user}:{password}@api.example.com/v1"
    for shown in (redact_url(url), scrub(f"calling {url} failed", url_secrets(url))):
        assert password not in shown.replace("api.example.com/v1", ""), shown


def test_a_spec_never_holds_a_credential_however_it_is_built():
    args = {"backend": {"name": "openai-chat", "args": {"base_url": "https://u:PLANTED-pass-1@h/v1",
                                                        "api_key": "sk-PLANTED", "max_tokens": 64}}}
    built = Spec(name="llm-translator", version="1", args=args)
    read = Spec.model_validate_json(Spec.model_construct(name="x", version="1", args=args).model_dump_json())
    for spec in (built, read):
        dumped = spec.model_dump_json()
        assert "PLANTED" not in dumped and "https://***@h/v1" in dumped and '"max_tokens":64' in dumped


def test_redact_args_masks_secret_named_text_and_keeps_the_rest():
    assert redact_args({"token": "abc", "tokens": 3, "items": ["https://a:bbbbbbbb@h"], "key": None}) == \
        {"token": "***", "tokens": 3, "items": ["https://***@h"], "key": None}


def test_the_environments_secrets_are_its_keys_and_url_credentials():
    env = {"OPENAI_API_KEY": "sk-abcdef", "REASONFORGE_DATABASE_URL": "postgresql://rf:db-pass-99@h/rf",
           "REASONFORGE_MODEL": "gpt-4o", "SHORT_KEY": "abc"}
    found = env_secrets(env)
    assert {"sk-abcdef", "db-pass-99"} <= found and "gpt-4o" not in found and "abc" not in found


def test_the_shells_working_directories_are_not_secrets():
    # named like a password ("pwd"), but masking them turned every path under the current folder into ***
    env = {"PWD": "/home/ann/project", "OLDPWD": "/home/ann/elsewhere", "DB_PWD": "hunter2-hunter2"}
    assert env_secrets(env) == {"hunter2-hunter2"}
    assert scrub("error: /home/ann/project/reasonforge.toml", env_secrets(env)) == \
        "error: /home/ann/project/reasonforge.toml"


def test_log_lines_are_scrubbed_in_both_formats(capsys, monkeypatch):
    monkeypatch.setenv("REASONFORGE_MODEL_API_KEY", "sk-PLANTED-in-env")
    log = logging.getLogger("reasonforge.test.secrets")
    try:
        for fmt in (LogFormat.TEXT, LogFormat.JSON):
            configure_logging("INFO", fmt)
            log.warning("calling https://u:PLANTED-url-pw@h/v1 with sk-PLANTED-in-env")
            try:
                raise RuntimeError("failed at postgresql://rf:PLANTED-db-pw@h/rf")
            except RuntimeError:
                log.exception("crashed")
            err = capsys.readouterr().err
            assert "PLANTED" not in err and "https://***@h/v1" in err and "RuntimeError" in err, err
    finally:
        configure_logging("WARNING", LogFormat.TEXT)

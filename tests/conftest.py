"""Suite-wide: the tests choose their translators themselves, whatever model endpoint or local model this machine
has (the few tests that decode with the local model ask for it: tests/translate/local_model_support.py)."""

import pytest

_MODEL_ENV = ("REASONFORGE_MODEL", "REASONFORGE_MODEL_BASE_URL", "REASONFORGE_MODEL_API_KEY", "REASONFORGE_TRANSLATOR")


@pytest.fixture(autouse=True)
def _no_configured_model(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    # A configured endpoint makes `ensemble` the default translator, and an installed local model answers
    # `--translator model`: hidden, so a test sees the same defaults on every machine.
    for name in _MODEL_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("REASONFORGE_MODEL_DIR", str(tmp_path_factory.getbasetemp() / "no-local-models"))
    # each test its own verdict cache: nothing a test computes answers another, nor a run before the suite
    monkeypatch.setenv("REASONFORGE_CACHE_DIR", str(tmp_path_factory.mktemp("verdict-cache")))

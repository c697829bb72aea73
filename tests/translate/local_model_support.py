"""The installed local model, for the few tests that decode with it (the suite's conftest hides it otherwise)."""

import pytest

from reasonforge.translate.local_model import installed_model, model_dir

REAL_MODEL_DIR = model_dir()  # read at import, before any test points REASONFORGE_MODEL_DIR elsewhere
_INSTALLED = installed_model() is not None


def _runtime() -> bool:
    try:
        import llama_cpp  # noqa: F401
    except ImportError:
        return False
    return True


needs_local_model = pytest.mark.skipif(
    not (_INSTALLED and _runtime()),
    reason="the local model (Qwen2.5-Coder-0.5B GGUF and llama-cpp-python) is not installed: run `make model`")

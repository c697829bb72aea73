"""scripts/check_imports.py: the real tree keeps the import rules; planted violations are named."""

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "check_imports.py"


def _script():
    spec = importlib.util.spec_from_file_location("check_imports", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve their annotations through sys.modules
    spec.loader.exec_module(module)
    return module


def _run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, check=False)


def _tree(root: Path, files: dict[str, str]) -> Path:
    package = root / "src" / "reasonforge"
    for name, text in {"__init__.py": "", **files}.items():
        path = package / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return package


def test_the_real_tree_keeps_the_rules():
    result = _run()
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def test_every_room_of_the_tree_has_a_rule():
    rules = _script().RULES
    rooms = {p.stem if p.is_file() else p.name for p in (REPO / "src" / "reasonforge").iterdir()
             if (p.suffix == ".py" or (p / "__init__.py").is_file())} - {"__init__", "__main__"}
    assert rooms <= set(rules)
    assert all(set(allowed) <= set(rules) for allowed in rules.values())


def test_planted_violations_are_named_one_per_line(tmp_path):
    package = _tree(tmp_path, {
        "types.py": "",
        "translate/__init__.py": "",
        "translate/integrations/__init__.py": "x = 1\n",
        "pipeline/__init__.py": "",
        "sdk/__init__.py": "",
        "sdk/client.py": "import json\n\n\ndef parse():\n    from reasonforge.translate.integrations import x\n",
        "chain/__init__.py": "from reasonforge import sdk\nfrom reasonforge.types import Domain\n",
        "lang/__init__.py": "import reasonforge.translate\n",
        "translate/langchain.py": "def verify():\n    from reasonforge import verify_chain\n",
        "verify/__init__.py": "from reasonforge.verify import coq, lean\n",
        "verify/sandbox/__init__.py": "",
        "verify/lean/__init__.py": "from reasonforge.verify.sandbox import runner\n",
        "verify/coq/__init__.py": "from reasonforge.verify import sandbox\nfrom ..lean import checker\n",
        "verify/coq/align.py": "import reasonforge.verify\nfrom . import lex\nfrom reasonforge.verify.coq import x\n",
        "newroom.py": "",
    })
    result = _run("--root", str(package))
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        "src/reasonforge/chain/__init__.py:1 chain → sdk not allowed",
        "src/reasonforge/lang/__init__.py:1 lang → translate not allowed",
        "src/reasonforge/newroom.py:1 room newroom is missing from the rule table",
        "src/reasonforge/sdk/client.py:5 sdk → translate not allowed",
        "src/reasonforge/translate/langchain.py:2 translate → cli not allowed",
        "src/reasonforge/verify/coq/__init__.py:2 verify.coq → verify.lean not allowed",
        "src/reasonforge/verify/coq/align.py:1 verify.coq → verify (the face imports every sibling) not allowed",
    ]


@pytest.mark.parametrize(("source", "expected"), [
    ("import reasonforge.sdk.client as c\n", "chain → sdk"),
    ("from reasonforge.sdk import *\n", "chain → sdk"),
    ("if True:\n    from reasonforge.bench import run\n", "chain → bench"),
    ("from reasonforge.nowhere import x\n", "chain → nowhere"),
    ("def f(:\n", "syntax error"),
])
def test_import_forms(tmp_path, source, expected):
    package = _tree(tmp_path, {"chain/__init__.py": source, "sdk/__init__.py": "", "sdk/client.py": "",
                               "bench/__init__.py": ""})
    violations = _script().check_tree(package)
    assert [f"{v.source} → {v.target}" if v.target else v.why.split(":")[0] for v in violations] == [expected]

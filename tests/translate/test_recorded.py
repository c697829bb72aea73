"""Model replies recorded once and replayed: the same verdict with no model, a clear error for what was never
recorded. The committed recording (`recordings/gsm8k-0`) was made by the installed 0.5B model with
`reasonforge verify recordings/gsm8k-0.json --translator ensemble --record recordings/gsm8k-0`: it replays
the question's three programs and three problem models (each three decoded together) and the four step
translations (which an ensemble no longer asks for in maths: a model's artifact there can only restate the rules'
reading)."""

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from reasonforge.errors import InputError
from reasonforge.registry import Spec
from reasonforge.translate.llm import ChatMessage, ChatReply, ChatRequest, ModelError, complete_samples
from reasonforge.translate.recorded import RecordingBackend, ReplayBackend, recorded, request_key

from .local_model_support import REAL_MODEL_DIR, needs_local_model

HERE = Path(__file__).resolve().parent
RECORDING = HERE / "recordings" / "gsm8k-0"
CHAIN = HERE / "recordings" / "gsm8k-0.json"


def _verify(*args: str, model_dir: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "REASONFORGE_MODEL_DIR": str(model_dir)}
    env.pop("REASONFORGE_MODEL_REPLAY", None)
    env.pop("REASONFORGE_MODEL_RECORD", None)
    return subprocess.run([sys.executable, "-m", "reasonforge.cli", "verify", *args, "--json"], capture_output=True,
                          text=True, timeout=600, env=env, check=False)


def test_a_recorded_ensemble_run_replays_with_no_model_installed(tmp_path):
    out = _verify(str(CHAIN), "--translator", "ensemble", "--replay", str(RECORDING), model_dir=tmp_path)
    assert out.returncode == 3, out.stderr
    verdict = json.loads(out.stdout)
    assert [s["status"] for s in verdict["step_verdicts"]] == ["unsupported", "verified", "verified", "verified"]
    by = [t for s in verdict["step_verdicts"] for t in s["details"]["agreement"]["by"]
          if t["translator"] == "llm-translator"]
    assert len(by) == 4 and all("not asked" in t["message"] for t in by)  # the question's formalisations only
    again = _verify(str(CHAIN), "--translator", "ensemble", "--replay", str(RECORDING), model_dir=tmp_path)
    assert json.loads(again.stdout)["verdict_hash"] == verdict["verdict_hash"]  # deterministic


def test_a_prompt_that_was_never_recorded_is_a_clear_error(tmp_path):
    changed = json.loads(CHAIN.read_text())
    changed["original_query"] += " (reworded)"  # the question's formalisations are asked anew
    path = tmp_path / "changed.json"
    path.write_text(json.dumps(changed))
    out = _verify(str(path), "--translator", "ensemble", "--replay", str(RECORDING), model_dir=tmp_path)
    assert out.returncode == 2 and "no recorded reply" in out.stderr and "--record" in out.stderr
    assert "Traceback" not in out.stderr


def test_a_folder_with_no_recording_is_refused_before_any_work(tmp_path):
    out = _verify(str(CHAIN), "--translator", "ensemble", "--replay", str(tmp_path), model_dir=tmp_path)
    assert out.returncode == 2 and "holds no model recording" in out.stderr
    with pytest.raises(InputError, match="not both"):
        recorded(lambda: None, record=tmp_path, replay=tmp_path)


class Echo:
    spec = Spec(name="echo", version="1")

    async def complete(self, request: ChatRequest) -> ChatReply:
        if request.attempt == 3:
            raise ModelError("the endpoint timed out")
        return ChatReply(text=f"{request.messages[-1].content} #{request.attempt}")


def test_recording_keeps_each_sample_and_each_error_and_replay_gives_them_back(tmp_path):
    request = ChatRequest(system="s", messages=[ChatMessage(role="user", content="hello")])
    made = asyncio.run(complete_samples(RecordingBackend(Echo(), tmp_path), request, [1, 2, 3]))
    replayed = asyncio.run(complete_samples(ReplayBackend(tmp_path), request, [1, 2, 3]))
    assert [r.text for r in replayed[:2]] == [r.text for r in made[:2]] == ["hello #1", "hello #2"]
    assert isinstance(replayed[2], ModelError) and "timed out" in replayed[2].message
    assert ReplayBackend(tmp_path).spec == Echo.spec
    assert (tmp_path / "replies" / f"{request_key(request)}.json").is_file()


def test_a_damaged_recording_is_named(tmp_path):
    request = ChatRequest(system="s", messages=[ChatMessage(role="user", content="hi")])
    asyncio.run(RecordingBackend(Echo(), tmp_path).complete(request))
    (tmp_path / "replies" / f"{request_key(request)}.json").write_text("{not json")
    with pytest.raises(InputError, match="is not JSON"):
        asyncio.run(ReplayBackend(tmp_path).complete(request))


@needs_local_model
def test_a_run_recorded_from_the_local_model_replays_to_the_same_verdict(tmp_path):
    whale = HERE.parents[1] / "examples" / "whale.json"
    made = _verify(str(whale), "--translator", "model", "--record", str(tmp_path / "rec"), model_dir=REAL_MODEL_DIR)
    assert made.returncode in (0, 1, 3), made.stderr
    again = _verify(str(whale), "--translator", "model", "--replay", str(tmp_path / "rec"), model_dir=tmp_path)
    assert again.returncode == made.returncode, again.stderr
    assert json.loads(again.stdout)["verdict_hash"] == json.loads(made.stdout)["verdict_hash"]


class Counting(Echo):
    def __init__(self):
        self.asked = []

    async def complete(self, request: ChatRequest) -> ChatReply:
        self.asked.append(request.attempt)
        return await super().complete(request)


def test_a_remembering_backend_asks_the_model_once_per_request_and_never_keeps_an_error():
    from reasonforge.translate.recorded import RememberingBackend

    inner = Counting()
    backend = RememberingBackend(inner)
    request = ChatRequest(system="s", messages=[ChatMessage(role="user", content="hello")])
    first = asyncio.run(complete_samples(backend, request, [1, 2, 3]))
    again = asyncio.run(complete_samples(backend, request, [1, 2, 3]))
    assert [r.text for r in again[:2]] == [r.text for r in first[:2]] == ["hello #1", "hello #2"]
    assert isinstance(again[2], ModelError)  # attempt 3 failed, and is asked again rather than kept
    assert inner.asked == [1, 2, 3, 3]
    assert asyncio.run(backend.complete(request.model_copy(update={"attempt": 2}))).text == "hello #2"
    assert inner.asked == [1, 2, 3, 3] and backend.spec == inner.spec
    other = request.model_copy(update={"messages": [ChatMessage(role="user", content="bye")]})
    assert asyncio.run(backend.complete(other)).text == "bye #1" and inner.asked[-1] == 1

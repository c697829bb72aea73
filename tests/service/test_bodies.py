"""The API never answers 500 to a body: a provider payload of the wrong shape is a 422 naming the field.

The instances (a Responses `summary`, a reasoning item's `content` or a message `content` that is not a list, each
a 500 once; a chat `reasoning_content` or a `thinking` block that is not a string, each once read as if absent)
are refused by the API with a 422 and by `reasonforge verify --text` with exit 2, each naming the field's path.
The family: any JSON value at any field of a real recorded provider response, posted to
`POST /v1/verify/reasoning`, is accepted (202) or refused with a 4xx, never a 5xx. The app runs in process
without its workers (nothing is verified; only the reading is under test), and a server error is answered as a
response rather than raised into the test, so it is seen as the client would see it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_api import Api, error_of

from reasonforge.service import create_app
from reasonforge.service.settings import ServiceSettings

from llm_replay import field_paths, recorded, replaced

ROOT = Path(__file__).resolve().parents[2]
PAYLOADS = ("openai_responses_reasoning", "deepseek_reasoner", "openai_chat_json_mode", "anthropic_thinking")
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(10**12), max_value=10**12)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=12,
)


@pytest.fixture(scope="module")
def reader(tmp_path_factory: pytest.TempPathFactory) -> tuple[Api, dict[str, str]]:
    settings_ = ServiceSettings(home=tmp_path_factory.mktemp("rf-bodies"), rate_limit_per_minute=10_000_000)
    api = Api(TestClient(create_app(settings_), raise_server_exceptions=False))
    return api, api.key()


def _post(reader: tuple[Api, dict[str, str]], reasoning: Any) -> Any:
    api, headers = reader
    body = {"reasoning": reasoning, "domain": "mathematics", "proof_level": "quick", "generate_certificate": False}
    return api.client.post("/v1/verify/reasoning", json=body, headers=headers)


MALFORMED = [
    ({"object": "response", "output": [{"type": "reasoning", "summary": 5}]},
     "response.output[0].summary is a number, not an array"),
    ({"object": "response", "output": [{"type": "reasoning", "summary": [], "content": 7}]},
     "response.output[0].content is a number, not an array"),
    ({"object": "response", "output": [{"type": "message", "content": 3}]},
     "response.output[0].content is a number, not an array"),
    ({"choices": [{"message": {"content": "x", "reasoning_content": ["a"]}}]},
     "choices[0].message.reasoning_content is an array, not a string"),
    ({"type": "message", "content": [{"type": "thinking", "thinking": {"a": 1}}]},
     "message.content[0].thinking is an object, not a string"),
]
MALFORMED_IDS = ["summary-a-number", "reasoning-content-a-number", "message-content-a-number",
                 "chat-reasoning-content-a-list", "thinking-an-object"]


@pytest.mark.parametrize(("payload", "message"), MALFORMED, ids=MALFORMED_IDS)
def test_a_provider_payload_of_the_wrong_shape_is_a_422_naming_the_field(reader, payload, message):
    response = _post(reader, payload)
    assert response.status_code == 422, response.text
    error = error_of(response)
    assert error["field"] == "reasoning" and message in error["message"], error


@pytest.mark.parametrize(("payload", "message"), MALFORMED, ids=MALFORMED_IDS)
def test_the_cli_refuses_the_same_payloads_with_exit_2(tmp_path: Path, payload, message):
    path = tmp_path / "response.json"
    path.write_text(json.dumps(payload))
    out = subprocess.run([sys.executable, "-m", "reasonforge.cli", "verify", "--text", str(path), "--domain",
                          "mathematics"], capture_output=True, text=True, timeout=300, check=False,
                         env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
    assert message in " ".join(out.stderr.split()), out.stderr




@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(st.data())
def test_any_json_at_any_field_of_a_provider_response_is_never_a_5xx(reader, data):
    payload = recorded(data.draw(st.sampled_from(PAYLOADS)))
    mutated = replaced(payload, data.draw(st.sampled_from(field_paths(payload))), data.draw(JSON_VALUES))
    response = _post(reader, mutated)
    assert response.status_code < 500, (mutated, response.text)
    if response.status_code >= 400:
        assert set(response.json()) == {"error"}, response.text

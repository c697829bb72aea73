"""Reply parsing: artifacts only from fences or JSON, never from prose; every failure has a kind and a message."""

import pytest

from reasonforge.translate.parsers import (
    ReplyError,
    fenced_blocks,
    find_json_object,
    parse_artifact_reply,
    parse_confidence,
    parse_dependencies,
)
from reasonforge.types import ArtifactLanguage as L

FOL = "∀x (Whale(x) → Mammal(x))\nWhale(moby)\n⊢ Mammal(moby)"


def test_fenced_artifact_with_chatter_and_metadata():
    reply = (f"Sure! Here is the translation.\n\n```fol\n{FOL}\n```\n\nDEPENDENCIES: 1, 3\n"
             "**Confidence:** 85%\nLet me know if you need more.")
    parsed = parse_artifact_reply(reply, L.FOL)
    assert parsed.artifact == FOL + "\n" and parsed.source == "fence"
    assert parsed.dependencies == (1, 3) and parsed.confidence == pytest.approx(0.85)


def test_json_reply_and_fence_inside_the_json_string():
    reply = '{"formal_representation": "```fol\\nP(a)\\n⊢ P(a)\\n```", "dependencies": [], "confidence": 0.9}'
    parsed = parse_artifact_reply(reply, L.FOL)
    assert parsed.artifact == "P(a)\n⊢ P(a)\n" and parsed.dependencies == () and parsed.confidence == 0.9
    assert "removed a Markdown fence" in parsed.notes[0]


def test_tool_arguments_are_read_like_json():
    parsed = parse_artifact_reply(None, L.SMTLIB, tool_arguments={"formal_representation": "(assert (not p))",
                                                                   "dependencies": "none", "confidence": "0.7"})
    assert parsed.artifact == "(assert (not p))\n" and parsed.dependencies == () and parsed.confidence == 0.7


def test_python_blocks_are_joined_other_languages_take_the_last():
    py = "```python\ndef f(x):\n    return x\n```\nand tests:\n```py\ndef test_f():\n    assert f(1) == 1\n```"
    assert parse_artifact_reply(py, L.PYTHON).artifact.count("def ") == 2
    two = "Draft:\n```fol\nP(a)\n```\nFixed:\n```fol\nQ(a)\n```"
    parsed = parse_artifact_reply(two, L.FOL)
    assert parsed.artifact == "Q(a)\n" and "last of 2" in parsed.notes[0]


@pytest.mark.parametrize(("reply", "kind", "fragment"), [
    ("All whales are mammals, so Moby is a mammal.", "no_artifact", "no fenced block"),
    ("```lean\ntheorem t : True := trivial\n```", "wrong_language", "found: ```lean"),
    ('{"formal_representation": "P(a)\\n⊢ P', "truncated", "not closed"),
    ('{"formal_representation": P(a)}', "bad_json", "does not decode"),
    ('{"artifact_text": "P(a)"}', "bad_json", "keys: artifact_text"),
    ("I'm sorry, but I can't help with translating this.", "refusal", "refused"),
    ("```fol\nP(a)\n⊢ Q", "truncated", "not closed"),
    ("<think>Let me think about the predicates", "truncated", "<think>"),
    ("   ", "empty", "empty"),
    ("```fol\n\n```", "empty", "empty"),
])
def test_malformed_replies_raise_a_clear_error(reply, kind, fragment):
    with pytest.raises(ReplyError) as info:
        parse_artifact_reply(reply, L.FOL)
    assert info.value.kind == kind and fragment in info.value.message


def test_provider_refusal_and_truncation_flags():
    with pytest.raises(ReplyError, match="the model refused: I cannot"):
        parse_artifact_reply(None, L.COQ, refusal="I cannot help with that.")
    with pytest.raises(ReplyError) as info:
        parse_artifact_reply("", L.COQ, truncated=True)
    assert info.value.kind == "truncated"


def test_think_sections_are_ignored_and_untagged_fences_accepted_alone():
    reply = "<think>maybe ```fol\nWRONG(x)\n``` no</think>\n```\nP(a)\n⊢ P(a)\n```"
    parsed = parse_artifact_reply(reply, L.FOL)
    assert parsed.artifact == "P(a)\n⊢ P(a)\n" and "untagged" in parsed.notes[0]


def test_code_braces_in_chatter_are_not_json():
    reply = "The set {1, 2} matters.\n```python\nd = {1: 2}\ndef test_d():\n    assert d[1] == 2\n```"
    assert parse_artifact_reply(reply, L.PYTHON).artifact.startswith("d = {1: 2}")
    assert find_json_object("no json here {a b}") == (None, None)


def test_fences_follow_commonmark_closing_rules():
    blocks = fenced_blocks("````coq\nLemma a : True.\n```\nstill inside\n````\n~~~\nx\n~~~")
    assert [(b.tag, b.closed) for b in blocks] == [("coq", True), ("", True)]
    assert "still inside" in blocks[0].body


@pytest.mark.parametrize(("value", "expected"), [
    ([1, 2, 2], (1, 2)), ("Step 1 and step 3", (1, 3)), ("none", ()), (4, (4,)), ("[2, 5]", (2, 5))])
def test_dependencies_forms(value, expected):
    assert parse_dependencies(value) == (expected, None)


@pytest.mark.parametrize("value", ["the first one", [True], 1.5, {"a": 1}])
def test_unreadable_dependencies_are_reported(value):
    ids, why = parse_dependencies(value)
    assert ids is None and why


@pytest.mark.parametrize(("value", "expected"), [(0.3, 0.3), ("80%", 0.8), ("1", 1.0), (1.2, None), ("high", None),
                                                 (True, None)])
def test_confidence_forms(value, expected):
    assert parse_confidence(value)[0] == expected

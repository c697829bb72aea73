"""Reasoning chains out of recorded provider payloads and plain text: every text the response states is a step,
and the answer it claims is the last one it states."""


import pytest

from reasonforge.chain import (
    ReasoningChainError,
    final_answer,
    parse_reasoning_chain,
    read_reasoning,
    reasoning_from_bytes,
    request_from_reasoning,
    split_reasoning,
)
from reasonforge.chain.reasoning import stated_answer
from reasonforge.errors import InputError, ReasonForgeError
from reasonforge.types import ReasoningSubmission

from llm_replay import field_paths, recorded, replaced


def contents(response, **kw):
    return [s.content for s in parse_reasoning_chain(response, **kw)]


def anthropic(*blocks):
    return {"type": "message", "role": "assistant", "content": list(blocks)}


def thinking(text):
    return {"type": "thinking", "thinking": text, "signature": "sig"}


def text(body):
    return {"type": "text", "text": body}


def chat(content, **message):
    return {"object": "chat.completion", "choices": [{"index": 0, "message": {
        "role": "assistant", "content": content, **message}}]}


def responses(*items):
    return {"object": "response", "output": list(items)}


def summary(*texts):
    return {"type": "reasoning", "summary": [{"type": "summary_text", "text": t} for t in texts]}


def output_text(*texts):
    return {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": t} for t in texts]}


def request(reasoning, **kw):
    return request_from_reasoning(ReasoningSubmission(reasoning=reasoning, domain="mathematics", **kw))


# ---- recorded payloads: the reasoning and then the answer ----------------------------------------------------------
def test_openai_responses_summaries_split_like_any_reasoning_and_the_answer_follows():
    body = recorded("openai_responses_reasoning")
    steps = parse_reasoning_chain(body)
    assert [s.step_id for s in steps] == list(range(1, len(steps) + 1))
    summaries = [part["text"] for item in body["output"] if item["type"] == "reasoning" for part in item["summary"]]
    # the same text as an Anthropic thinking block splits the same way: a summary is paragraphs like any other
    as_thinking = {"type": "message", "role": "assistant", "model": "claude", "content": [
        {"type": "thinking", "thinking": text, "signature": "s"} for text in summaries]}
    reasoning = contents(body, prefer="reasoning")
    assert reasoning == contents(as_thinking, prefer="reasoning") and len(reasoning) > len(summaries)
    assert reasoning[0] == "Considering street crossing safety"  # a title of its own (it claims nothing)
    assert reasoning[1].startswith("I need to parse the user's query")
    answer = contents(body, prefer="answer")
    assert answer[0] == "Here’s a simple, safe way to cross a street:"  # the visible answer follows, split
    assert [s.content for s in steps] == reasoning + answer
    assert all(s.dependencies is None for s in steps)  # each step depends on the previous one


def test_sources_still_choose_one_side():
    body = recorded("openai_responses_reasoning")
    answer = contents(body, prefer="answer")
    assert answer[0] == "Here’s a simple, safe way to cross a street:" and len(answer) == 11
    assert contents(body) == contents(body, prefer="reasoning") + answer


def test_anthropic_thinking_then_text_blocks():
    steps = contents(recorded("anthropic_thinking"))
    assert len(steps) == 16
    assert steps[0].startswith("This is a basic question about street safety.")
    assert steps[1] == "I'll include:"
    assert steps[2:8] == ["Finding the right place to cross (crosswalks, intersections)", "Checking for traffic signals",
                          "Looking both ways for approaching vehicles", "Making eye contact with drivers",
                          "Walking (not running) across the street", "Staying alert while crossing"]
    assert steps[8].startswith("I'll keep my answer straightforward")
    # the "# How to Cross the Street Safely" heading has words a section title does not: it stays a step
    assert steps[9] == "How to Cross the Street Safely"
    assert steps[10].startswith("**Find the right place to cross**\n   - Use marked crosswalks")
    assert steps[-1].startswith("Remember, safety should always be your priority")


def test_anthropic_answer_keeps_nested_bullets_inside_numbered_items():
    steps = contents(recorded("anthropic_thinking"), prefer="answer")
    assert len(steps) == 7  # the heading, 5 items (their nested bullets inside) and the closing remark
    assert steps[1].startswith("**Find the right place to cross**\n   - Use marked crosswalks")


def test_deepseek_reasoning_content_then_content():
    steps = contents(recorded("deepseek_reasoner"))
    assert len(steps) == 16
    assert steps[0].startswith("Okay, the user is asking how to cross the street.")
    assert steps[4].endswith("Need to present it clearly and concisely.")
    assert steps[5].startswith("Crossing the street safely involves careful observation")


def test_deepseek_think_tags_in_content():
    body = recorded("openai_chat_json_mode")
    body["model"] = "deepseek-r1:14b"
    body["choices"][0]["message"]["content"] = "<think>\nFirst, 2 + 2 = 4.\n\nThen 4 * 3 = 12.\n</think>\n\nThe answer is 12."
    reading = read_reasoning(body)
    assert reading.provider == "deepseek" and reading.answer == "The answer is 12."
    assert reading.segments == ("First, 2 + 2 = 4.\n\nThen 4 * 3 = 12.",)
    # the answer line states the answer the response ends on: it joins the step it concludes
    assert contents(body) == ["First, 2 + 2 = 4.", "Then 4 * 3 = 12.\nThe answer is 12."]
    assert contents(body, prefer="answer") == ["The answer is 12."]


def test_chat_completion_without_reasoning_uses_the_answer():
    body = recorded("openai_chat_json_mode")
    body["choices"][0]["message"]["content"] = "1. x = 2\n2. So x^2 = 4"
    assert contents(body) == ["x = 2", "So x^2 = 4"]


def test_sdk_objects_with_model_dump_are_accepted():
    class Response:
        def model_dump(self):
            return recorded("anthropic_thinking")

    assert len(parse_reasoning_chain(Response())) == 16

    class Broken:
        def model_dump(self):
            raise RuntimeError("not serialisable")

    with pytest.raises(ReasoningChainError, match="cannot read the Broken object"):
        parse_reasoning_chain(Broken())


# ---- the visible answer is checked too (the model_output family) ---------------------------------------------------
@pytest.mark.parametrize("payload", [
    anthropic(thinking("2 + 3 = 5"), text("Also 2 + 2 = 5. The answer is 5.")),
    chat("Also 2 + 2 = 5. The answer is 5.", reasoning_content="2 + 3 = 5"),
    chat("<think>2 + 3 = 5</think>\nAlso 2 + 2 = 5. The answer is 5."),
    responses(summary("2 + 3 = 5"), output_text("Also 2 + 2 = 5. The answer is 5.")),
    responses({"type": "reasoning", "summary": [], "content": [{"type": "reasoning_text", "text": "2 + 3 = 5"}]},
              output_text("Also 2 + 2 = 5. The answer is 5.")),
    "<think>2 + 3 = 5</think>\nAlso 2 + 2 = 5. The answer is 5.\n",
])
def test_the_visible_answer_is_split_after_the_reasoning_in_every_format(payload):
    assert contents(payload) == ["2 + 3 = 5", "Also 2 + 2 = 5. The answer is 5."]
    assert request(payload).claimed_answer == "5"


def test_reasoning_content_and_a_think_section_in_the_content_are_both_steps():
    payload = chat("<think>2 + 2 = 5</think>\nThe answer is 5.", reasoning_content="2 + 3 = 5")
    assert contents(payload) == ["2 + 3 = 5", "2 + 2 = 5\nThe answer is 5."]
    assert contents(payload, prefer="reasoning") == ["2 + 3 = 5", "2 + 2 = 5"]
    assert contents(payload, prefer="answer") == ["The answer is 5."]


def test_several_blocks_are_read_in_order():
    payload = anthropic(thinking("2 + 3 = 5"), text("The answer is 5."), text("Check: 5 - 3 = 3."))
    assert contents(payload) == ["2 + 3 = 5\nThe answer is 5.", "Check: 5 - 3 = 3."]
    interleaved = anthropic(thinking("a = 1"), text("So b = 2."), thinking("Then c = 3."), text("And d = 4."))
    assert contents(interleaved) == ["a = 1", "So b = 2.", "Then c = 3.", "And d = 4."]


def test_nested_and_stray_think_tags():
    nested = "<think>2 + 3 = 5 <think>and 2 + 2 = 5</think> so</think>\nThe answer is 5."
    assert read_reasoning(nested).segments == ("2 + 3 = 5 and 2 + 2 = 5 so",)
    assert contents(nested) == ["2 + 3 = 5 and 2 + 2 = 5 so\nThe answer is 5."]
    # the template put <think> in the prompt: the text opens inside the reasoning
    stray = "2 + 3 = 5</think>\n\nSo 2 + 2 = 5."
    assert read_reasoning(stray).segments == ("2 + 3 = 5",) and read_reasoning(stray).answer == "So 2 + 2 = 5."
    assert contents(stray) == ["2 + 3 = 5", "So 2 + 2 = 5."]
    unclosed = "Intro 1 + 1 = 2.\n\n<think>2 + 2 = 5"  # cut off inside the reasoning: still a step
    assert contents(unclosed) == ["Intro 1 + 1 = 2.", "2 + 2 = 5"]
    assert contents("<THINK>x = 1</Think>y = 2") == ["x = 1", "y = 2"]


# ---- headings ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "expected"), [
    ("2 + 2 = 4\n\n## Hence 2 + 2 = 5\n", ["2 + 2 = 4", "Hence 2 + 2 = 5"]),
    ("2 + 3 = 5\n\n# Therefore 2 + 3 = 6", ["2 + 3 = 5", "Therefore 2 + 3 = 6"]),
    ("x + 1 = 4\n\n### So x = 10\n", ["x + 1 = 4", "So x = 10"]),
    ("2 + 3 = 5\n\n## Answer: 2 + 3 = 7\n", ["2 + 3 = 5", "Answer: 2 + 3 = 7"]),
    ("1. 2 + 3 = 5\n2. 5 + 1 = 6\n## Hence 6 + 1 = 8", ["2 + 3 = 5", "5 + 1 = 6", "Hence 6 + 1 = 8"]),
    ("2 + 3 = 5\n\n**Therefore x = 3**", ["2 + 3 = 5", "Therefore x = 3"]),
    ("## **Hence 2 + 2 = 5** ##", ["Hence 2 + 2 = 5"]),
    ("Moby is a whale.\n\n## Moby swims", ["Moby is a whale.", "Moby swims"]),  # no number, still a claim
    ("## No solution\n\nx^2 = -1", ["No solution", "x^2 = -1"]),
    ("## Answer: first\n\nAnn ran fastest.", ["Answer: first", "Ann ran fastest."]),
    ("## 5", ["5"]),
])
def test_a_heading_that_claims_something_is_a_step(text, expected):
    assert split_reasoning(text) == expected


@pytest.mark.parametrize("title", [
    "## Solution", "# Final Answer", "### Step 2:", "**Step 2.**", "Step 2:", "## Step 3: Compute the total",
    "**Solution:**", "## Breaking Down the Problem", "### 1. Setup", "## Part (a)", "## Case II", "####",
    "## Understanding the Problem", "## Step-by-Step Solution", "## Let's solve it",
])
def test_a_title_that_claims_nothing_is_dropped(title):
    assert split_reasoning(f"{title}\n\n2 + 3 = 5") == ["2 + 3 = 5"]
    if title.startswith("#"):  # a Markdown heading is a block of its own; a bold line is part of its paragraph
        assert split_reasoning(f"{title}\n2 + 3 = 5") == ["2 + 3 = 5"]
    else:
        assert split_reasoning(f"{title}\n2 + 3 = 5") == [f"{title}\n2 + 3 = 5"]


def test_a_hostile_heading_is_read():
    heading = "## " + "solution " * 50_000  # too long to be a title: a step
    assert split_reasoning(heading + "\n\nx = 1") == [heading[3:].strip(), "x = 1"]


# ---- plain text shapes ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "expected"), [
    ("Step 1: Let x = 3.\nStep 2: Then x + 1 = 4.\n**Step 3.** So x + 2 = 5.",
     ["Let x = 3.", "Then x + 1 = 4.", "So x + 2 = 5."]),
    ("We know:\n- All whales are mammals.\n- Moby is a whale.\n\nTherefore Moby is a mammal.",
     ["We know:", "All whales are mammals.", "Moby is a whale.", "Therefore Moby is a mammal."]),
    ("First, expand.\n$$\n(x+1)^2 = x^2 + 2x + 1\n$$\n\nSo the identity holds.",
     ["First, expand.\n$$\n(x+1)^2 = x^2 + 2x + 1\n$$", "So the identity holds."]),
    ("We compute\n\n\\[\na = 1\n\nb = 2\n\\]\n\nHence a + b = 3.",
     ["We compute\n\\[\na = 1\n\nb = 2\n\\]", "Hence a + b = 3."]),
    ("Preamble.\n### Step 1\nx = 1\n### Step 2\nx + 1 = 2", ["Preamble.", "x = 1", "x + 1 = 2"]),
    ("1) a = 1\n2) b = 2", ["a = 1", "b = 2"]),
    ("Just one paragraph, no structure.", ["Just one paragraph, no structure."]),
    # fenced code is one block of its own: its blank lines, `#` comments and `-` lines are not paragraphs,
    # headings or items
    ("Run this:\n\n```python\n# 2 + 2 = 5\nx = 2 + 2\n\n- 1\n```\n\nSo x = 4.",
     ["Run this:", "```python\n# 2 + 2 = 5\nx = 2 + 2\n\n- 1\n```", "So x = 4."]),
    ("Step 1: x = 1\n~~~\nStep 9: not a header\n~~~\nStep 2: y = 2", ["x = 1\n~~~\nStep 9: not a header\n~~~", "y = 2"]),
])
def test_plain_text_shapes(text, expected):
    assert split_reasoning(text) == expected
    assert contents(text) == expected


def test_gsm8k_solutions_are_a_step_per_line_and_keep_their_answer_line():
    first = "Janet sells 16 - 3 - 4 = <<16-3-4=9>>9 duck eggs a day."
    second = "She makes 9 * 2 = $<<9*2=18>>18 every day at the farmer’s market."
    gold = f"{first}\n{second}\n#### 18"
    assert split_reasoning(gold) == [first, f"{second}\n#### 18"]
    assert split_reasoning(f"{first}\n{second}\nThe answer is 18.") == [first, f"{second}\nThe answer is 18."]
    assert request(gold).claimed_answer == "18"
    assert split_reasoning("16 - 3 - 4 = 9\n\n#### 9") == ["16 - 3 - 4 = 9\n#### 9"]


@pytest.mark.parametrize(("text", "expected"), [
    # a line that continues a sentence or a relation stays with it
    ("The total cost is 3 + 4\n= 7 dollars.\nSo she pays 7.", ["The total cost is 3 + 4\n= 7 dollars.", "So she pays 7."]),
    ("First, she buys 3 apples,\nthen 4 more.\nShe has 7.", ["First, she buys 3 apples,\nthen 4 more.", "She has 7."]),
    ("The sum is:\n3 + 4 = 7\nDone: 7 apples.", ["The sum is:\n3 + 4 = 7", "Done: 7 apples."]),
    ("11x = 286\nx = 26\nand so on", ["11x = 286", "x = 26\nand so on"]),  # a one-letter name starts a statement
    # a display block spanning lines stays whole and joins the sentence that introduces it
    ("We compute\n$$\n2 + 2\n= 4\n$$\nSo 4.", ["We compute\n$$\n2 + 2\n= 4\n$$", "So 4."]),
    # blank lines or list items: paragraphs and items as before, never a step per line
    ("a = 1\nb = 2\n\nc = 3", ["a = 1\nb = 2", "c = 3"]),
    ("Two things:\n1. a = 1\n2. b = 2", ["Two things:", "a = 1", "b = 2"]),
])
def test_a_text_without_blank_lines_is_a_step_per_line(text, expected):
    assert split_reasoning(text) == expected


# ---- the stated answer -------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "answer"), [
    ("so x = 3. The answer is $\\boxed{\\frac{1}{2}}$.", "\\frac{1}{2}"),
    ("\\boxed{1} first, then \\boxed{\\{2, 3\\}}", "\\{2, 3\\}"),
    ("She has 18 eggs.\n#### 18", "18"),
    ("The final answer is: 42.", "42"),
    ("The answer is $18$.", "18"),
    ("The answer is **7**. Let me double-check that.", "7"),
    ("The final answer is:\n\n9", ""),  # the value must follow on the next line
    ("The final answer is:\n9", "9"),
    ("We get 5 apples.", ""),  # nothing states an answer: none is guessed from the prose
    ("\\boxed{unclosed", ""),
    ("I wonder what the answer is. 2 + 3 = 5.", ""),
    ("#### Summary\nWe get 5.", ""),  # a heading, not an answer line
    ("```\nprint('the answer is 6')\n#### 6\n```\nSo 2 + 3 = 5.", ""),  # code states nothing
])
def test_final_answer_reads_only_what_the_text_states(text, answer):
    assert final_answer(text) == answer


@pytest.mark.parametrize(("text", "answer"), [
    ("My first guess was \\boxed{5}, but 2 + 3 = 6, so the answer is 6.", "6"),
    ("The answer is 6. On reflection it is \\boxed{5}.", "5"),
    ("#### 5\n\nOn reflection, 2 + 3 = 6, so the answer is 6.", "6"),
    ("The answer is 6.\n#### 5", "5"),
    ("\\boxed{5}\n#### 6", "6"),
    ("#### 6\n\\boxed{5}", "5"),
])
def test_the_last_answer_stated_is_the_one_claimed_in_either_order(text, answer):
    assert final_answer(text) == answer
    assert request(text).claimed_answer == answer


@pytest.mark.parametrize(("payload", "answer"), [
    (anthropic(thinking("2 + 3 = 5, so the answer is 5."), text("2 + 3 = 5\n\n#### 6")), "6"),
    (anthropic(thinking("So the answer is 6."), text("2 + 3 = 5, the answer is 5.")), "5"),
    (responses(summary("2 + 3 = 5, so the answer is 6."), output_text("2 + 3 = 5.")), "6"),  # in a summary only
    (chat("2 + 3 = 5.", reasoning_content="The answer is 7."), "7"),
    (anthropic(text("The answer is 5."), thinking("Hmm, the answer is 6.")), "6"),  # by position, not by side
])
def test_the_answer_is_the_last_one_in_the_whole_response(payload, answer):
    assert stated_answer(read_reasoning(payload)) == answer
    assert request(payload).claimed_answer == answer
    assert request(payload, source="answer").claimed_answer == answer  # whichever side becomes steps
    assert request(payload, claimed_answer="9").claimed_answer == "9"  # the caller's answer wins


def test_final_answer_is_bounded_on_hostile_text():
    for hostile in ("the answer is " * 100_000, "\\boxed{" * 100_000, "#### " + " " * 100_000 + "x",
                    "#### 1" + " " * 100_000 + "x", "{" * 100_000 + "\\boxed{1}" + "}" * 100_000,
                    "\\boxed{" * 50_000 + "}" * 50_000, "   " * 100_000 + "step", "**" + " " * 100_000 + "x"):
        assert len(final_answer(hostile)) <= 200
        assert len(split_reasoning(hostile)) >= 1


# ---- an answer block joins the step it concludes; another answer is a step of its own ------------------------------
@pytest.mark.parametrize(("text", "expected"), [
    ("2 + 3 = 5\n\nThe answer is $\\boxed{5}$.", ["2 + 3 = 5\nThe answer is $\\boxed{5}$."]),
    ("2 + 3 = 5\n\n**Final answer:** 5", ["2 + 3 = 5\n**Final answer:** 5"]),
    ("2 + 3 = 5\n\n\\boxed{5}", ["2 + 3 = 5\n\\boxed{5}"]),
    ("2 + 3 = 5\n\nSo the answer is 5.\n\n#### 5", ["2 + 3 = 5\nSo the answer is 5.\n#### 5"]),
    # an answer the text does not end on stays a step of its own: nothing proves it
    ("2 + 3 = 5\n\nThe answer is 6.\n\n2 + 3 = 5, the answer is 5.",
     ["2 + 3 = 5", "The answer is 6.", "2 + 3 = 5, the answer is 5."]),
    ("#### 5\n\nOn reflection, 2 + 3 = 6, so the answer is 6.", ["#### 5", "On reflection, 2 + 3 = 6, so the answer is 6."]),
    # a relation is a claim to read, never folded into an answer
    ("2 + 3 = 5\n\nThe answer is x = 6.", ["2 + 3 = 5", "The answer is x = 6."]),
    ("The answer is 5.", ["The answer is 5."]),  # nothing before it to join
])
def test_answer_blocks(text, expected):
    assert split_reasoning(text) == expected


# ---- requests and errors -----------------------------------------------------------------------------------------
@pytest.mark.parametrize(("payload", "fragment"), [
    ({"foo": 1, "bar": 2}, "unrecognised response shape (keys: bar, foo); expected an OpenAI Responses object"),
    (recorded("openai_error_429"), "is an API error (tokens: Rate limit reached"),
    (recorded("anthropic_tool_use"), "holds no thinking and no text blocks (only: tool_use)"),
    (recorded("openai_chat_tool_calls"), "has no reasoning and no answer text"),
    ({"choices": [{"delta": {"content": "x"}}]}, "streamed chunk"),
    (42, "cannot read a reasoning chain from a int"),
    ("   ", "no answer text"),
    ("<think>  </think>", "no answer text"),
])
def test_unknown_or_empty_payloads_give_a_clear_error(payload, fragment):
    with pytest.raises(ReasoningChainError) as info:
        parse_reasoning_chain(payload)
    assert fragment in info.value.message


@pytest.mark.parametrize(("payload", "prefer", "fragment"), [
    (chat("2 + 3 = 5"), "reasoning", "has no reasoning to split"),
    (anthropic(thinking("2 + 3 = 5")), "answer", "has no answer text to split"),
    ("2 + 3 = 5", "everything", "prefer must be auto, reasoning or answer"),
])
def test_a_chosen_side_that_is_empty_is_an_error(payload, prefer, fragment):
    with pytest.raises(ReasoningChainError, match=fragment):
        parse_reasoning_chain(payload, prefer=prefer)


def test_request_from_reasoning_splits_the_payload_and_reads_its_answer():
    completion = {"object": "chat.completion", "choices": [{"index": 0, "message": {
        "role": "assistant", "content": "<think>2 + 2 = 4\n\nSo 4 + 1 = 5</think>The answer is 5."}}]}
    request_ = request_from_reasoning(ReasoningSubmission(reasoning=completion, domain="mathematics",
                                                          original_query="What is 2 + 2 + 1?", proof_level="quick"))
    assert [s.content for s in request_.reasoning_chain] == ["2 + 2 = 4", "So 4 + 1 = 5\nThe answer is 5."]
    assert (request_.claimed_answer, request_.proof_level.value, request_.original_query) == (
        "5", "quick", "What is 2 + 2 + 1?")
    given = request_from_reasoning(ReasoningSubmission(reasoning=completion, domain="mathematics", claimed_answer="6"))
    assert given.claimed_answer == "6"  # the caller's answer wins
    answer_only = request_from_reasoning(ReasoningSubmission(reasoning=completion, domain="mathematics",
                                                             source="answer"))
    assert [s.content for s in answer_only.reasoning_chain] == ["The answer is 5."]
    reasoning_only = request_from_reasoning(ReasoningSubmission(reasoning=completion, domain="mathematics",
                                                                source="reasoning"))
    assert [s.content for s in reasoning_only.reasoning_chain] == ["2 + 2 = 4", "So 4 + 1 = 5"]
    assert reasoning_only.claimed_answer == "5"  # still what the whole response states
    with pytest.raises(ReasoningChainError, match="no choices"):
        request_from_reasoning(ReasoningSubmission(reasoning={"choices": []}, domain="logic"))


def test_reasoning_from_bytes_tells_payloads_from_text():
    assert reasoning_from_bytes(b'  {"choices": []}') == {"choices": []}
    assert reasoning_from_bytes("Step 1: x ≥ 2".encode()) == "Step 1: x ≥ 2"
    with pytest.raises(InputError, match="line 1"):
        reasoning_from_bytes(b'{"choices": [}')
    with pytest.raises(InputError, match="UTF-8"):
        reasoning_from_bytes(b"\xff\xfe")


@pytest.mark.parametrize(("payload", "message"), [
    ({"object": "response", "output": [{"type": "reasoning", "summary": 5}]},
     "response.output[0].summary is a number, not an array"),
    ({"object": "response", "output": [{"type": "reasoning", "summary": [], "content": 7}]},
     "response.output[0].content is a number, not an array"),
    ({"object": "response", "output": [{"type": "reasoning", "summary": ["text"]}]},
     "response.output[0].summary[0] is a string, not an object"),
    ({"object": "response", "output": [{"type": "message", "content": 3}]},
     "response.output[0].content is a number, not an array"),
    ({"object": "response", "output": [{"type": "message", "content": [{"type": "output_text", "text": [1]}]}]},
     "response.output[0].content[0].text is an array, not a string"),
    ({"choices": [{"message": {"content": "x", "reasoning_content": ["a"]}}]},
     "choices[0].message.reasoning_content is an array, not a string"),
    ({"choices": [{"message": {"content": 5}}]}, "choices[0].message.content is a number"),
    ({"type": "message", "content": [{"type": "thinking", "thinking": {"a": 1}}]},
     "message.content[0].thinking is an object, not a string"),
    ({"type": "message", "content": [{"type": "text", "text": True}]},
     "message.content[0].text is a boolean, not a string"),
])
def test_a_field_of_the_wrong_type_is_refused_by_its_path(payload, message):
    # once a TypeError (a number iterated) or silently read as if the field were absent
    with pytest.raises(ReasoningChainError) as info:
        request_from_reasoning(ReasoningSubmission(reasoning=payload, domain="mathematics"))
    assert message in info.value.message




OTHER_KINDS = (None, True, 0, 2.5, "", "text", [], [1, "a"], {}, {"type": "text"})


@pytest.mark.parametrize("name", ["openai_responses_reasoning", "deepseek_reasoner", "openai_chat_json_mode",
                                  "openai_chat_tool_calls", "anthropic_thinking", "anthropic_tool_use"])
def test_any_field_of_a_recorded_payload_replaced_by_any_kind_is_read_or_refused(name):
    """The family: every field of a real response, replaced by a value of each JSON kind, is read into a request
    or refused with a ReasonForgeError: never another exception."""
    payload = recorded(name)
    for path in field_paths(payload)[1:]:
        for value in OTHER_KINDS:
            try:
                request_from_reasoning(ReasoningSubmission(reasoning=replaced(payload, path, value), domain="logic"))
            except ReasonForgeError:
                pass

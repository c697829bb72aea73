"""Code checked against examples a translator wrote from the texts alone, never shown the implementation.

The writer here answers with fixed examples (what a model might write); the code runs in the real harness.
"""

from reasonforge.pipeline.run import verify_chain
from reasonforge.translate import default_translator
from reasonforge.translate.examples import examples_messages, signatures
from reasonforge.types import (
    Assurance,
    Domain,
    ErrorKind,
    Overall,
    ProofLevel,
    ReasoningStep,
    Spec,
    StepStatus,
    VerifyRequest,
)

QUESTION = "Write most_common_key(counts): the key of the dict `counts` with the largest count."
# The forgery: the text says maximum, the code returns the minimum, and its own tests agree with it.
MINIMUM = '''Return the key with the maximum count.

```python
def most_common_key(counts):
    return min(counts, key=counts.get)

def test_most_common_key():
    assert most_common_key({"a": 3, "b": 1}) == "b"
    assert most_common_key({"x": 2, "y": 5}) == "x"
```'''
MAXIMUM = MINIMUM.replace("min(", "max(").replace('== "b"', '== "a"').replace('== "x"', '== "y"')
RIGHT = '>>> most_common_key({"a": 3, "b": 1})\n\'a\'\n>>> most_common_key({"x": 1})\n\'x\''


class Writer:
    """The rules' artifacts (the step's own code block); fixed examples written for each step."""

    def __init__(self, examples):
        self.spec = Spec(name="example-writer", version="1")
        self.examples = examples
        self.asked = 0

    def translate_chain(self, request, ancestors):
        return default_translator(request.domain, level=request.proof_level).translate_chain(request, ancestors)

    def write_examples(self, request):
        self.asked += 1
        return {step.step_id: self.examples for step in request.reasoning_chain}


def request(content):
    return VerifyRequest(reasoning_chain=[ReasoningStep(step_id=1, content=content)], domain=Domain.CODE,
                         original_query=QUESTION, proof_level=ProofLevel.QUICK)


def test_without_written_examples_the_texts_own_test_is_all_the_evidence():
    # the step's prose says maximum, its own test says minimum: the offline reader reads no claim in the prose,
    # so the rules alone check the code against the test the text writes (what written examples are for): the
    # author's own evidence, which never makes the chain VERIFIED
    verdict = verify_chain(request(MINIMUM))
    evidence = verdict.step_verdicts[0].evidence
    assert evidence.kind == "author_tests" and evidence.supplied_by == "author"
    assert verdict.overall is Overall.PARTIAL and verdict.assurance is Assurance.SELF_TESTED


def test_written_examples_catch_the_code_that_does_the_opposite_of_its_text():
    verdict = verify_chain(request(MINIMUM), translator=Writer(RIGHT))
    step = verdict.step_verdicts[0]
    assert step.status is StepStatus.UNSUPPORTED and step.error_kind is ErrorKind.DISAGREEMENT, step.error_message
    assert "never saw the implementation" in step.error_message and verdict.overall is not Overall.VERIFIED


def test_code_that_passes_the_written_examples_is_verified_on_them():
    writer = Writer(RIGHT)
    verdict = verify_chain(request(MAXIMUM), translator=writer)
    step = verdict.step_verdicts[0]
    assert writer.asked == 1
    assert verdict.overall is Overall.VERIFIED, step.error_message
    evidence = step.evidence
    assert evidence.kind == "examples" and evidence.formaliser == "example_writer"
    assert "1 written from them by a translator never shown the implementation" in evidence.note


def test_a_wrong_written_example_leaves_right_code_unsupported_never_failed():
    wrong = '>>> most_common_key({"a": 3, "b": 1})\n\'b\''
    verdict = verify_chain(request(MAXIMUM), translator=Writer(wrong))
    assert verdict.step_verdicts[0].status is StepStatus.UNSUPPORTED
    assert verdict.assurance is Assurance.UNPROVEN  # nothing refuted: the examples may be the wrong ones


def test_the_text_s_own_failing_example_still_fails_the_step():
    stated = MINIMUM.replace("Return the key with the maximum count.",
                             "Return the key with the maximum count.\n\n>>> most_common_key({'a': 3, 'b': 1})\n'a'")
    verdict = verify_chain(request(stated), translator=Writer(RIGHT))
    assert verdict.step_verdicts[0].status is StepStatus.FAILED


def test_the_writer_sees_the_task_and_the_bare_signature_never_the_authors_words():
    step = ('Returns the smallest element: `f([3, 1, 2])` is 1.\n```python\ndef f(xs: list[int]) -> int:\n'
            '    """Smallest element: f([3, 1, 2]) is 1."""\n    return min(xs)\n```')
    shown = signatures(step)
    assert shown == ["def f(xs: list[int]) -> int:\n    ..."]
    (message,) = examples_messages("Write f(xs), the largest element.", shown)
    assert "largest" in message.content and "mallest" not in message.content and "min(" not in message.content


def supplied(content, artifact):
    return VerifyRequest(reasoning_chain=[ReasoningStep(step_id=1, content=content)], domain=Domain.CODE,
                         original_query=QUESTION, proof_level=ProofLevel.QUICK,
                         translations=[{"step_id": 1, "language": "python", "formal_representation": artifact}])


def test_beside_supplied_artifacts_a_writer_adds_its_examples_and_translates_nothing():
    """A chain that brings its own artifact (its code and the author's tests): alone, the author's evidence; with a
    writer beside it, the code is checked against examples written from the texts, and the artifact is the one
    supplied."""
    code = MAXIMUM.split("```python\n", 1)[1].split("```", 1)[0]
    chain = supplied(MAXIMUM, code)
    alone = verify_chain(chain)
    assert alone.overall is Overall.PARTIAL and alone.assurance is Assurance.SELF_TESTED
    writer = Writer(RIGHT)
    verdict = verify_chain(chain, translator=writer)
    step = verdict.step_verdicts[0]
    assert writer.asked == 1 and step.formal_representation == code
    assert verdict.overall is Overall.VERIFIED, step.error_message
    assert step.evidence.kind == "examples" and step.evidence.supplied_by == "independent"


def test_beside_supplied_artifacts_a_wrong_written_example_refutes_nothing_and_a_right_one_exposes_a_forgery():
    code = MINIMUM.split("```python\n", 1)[1].split("```", 1)[0]
    right_code = MAXIMUM.split("```python\n", 1)[1].split("```", 1)[0]
    wrong = '>>> most_common_key({"a": 3, "b": 1})\n\'b\'\n>>> most_common_key({"x": 2, "y": 5})\n\'x\''
    disputed = verify_chain(supplied(MAXIMUM, right_code), translator=Writer(wrong))
    assert disputed.step_verdicts[0].status is StepStatus.UNSUPPORTED and disputed.assurance is Assurance.UNPROVEN
    forged = verify_chain(supplied(MAXIMUM.replace("max(", "min("), code), translator=Writer(RIGHT))
    assert forged.overall is not Overall.VERIFIED and forged.step_verdicts[0].status is not StepStatus.VERIFIED

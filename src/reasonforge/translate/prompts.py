"""Prompts for model-backed translation: one system prompt per artifact language, the step prompt, the repair prompt.

The rules are the plan's (a theorem per step with explicit hypotheses and no `sorry`/`Admitted`; Python
implementation + pytest + hypothesis with docstrings; SMT-LIB / FOL with premises and conclusion
separated), restated in the exact artifact formats our checkers read (DESIGN §3.1), because a rule the
checker does not share only produces repair rounds. Every prompt insists on faithfulness: the repair
loop feeds checker errors back, and a model under pressure to "make it pass" must not weaken the claim.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from reasonforge.translate.targets import FENCE_TAGS
from reasonforge.types import ArtifactLanguage

__all__ = [
    "TRANSLATION_SCHEMA",
    "PriorStep",
    "StepPrompt",
    "context_prompt",
    "repair_prompt",
    "step_prompt",
    "system_prompt",
]

TRANSLATION_SCHEMA: dict = {
    "type": "object",
    "properties": {
        "formal_representation": {"type": "string", "description": "The complete artifact text."},
        "dependencies": {"type": "array", "items": {"type": "integer"},
                         "description": "Ids of the earlier steps this step uses."},
        "confidence": {"type": "number", "minimum": 0, "maximum": 1,
                       "description": "How sure you are that the artifact says exactly what the step says."},
    },
    "required": ["formal_representation"],
}

_COMMON = """You are a formalization expert. You translate ONE step of a natural-language reasoning chain into a
formal artifact that a mechanical checker verifies. Rules that hold for every language:
- Faithfulness first: the artifact must claim exactly what the step claims, no more and no less. If the
  step is wrong, translate it as written so the checker can refute it; never weaken, strengthen or
  "fix" the claim to make it pass.
- Use only what the problem states and what earlier steps (shown with their artifacts) established.
  Reuse their names (predicates, constants, functions, theorems) exactly.
- Never put the conclusion, or anything equivalent to it, among the premises or hypotheses.
"""

_FORMAT_FENCE = """Reply format: the artifact in exactly one fenced block ```{tag} … ``` (no other code blocks), then
two lines:
DEPENDENCIES: <ids of the earlier steps this step uses, comma-separated, or none>
CONFIDENCE: <a number from 0 to 1: how sure you are the artifact says exactly what the step says>
"""

_FORMAT_BLOCK = """Reply format: the artifact in exactly one fenced block ```{tag} … ``` and nothing else.
"""

_FORMAT_JSON = """Reply format: one JSON object and nothing else:
{"formal_representation": "<the complete artifact>", "dependencies": [<ids of earlier steps used>],
 "confidence": <0..1>}
"""

_RULES: dict[ArtifactLanguage, str] = {
    ArtifactLanguage.FOL: """Target: first-order logic, one formula per line.
1. Lines 1..n are the premises: the problem's givens this step relies on, the conclusions of the earlier
   steps it uses, and anything the step itself assumes. One premise per line.
2. The last line starts with ⊢ and holds the step's conclusion. Nothing may follow it.
3. Syntax: ∀x, ∃x, ¬, ∧, ∨, ⊕ (exclusive or), →, ↔, = and ≠; parentheses group. Predicates in CamelCase
   with arguments, e.g. Mammal(x), Likes(x, y); constants in lower case, e.g. moby. ASCII also parses:
   forall x, exists x, ~, &, |, ->, <->.
4. "Either A or B" is exclusive (⊕) only when the text says "but not both" or the context makes it so.
Example (step: "Tom is a cat and all cats are mammals, so Tom is a mammal"):
∀x (Cat(x) → Mammal(x))
Cat(tom)
⊢ Mammal(tom)
Example (step: "Every square is a rectangle and every rectangle has four sides, so every square has four sides"):
∀x (Square(x) → Rectangle(x))
∀x (Rectangle(x) → FourSided(x))
⊢ ∀x (Square(x) → FourSided(x))
A general claim ("cats are mammals", "every square …") is a ∀ formula: never invent a constant for it.
""",
    ArtifactLanguage.SMTLIB: """Target: an SMT-LIB 2 script, proof by refutation.
1. Declare every sort, function and constant you use ((declare-sort Animal 0), (declare-fun Mammal (Animal) Bool),
   (declare-const moby Animal)). Keep sorts minimal.
2. Assert each premise with its own (assert …): the givens this step relies on, the conclusions of the
   earlier steps it uses, and what the step itself assumes.
3. The LAST assertion is (assert (not C)) where C is the step's conclusion. Nothing else asserts C.
4. Never assert false or a contradiction; (check-sat) at the end is optional. Comments start with ;.
""",
    ArtifactLanguage.PYTHON: """Target: one Python module checked by pytest and hypothesis in a sandbox.
1. The implementation the step describes, with type hints on every function and a docstring.
2. pytest tests: plain functions named test_… , each with a docstring saying what it verifies, each
   calling the implementation and asserting on its result. Cover edge cases (empty input, one element,
   large input, negative numbers where they make sense).
3. At least one hypothesis property test: from hypothesis import given, strategies as st; @given(...).
4. If the step claims a complexity such as O(n), add a comment line `# complexity: <function name> O(n)`
   (the checker measures it; do not write timing tests yourself).
5. No I/O, network, subprocesses, sys.exit or unseeded randomness; tests must be deterministic.
""",
    ArtifactLanguage.SYMPY: """Target: the arithmetic artifact format, one statement per line, checked exactly with SymPy.
Statements (each line starts with its keyword; # starts a comment):
  let x = 3          a value known before this step (a given, or an earlier step's binding)
  assume z > 0       an assumption (or `assume k is integer`; properties: integer natural positive negative
                     nonnegative nonpositive real rational even odd prime)
  fact x^2 + y^2 = z^2   a relation known before this step (a given, or an earlier step's claim)
  define n = 2*k     a name this step introduces
  claim z^2 = 9 + 16 what this step asserts (checked)
Expressions: numbers, single names, + - * / ^, sqrt(...), parentheses, 20% for percent. Relations: = < > <= >= != ~=.
The artifact is checked alone: copy in (as let/fact) every given and earlier result the step uses.
Every relation the step asserts becomes one claim line; a step that asserts nothing checkable has none.
""",
    ArtifactLanguage.COQ: """Target: one Coq file per step (Coq 8.16, standard library only).
1. The file already imports the Context (the problem's givens) and every earlier step it builds on; use
   their names directly. Do not redeclare any of them.
2. State the step as one or more `Theorem step<k>_… : <statement>.` (or Lemma) with every hypothesis
   explicit in the statement (∀ … , A -> B) or taken from the Context's axioms and earlier theorems by name.
3. Prove each statement completely and end with Qed. Prefer: lia, nia, ring, field, lra, reflexivity,
   assumption, exact, rewrite, unfold. Never Admitted, admit, Abort, or give_up.
4. No Axiom, Parameter, Variable, Hypothesis, Notation, Module or Load in a step (only the Context declares
   givens).
5. Start the file with the same `From Coq Require Import …` and `Open Scope …` lines the Context uses
   (e.g. `From Coq Require Import ZArith Lia.` and `Open Scope Z_scope.`): scopes are not inherited.
Example (step 3: "So z² = 9 + 16 = 25", Context declares x y z : Z and hxy : x^2 + y^2 = z^2):
From Coq Require Import ZArith Lia.
Open Scope Z_scope.
Theorem step3 : z^2 = 25.
Proof. rewrite <- hxy. unfold x, y. reflexivity. Qed.
""",
    ArtifactLanguage.LEAN4: """Target: one Lean 4 file per step (core Lean; no imports: the workspace provides them).
1. The file already sees the Context (the problem's givens) and every earlier step it builds on; use
   their names directly and do not redeclare them.
2. State the step as `theorem step_<k> (h1 : …) (h2 : …) : <conclusion> := by …` with every hypothesis
   explicit, or use the Context's axioms and earlier theorems by name.
3. Prove it completely. Prefer: omega, simp, decide, rfl, exact, rw, linarith (when available).
   Never sorry, admit, native_decide, axiom, or #-commands.
""",
}

_CONTEXT_RULES: dict[ArtifactLanguage, str] = {
    ArtifactLanguage.COQ: """Write the Context: the problem's givens as Coq declarations, standard library only.
- `Parameter v : Z.` for each unknown quantity (Q for rationals), `Definition a : Z := 3.` for each given
  value, `Axiom h_<name> : <fact>.` for each stated fact or relation. No theorems, no proofs.
- May start with `From Coq Require Import ZArith Lia.` and `Open Scope Z_scope.`.
- Declare only what the problem states; the steps will be checked against exactly these givens.
""",
    ArtifactLanguage.LEAN4: """Write the Context: the problem's givens as Lean 4 declarations (no imports).
- `axiom v : Int` for each unknown, `def a : Int := 3` for each given value, `axiom h_<name> : <fact>`
  for each stated fact. No theorems, no proofs. Declare only what the problem states.
""",
}


def system_prompt(language: ArtifactLanguage, *, json_mode: bool = False, context: bool = False,
                  metadata: bool = True) -> str:
    """The system prompt for writing a `language` artifact (or the chain's Context, for coq/lean4); without
    `metadata`, the reply is the fenced block alone (what a reply grammar allows)."""
    language = ArtifactLanguage(language)
    rules = _CONTEXT_RULES[language] if context else _RULES[language]
    fence = _FORMAT_FENCE if metadata else _FORMAT_BLOCK
    reply = _FORMAT_JSON if json_mode else fence.format(tag=FENCE_TAGS[language][0])
    return f"{_COMMON}\n{rules}\n{reply}"


@dataclass(frozen=True)
class PriorStep:
    """An earlier step as the model sees it: its text and the artifact it was translated to (may be empty)."""

    step_id: int
    content: str
    artifact: str = ""
    language: ArtifactLanguage | None = None
    compiled: bool = False


@dataclass(frozen=True)
class StepPrompt:
    """Everything the step prompt shows."""

    step_id: int
    content: str
    language: ArtifactLanguage
    original_query: str = ""
    claimed_conclusion: str | None = None
    dependencies: Sequence[int] = ()
    prior: Sequence[PriorStep] = field(default_factory=tuple)
    context_artifact: str = ""
    vocabulary: str = ""  # the names the checker reads the texts with (logic): an artifact must use them


def _block(language: ArtifactLanguage | None, text: str) -> str:
    tag = FENCE_TAGS[language][0] if language in FENCE_TAGS else ""
    return f"```{tag}\n{text.rstrip()}\n```"


def step_prompt(prompt: StepPrompt) -> str:
    """The user message asking for one step's artifact.

    What stays the same from step to step comes first and the step asked for comes last, in the order the steps
    are translated: step k+1's prompt repeats step k's up to step k's text, so a prompt cache reads only step k's
    artifact and what follows (`local_decode`)."""
    parts = [f"Problem:\n{prompt.original_query.strip() or '(no problem statement given)'}"]
    if prompt.context_artifact.strip():
        parts.append("Context (the givens, already declared; do not redeclare):\n"
                     + _block(prompt.language, prompt.context_artifact))
    if prompt.vocabulary:
        parts.append("Names to use — the checker reads the problem and the steps with exactly these, and an "
                     f"artifact in other names is not tied to the text:\n{prompt.vocabulary}")
    lines = [("The steps: each earlier one this step builds on with its artifact (reuse their names), then the "
              "step to translate.")]
    for prior in prompt.prior:
        lines.append(f"Step {prior.step_id}: {prior.content.strip()}")
        if prior.artifact.strip():
            state = "" if prior.compiled else " (this artifact did not pass the checker; do not rely on its names)"
            lines.append(f"Its artifact{state}:\n{_block(prior.language, prior.artifact)}")
        else:
            lines.append("(no artifact: it could not be translated)")
    lines.append(f"Step {prompt.step_id}: {prompt.content.strip()}")
    parts.append("\n".join(lines))
    claimed = prompt.claimed_conclusion.strip() if prompt.claimed_conclusion else ""
    deps = ", ".join(map(str, prompt.dependencies)) or "none"
    parts.append((f"Claimed conclusion of step {prompt.step_id}: {claimed}\n" if claimed else "")
                 + f"Step {prompt.step_id} directly depends on steps: {deps}.\n"
                 + f"Write the {prompt.language.value} artifact for step {prompt.step_id}.")
    return "\n\n".join(parts)


def context_prompt(original_query: str, steps: Sequence[tuple[int, str]], language: ArtifactLanguage) -> str:
    """The user message asking for the Context (step 0) of a coq/lean4 chain."""
    listing = "\n".join(f"Step {sid}: {text.strip()}" for sid, text in steps)
    return (f"Problem:\n{original_query.strip() or '(no problem statement given)'}\n\n"
            f"The reasoning that will be checked against these givens (for naming only; do not declare its "
            f"conclusions):\n{listing}\n\nWrite the {language.value} Context.")


def repair_prompt(message: str, attempt: int, max_attempts: int, *, reply_problem: bool = False) -> str:
    """The user message that sends a checker error (or an unusable reply) back to the model."""
    what = "Your reply could not be used" if reply_problem else "The checker rejected the artifact"
    return (f"{what} (attempt {attempt} of {max_attempts}):\n{message.strip()}\n\n"
            "Send a corrected artifact in the same reply format. Fix the syntax or the proof, but keep it a "
            "faithful translation of the step: do not change what the step claims.")

"""Alignment and provenance for sympy artifacts: the relations the step's text asserts, bindings and givens, the claimed answer.

For a sympy step the gate rebuilds, from the step's text, the question and the ancestors' texts alone, the
artifact the offline translator writes (`translate.math_quick.plan_step`: the *plan*, which already applies the
binding rules: a binding or case of a name that is given, asked for or determined is a claim to check), and
holds the checked artifact to it:

1. Givens: a relation of the text that binds a given of the question to another value ("Let y = 5", "y is 5"
   when the question fixed y = 2) fails the step, naming the given (ErrorKind.BINDING). A failure that rests
   only on values the text names without asserting them (`y = 5.`, `x = -1 could be a root`: `StepPlan.named`)
   is unsupported instead: the prose does not say the value holds. A value the step supposes ("If y = 5,
   then …", "Suppose y = 5") makes it an implication over a case the givens exclude (vacuously true): the step
   is unsupported (UNDECIDED), never refuted and never verified. Givens that contradict each other
   (`Question.conflicts`: "Let x = 3. Let x = 4.") prove nothing: a step that uses their names is unsupported
   (VACUOUS) whatever its check says.
2. Alignment: the artifact's `let`, `fact`, `define` and `claim` lines, in order, are the plan's: same keyword,
   same relation, sides equal up to exact evaluation. A side with a decimal or a percent, or under `~=`, must be
   written as the plan writes it (its written precision is part of what the checker checks), and so must a side
   with a power of an unknown (no expansion of unbounded size). A claim the text does not make, a relation it
   makes that the artifact leaves out, a `let`/`fact` left out, added or moved: unsupported (UNALIGNED); a text
   with no relation the reader can read: unsupported (UNREADABLE_CLAIM) whatever the artifact proves.
3. Provenance: each `assume` line is one of the plan's (a property or bound the question, an ancestor or the
   step states, or "a length or count is nonnegative"), else unsupported (UNGROUNDED_PREMISE). The plan's
   `let`/`fact` lines are the givens and the ancestors' claims, so by 2 nothing else is assumed; its `define`
   lines are bindings of fresh names only (not asked for, not given, not determined: see `plan_step`).
4. What the relations leave out: a verified step is unsupported when the text also asserts a relation the
   reader could not read exactly (`StepMath.unread`: UNREADABLE_CLAIM), or lists values of a name that is not
   fresh (`x = 2 or x = 7` after x² − 5x + 6 = 0: which one holds is not checked), or has a
   `claimed_conclusion` that is neither a relation nor a value its verified claims give.
5. A definition is not a derivation: a claim the checker verified only as a definition (it has a fresh name)
   does not verify the step when the name is what the question asks for ("the hypotenuse c = 9"), or when it
   states a lone name's value as a conclusion with nothing determining it ("Therefore c = 9"), or when the
   chain's last step derives nothing (every relation of it a definition).
6. The claimed answer (last step only; an empty `claimed_answer` claims nothing) is compared with the value of
   the unknown the question asks for, as the chain states it (`lang.math.answers.check_answer`, the rule every
   maths aligner applies, Coq's included): the answer is read strictly (a negation, a second value, a rate or a
   unit other than the question's is refused, never read as its first number), and compared with the last
   value the chain gives the asked name (the answer's own name first), else a GSM8K answer line's (`#### 72`),
   else the last step's last value, else the latest ancestor's; a last relation that only re-derives a known
   value (a check line) leaves the final value ambiguous. A mismatch fails the last step (ANSWER_MISMATCH, both
   values in the message; a checker error stays an error, an earlier failure keeps its message), and so does an
   answer that is not the value the question itself determines ("What is 2 + 3?", the hypotenuse of the
   triangle it gives). An answer that cannot be read or compared, an ambiguous final value, or a value no
   verified relation derives leaves a verified last step unsupported (UNREADABLE_CLAIM): a VERIFIED chain must
   not carry an answer nobody checked. Sets, intervals and radicals the reader cannot compare go to `math-verify`
   once the reader has read the answer as one value.
7. Evidence: aligned_claim = the step's relations `; `-joined (an answer line: its claim); formaliser
   OFFLINE_READER when the artifact's lines are the plan's as written, ARTIFACT when they are equivalent
   rewritings. The kind says what the check covers: CLAIM when the relations are all the text asserts (what is
   left once they are taken out is connectives and citations: "So", "Therefore", "Let", "By the Pythagorean
   theorem", `lang.math.prose`; never an operator word such as "square" or "take away", nor a word of any other
   script) and the question is not a word problem; RELATIONS when the prose asserts more ("she sells 16 - 3 - 4 =
   9 eggs" also says what the 9 eggs are): only the arithmetic inside it was checked, and the note quotes the
   rest; RELATIONS too for every step of a word problem (`lang.math.problem`: the question states quantities of
   something and does not determine its answer): `16 + 3 + 4 = 23` is true arithmetic whether or not its numbers
   are the eggs the question counts, and no rule reads what a number counts, so the rules alone never prove a
   word problem's step (only independent formalisations of the question, `pipeline.corroboration`, lift it to
   CORROBORATED). CONDITIONAL (with `Evidence.assumptions`) when the claim was proven from premises the step
   states that are neither given nor derived ("Assume x > 0. Then x = 2."; not the antecedent of an implication
   it asserts, "If K² = 1, then …", nor a property of a name it introduces, "n = 2k where k is an integer"); such
   a premise the givens contradict fails the step (CONTRADICTION), unless it is supposed for a reductio ("for
   contradiction"). A RELATIONS or CONDITIONAL step is verified but does not make its chain VERIFIED
   (`chain.cascade.overall_of`). The note also lists the definitions (fresh names) and the answer comparison.
8. Problem grounding (a question that states quantities of a story and no relation beyond bindings of names to
   numbers, whatever it names its unknown; `lang.math.grounding`): every operand of the step's relations must
   be grounded: a quantity the question states (in a form solutions write it: 20 % as 0.2, its complement 80 %,
   ¾ as × 3 ÷ 4), a grounded result of the derivation so far (a value computed only from grounded operands,
   never a number an ancestor merely wrote), a name bound or solved from grounded operands, or a named constant
   of the units the question speaks of (60 for minutes and hours, 7 for days and weeks: every unit of it), else
   the verified step is unsupported (UNGROUNDED_OPERAND, naming it and listing what the question states):
   "16 - 3 - 5 = 8" holds, but the 5 comes from nowhere, and neither "4 + 1 = 5" nor "Let m = 5" gives it a
   source (`lang.math.quantities.Grounds`).
9. Refutation reads all of the prose: a false relation fails the step only when every word of its sentence is
   read (connectives, calculation verbs, quantity words, what numbers count, the question's own words) or when
   it is a calculator annotation; otherwise ("Students often write 2 + 2 = 5") the step may not assert it:
   unsupported (UNREADABLE_CLAIM). The reader leaves a relation unread where its sentence does not assert it (a
   question, a hypothesis, a report, another script: `lang.math.text`).

Only a verified outcome is promoted by nothing: a failed outcome of an aligned artifact stays failed (the text
is wrong, rule 9 aside), a failed or verified outcome of an unaligned one is unsupported (it is about something
else).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import sympy

from reasonforge.errors import ArtifactSyntaxError
from reasonforge.lang.math.answers import (
    AnswerCheck,
    Refusal,
    Stated,
    StepText,
    check_answer,
    final_value,
    read_answer,
    same_value,
    value_of,
)
from reasonforge.lang.math.expr import (
    Binary,
    Call,
    ExpressionError,
    Name,
    Node,
    Num,
    Postfix,
    Unary,
    evaluate,
    names_in,
    to_text,
)
from reasonforge.lang.math.grounding import step_grounding
from reasonforge.lang.math.problem import WORD_PROBLEM_NOTE, read_problem, word_problem
from reasonforge.lang.math.prose import CITATION, FILLER, WORDS, prose_beyond_relations, stray_number
from reasonforge.lang.math.reading import Question, false_under, holds_property, read_question
from reasonforge.lang.math.step import Assumption, Relation, StepMath
from reasonforge.lang.math.text import extract, extract_value
from reasonforge.registry import checkers
from reasonforge.types import (
    ArtifactLanguage,
    CheckLimits,
    CheckOutcome,
    ErrorKind,
    Evidence,
    EvidenceKind,
    Formaliser,
    ProofLevel,
    ReasoningStep,
    StepContext,
    StepStatus,
    StepTranslation,
)
from reasonforge.verify.math.plan import StepPlan, case_openers, case_openings, closed_value, plan_step, read_step
from reasonforge.verify.math.relations import ArithmeticChecker, Line, parse_artifact

_PREMISE_KINDS = ("let", "fact")
_OWN_KINDS = ("define", "claim")
_FLIP = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "=": "=", "!=": "!=", "~=": "~="}
_MAX_SIDE_CHARS = 400  # beyond this a side must be written as the plan writes it


# The plan is the reader's own translation, and an artifact aligns only when its statements are the plan's
# (`_align`): another writer's artifact restates the rules' reading at best.
@checkers.aligner(ArtifactLanguage.SYMPY, restating=True)
def align(context: StepContext, translation: StepTranslation, outcome: CheckOutcome, limits: CheckLimits) -> CheckOutcome:
    """The outcome once tied to the step (or downgraded); evidence is recorded on a verified outcome."""
    if outcome.status in (StepStatus.ERROR, StepStatus.INVALIDATED):
        return outcome
    step = ReasoningStep(step_id=context.step_id, content=context.content,
                         claimed_conclusion=context.claimed_conclusion)
    ancestors = [(a, read_step(a)) for a in context.ancestors]
    question = read_question(context.original_query)
    plan = plan_step(step, question, ancestors)
    if vacuous := sorted(question.conflicting_names & set().union(*(r.names for r in plan.reading.relations))):
        a, b = question.conflicts[0]
        return outcome.downgraded(StepStatus.UNSUPPORTED, ErrorKind.VACUOUS,
                         f"the question's givens contradict each other ({a.text}; {b.text}): nothing about "
                         f"{', '.join(vacuous)} follows from them")
    if asserted := [r for r in plan.rebound if r.asserted]:
        first = asserted[0]
        return outcome.downgraded(StepStatus.FAILED, ErrorKind.BINDING,
                         f"{first.given.bound_name} is a given of the question ({first.given.text}); this step "
                         f"rebinds it: {first.relation.text}")
    if supposed := [r for r in plan.rebound if r.hypothesis]:
        first = supposed[0]
        return outcome.downgraded(StepStatus.UNSUPPORTED, ErrorKind.UNDECIDED,
                         f"{first.given.bound_name} is a given of the question ({first.given.text}); this step "
                         f"supposes another value ({first.relation.text}), and what holds under that supposition "
                         "is not checked")
    try:
        lines = parse_artifact(translation.formal_representation)
    except ArtifactSyntaxError:
        return outcome  # the checker reported it (an error); nothing here was proven
    aligned = _align(plan, lines, translation.formal_representation)
    alignment = aligned if isinstance(aligned, _Aligned) else None
    if isinstance(aligned, CheckOutcome):
        outcome = _refuse(outcome, aligned)
    elif outcome.status is StepStatus.FAILED and (
            why := _renamed_failure(plan, aligned, outcome) or _reused_failure(plan, aligned, outcome, context.content)
            or _ambiguous_letter(plan, aligned, outcome, context.content, ancestors)
            or _reductio(plan, aligned, outcome, context.content) or _case_condition(plan, aligned, outcome, context.content)
            or _only_if_nonnegative(plan, outcome, limits) or _sibling_case(plan, outcome, context, limits)
            or _supposed_system(aligned, outcome, context.content) or _unread_binding(plan, aligned, outcome)
            or _lettered_in_words(plan, aligned, outcome, context.content)):
        outcome = outcome.downgraded(StepStatus.UNSUPPORTED, ErrorKind.UNDECIDED, why)
    elif outcome.status is StepStatus.FAILED and plan.named:
        outcome = _named_failure(plan, aligned, outcome)
    elif outcome.status is StepStatus.UNSUPPORTED and plan.as_bound:
        outcome = _under_bindings(plan, outcome, limits)
    elif outcome.status in (StepStatus.VERIFIED, StepStatus.UNSUPPORTED) and plan.alternatives and (
            wrong_root := _listed_roots(plan, context.content)):
        outcome = outcome.downgraded(StepStatus.FAILED, ErrorKind.ARITHMETIC, wrong_root)
    elif outcome.status is StepStatus.VERIFIED and plan.alternatives:
        names = ", ".join(plan.alternatives)
        outcome = outcome.downgraded(StepStatus.UNSUPPORTED, ErrorKind.UNDECIDED,
                            f"the step lists values of {names}, which the question or earlier steps determine; "
                            f"which of them {names} takes is not checked")
    elif outcome.status is StepStatus.VERIFIED and plan.reading.unread:
        outcome = outcome.downgraded(StepStatus.UNSUPPORTED, ErrorKind.UNREADABLE_CLAIM,
                            f"the step also asserts what the reader could not read exactly: "
                            f"{plan.reading.unread[0].message}; its other relations are not all it says")
    elif outcome.status is StepStatus.VERIFIED and alignment is not None:
        outcome = _conclusion(context, plan, alignment, _definitions(context, plan, alignment, outcome))
    if outcome.status is StepStatus.VERIFIED and (stray := stray_number(context.content, plan.reading, _known(context))):
        outcome = outcome.downgraded(StepStatus.UNSUPPORTED, ErrorKind.UNREADABLE_CLAIM, stray)
    if outcome.status is StepStatus.VERIFIED and (vacuous_case := _vacuous_case(plan, limits)):
        outcome = outcome.downgraded(StepStatus.UNSUPPORTED, ErrorKind.VACUOUS, vacuous_case)
    elif outcome.status is StepStatus.FAILED and (vacuous_bound := _vacuous_case(plan, limits, bounds_only=True)):
        # `assume k <= 6` beside a known k = 7: the checker evaluated the claims at k = 7, not in the case
        outcome = outcome.downgraded(StepStatus.UNSUPPORTED, ErrorKind.VACUOUS,
                                     f"{outcome.message}; but {vacuous_bound}, and its claims were checked at the "
                                     "known values, not in that case")
    if outcome.status is StepStatus.FAILED and alignment is not None:
        outcome = _refutable(context, plan, alignment, outcome)
    assumed = _assumed(context, question, plan, ancestors)
    if outcome.status is not StepStatus.ERROR and (renamed := _new_meaning(context, question, assumed)):
        return outcome.downgraded(StepStatus.UNSUPPORTED, ErrorKind.UNDECIDED, renamed)
    if outcome.status is not StepStatus.ERROR and (contradicted := _contradicted(context, question, assumed)):
        return outcome.downgraded(StepStatus.FAILED, ErrorKind.CONTRADICTION, contradicted)
    if outcome.status is StepStatus.VERIFIED:
        outcome = _grounded(context, plan, ancestors, outcome)
    if context.final and context.claimed_answer.strip():
        outcome = _answer(context, plan, ancestors, alignment, outcome)
    if outcome.status is not StepStatus.VERIFIED or alignment is None:
        return outcome
    relations = "; ".join(r.text for r in plan.reading.relations) or _answer_text(plan)
    results = _results(outcome)
    defined = [line.relation for line in alignment.own_lines
               if line.kind == "define" or results.get(line.number, {}).get("how") == "definition"]
    note = f"definitions (fresh names, not derived): {'; '.join(defined)}" if defined else None
    if answered := outcome.details.get("answer"):
        note = "; ".join(x for x in (note, f"claimed answer {answered}") if x)
    prose = prose_beyond_relations(context.content, plan.reading.relations)
    if prose:
        unchecked = f"only the arithmetic was checked; the step also says \"{prose}\", which no relation states"
        note = "; ".join(x for x in (unchecked, note) if x)
    story = word_problem(context.original_query)
    if story:
        note = "; ".join(x for x in (WORD_PROBLEM_NOTE, note) if x)
    assumptions = [a.text for a in assumed]
    if assumptions:
        note = "; ".join(x for x in (note, f"proven from what the step assumes: {'; '.join(assumptions)}") if x)
    kind = EvidenceKind.RELATIONS if prose or story else EvidenceKind.CONDITIONAL if assumptions \
        else EvidenceKind.CLAIM
    return outcome.with_evidence(Evidence(kind=kind, aligned_claim=relations, formaliser=alignment.formaliser,
                                           assumptions=assumptions, note=note))


# ---- what the prose around a false relation says --------------------------------------------------------------
# Words that may govern a relation without changing whether it is asserted: the connectives and verbs of
# calculation (`lang.math.prose.FILLER`), pronouns, articles, prepositions, the nouns and verbs of quantities and
# money, and the names of mathematical objects and their measures. Never a word that can put a relation in doubt
# (a verb of saying or trying, "roughly", "choose", "works"), nor a LaTeX command the reader left in the text.
_GOVERNING = FILLER | frozenset("""
he she they them him her his hers their theirs my mine me your yours its there what how many much more less
fewer each every all some any no per another other others total sum difference product quotient number numbers
amount amounts cost costs price prices pay pays paid paying spend spends spent spending buy buys bought buying
sell sells sold selling earn earns earned make makes made making need needs needed left remaining remain remains
bring brings brought bringing
altogether together overall in all out up down off over under into onto after before during within about around
had having do does did done getting taking taken took take takes use uses used using so far just only still
already now today daily weekly monthly yearly hour hours minute minutes day days week weeks month months year
years dollar dollars cent cents percent unit units time times once twice half thing things item items piece pieces
than like term terms right know knew known come comes came produce produces combine combining go goes went
who whose whom whole full rest same both either one two three four five six seven eight nine ten eleven twelve
twenty thirty forty fifty hundred thousand million dozen third quarter fourth fifth
evaluate evaluating evaluated expand expanding expanded factoring factored factorise factorize factorising
factorizing rewrite rewriting rewritten rewrote apply applying applied plug back hand system new sides
see seen saw eat ate eaten give gave given go gone went run ran grow grew grown
arrangement arrangements possibility possibilities outcome outcomes way ways choice choices
coordinate coordinates point points line lines vertex vertices triangle triangles rectangle rectangles circle
circles polygon pentagon hexagon heptagon octagon nonagon decagon lcm gcd
fraction fractions numerator numerators denominator denominators integer integers digit digits divisor divisors
multiple multiples common remainder exponent exponents coefficient coefficients polynomial polynomials cubic
quadratic equation equations expression expressions cosine sine tangent symmetric angle angles
degree degrees radius diameter area perimeter volume height width length ratio ratios average mean median
smallest largest greatest least earnings individual individuals person people
quad qquad rightarrow longrightarrow implies rationalize rationalizing rationalized rationalise rationalising rationalised
frac dfrac tfrac sqrt cdot times div pi circ sin cos tan cot log ln left right boxed
start starting begin beginning instead specific reading reverse order inequality inequalities formula identity
permutation distribution restriction rotate rotated rotation top bottom clock power squares
fact however further break breaking binary decimal representation tell tells excluding including maximum minimum
travel traveled travelled traveling travelling move moved
""".split())  # noqa: SIM905 - a word list reads better as text
# the words right after a number name what it counts ("4 + 4 + 6 = 18 hot dogs", "$.125 an ounce")
# a noun right before "of" and the relation ("the LCM of 4 = …", "the area of 5 = 25") may apply to its left side:
# only these leave the left side the value the text states
_APPLIED_NOUN = re.compile(r"\b([A-Za-z]+)\s+of\s+(?:the\s+)?$")
_OF_SAFE = {"value", "values", "total", "sum", "both", "each", "all", "none", "one", "some", "any", "rest", "out",
            "instead", "because", "top", "front", "terms", "term"}
_DELIMITERS = re.compile(r"\\[()\[\]]|\\?\$")
_COUNTED = re.compile(r"\d(?:[\d,.]*\d)?%?\s*((?:[A-Za-z]+(?:['’][A-Za-z]+)?\s*){1,2})")
_MAX_LOCATED = 80  # how much of a refuted relation's text the message quotes
# (the full stop of "i.e.", "e.g.", "etc." or "vs." ends no sentence)
_SENTENCE_END = re.compile(r"[;?!\n]|(?<!\bi\.e)(?<!\be\.g)(?<!\betc)(?<!\bvs)\.(?=\s|$)")


def _refutable(context: StepContext, plan: StepPlan, alignment: _Aligned, outcome: CheckOutcome) -> CheckOutcome:
    """A false relation fails the step only when the reader read all of the prose that governs it (its sentence):
    connectives, calculation verbs, quantity words and the question's own words. A word it does not know ("Some
    students write 2 + 2 = 5", a word of another language) may say the relation is not asserted: unsupported,
    never refuted on that reading. A calculator annotation is asserted by the calculator, whatever the prose."""
    failed = _failed_relations(plan, alignment, outcome)
    if not failed:
        return outcome
    own = plan.reading.relations
    known = _GOVERNING | {_stem(w) for w in WORDS.findall(_folded(context.original_query.lower()))} | _GOVERNING_STEMS
    unknown: list[tuple[Relation, list[str], str | None]] = []  # (relation, its unknown words, another reading)
    for rel in failed:
        if rel.origin == "annotation":
            return _located(outcome, failed[0])  # a calculator's record that is false: refuted whatever the prose says
        if (reading := _other_reading(context.original_query, context.content, rel)) is not None:
            unknown.append((rel, [], reading))
            continue
        words = [w for w in _governing_words(context.content, rel, own)
                 if _stem(w) not in known and not _point_name(w, context.content, context.original_query)]
        if (applied := _APPLIED_NOUN.search(_DELIMITERS.sub(" ", context.content[max(0, rel.span[0] - 60):rel.span[0]]))) \
                and applied.group(1).lower() not in _OF_SAFE:
            words.append(applied.group(1))  # "the arrangements of 5 = 120": the noun applies to the left side
        if not words:
            return _located(_about(outcome, plan, alignment, rel), rel)  # a false relation the reader read whole
        unknown.append((rel, words, None))
    rel, words, reading = unknown[0]
    if reading is not None:
        return outcome.downgraded(StepStatus.UNSUPPORTED, ErrorKind.AMBIGUOUS,
                                  f"{outcome.message}; but {reading}, so the step may not assert {rel.text}")
    return outcome.downgraded(StepStatus.UNSUPPORTED, ErrorKind.UNREADABLE_CLAIM,
                     f"{outcome.message}; but the prose around it (\"{' '.join(words[:6])}\") is not read, so the "
                     f"step may not assert {rel.text}")


# ---- readings under which a false relation is true ----------------------------------------------------------
_BASE_WORDS = {"binary": 2, "ternary": 3, "octal": 8, "hexadecimal": 16, "hex": 16, "two": 2, "three": 3, "four": 4,
               "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "eleven": 11, "twelve": 12, "sixteen": 16}
_BASE_NAMED = re.compile(r"\b(binary|ternary|octal|hexadecimal|hex)\b|\bbase[- ]?\{?(\d{1,2})\b|_\{?\(?(\d{1,2})\)?\}?(?!\d)|"
                         r"\bbase[- ](two|three|four|five|six|seven|eight|nine|eleven|twelve|sixteen)\b", re.IGNORECASE)
_PLAIN_INTEGER = re.compile(r"(?<!_\{)(?<![\d.,_])(\d{2,})(?![\d.,]|\s*_)")  # (not a base: `_{10}`)
_TIME_OF_DAY = re.compile(r"\b(?:clock|o'clock|a\.?m\b|p\.?m\b|noon|midnight|hour\s+hand)|\b\d{1,2}:\d\d\b", re.IGNORECASE)
_GLUED_RANGE = re.compile(r"(?<![\d.])(\d+)[-–](\d+)(?![\d.])")


def _sentence(text: str, start: int, end: int) -> tuple[int, int]:
    """Where the sentence holding text[start:end] starts and ends."""
    lo = max((m.end() for m in _SENTENCE_END.finditer(text, 0, start)), default=0)
    stop = _SENTENCE_END.search(text, end)
    return lo, stop.start() if stop else len(text)


def _other_reading(question: str, text: str, rel: Relation) -> str | None:
    """Why a relation false as decimal arithmetic may be true as the text means it, else None: numerals in another
    base the question or the sentence speaks of (`13 = 1101` "in binary"), two different numerals equated (a
    reversal, a label: `123 = 321`), a time of day on a clock (`11 + 3 = 2`), a glued range (`1-50`, `9-5 = 8
    hours`)."""
    sentence = text[slice(*_sentence(text, *rel.span))]
    # (a time of day may stand in the question: "lands 4 hours later, at 10 + 4 = 2")
    clock = _TIME_OF_DAY.search(f"{question}\n{sentence}") is not None
    bases = {_BASE_WORDS[(m.group(1) or m.group(4)).lower()] if m.group(1) or m.group(4) else int(m.group(2) or m.group(3))
             for source in (question, sentence) for m in _BASE_NAMED.finditer(source)} - {0, 1, 10}
    numerals = _PLAIN_INTEGER.findall(rel.source)
    for base in sorted(bases):
        if any(all(int(d) < base for d in numeral) for numeral in numerals):
            return f"the text speaks of base {base}, in which its numerals may be written"
    if isinstance(rel.lhs_tree, Num) and isinstance(rel.rhs_tree, Num) and rel.lhs_tree.text != rel.rhs_tree.text \
            and "_" not in rel.source:  # (`441_{10} = 1202_7` states its bases: a conversion to check)
        return "it equates two different numerals, which no arithmetic relates (a reversal, a label, another base)"
    try:
        gap = evaluate(rel.lhs_tree) - evaluate(rel.rhs_tree)
    except (ExpressionError, ValueError, TypeError):
        return None
    if clock and gap.is_Integer and int(gap) % 12 == 0 and not _DEGREES.search(rel.source):
        return "on a clock the hours wrap around: it holds modulo 12"
    for m in _GLUED_RANGE.finditer(rel.source):
        first, last = int(m.group(1)), int(m.group(2))
        if first < last or clock or re.search(r"\bhours?\b", sentence, re.IGNORECASE):
            return f"{m.group()} may be a range (from {first} to {last}), not a difference"
    return None


_DEGREES = re.compile(r"\\circ|°|degree", re.IGNORECASE)


def _point_name(word: str, text: str, question: str) -> bool:
    """`FEG` of "∠FEG", `AB` of "segment AB": two to four capitals, each a point the step or the question names on
    its own (never "NOT", unless N, O and T are each points there)."""
    return 2 <= len(word) <= 4 and word.isascii() and word.isupper() and all(
        re.search(rf"(?<![A-Za-z\\]){letter}(?![A-Za-z])", f"{text}\n{question}") for letter in word)


def _about(outcome: CheckOutcome, plan: StepPlan, alignment: _Aligned, rel: Relation) -> CheckOutcome:
    """The refutation told by `rel`'s own result: the step is refuted on the relation the reader read whole, which
    need not be the first false one (whose prose may be unread)."""
    results = _results(outcome)
    for own, line in zip(plan.reading.relations, alignment.own_lines, strict=False):
        if own is rel and (message := results.get(line.number, {}).get("message")):
            return outcome if (outcome.message or "").startswith(message) else outcome.model_copy(update={"message": message})
    return outcome


def _located(outcome: CheckOutcome, rel: Relation) -> CheckOutcome:
    """The refutation with where the first refuted relation stands in the step's text (what the CLI, the page and
    the PDF show)."""
    source = " ".join(rel.source.split())
    quoted = source if len(source) <= _MAX_LOCATED else source[:_MAX_LOCATED - 1] + "…"
    where = f"at \"{quoted}\", characters {rel.span[0] + 1}–{rel.span[1]} of the step"
    return outcome.model_copy(update={"message": f"{outcome.message} ({where})"})


def _stem(word: str) -> str:
    """A crude stem (-ies, -ing, -ed, -es, -s taken off), so "sells" in the question reads "selling" in a step."""
    word = word.lower().replace("’", "'").removesuffix("'s")
    for suffix, keep in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: len(word) - len(suffix)] + keep
    return word


# a plural the crude stem cuts differently ("cosines" → cosin, "cosine" → cosine) is known with its singular
_GOVERNING_STEMS = frozenset(_stem(w + s) for w in _GOVERNING for s in ("", "s"))


def _folded(text: str) -> str:
    """Latin letters without their accents ("Pokémon" is one word, the question's "Pokemon"); other scripts as
    they are."""
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def _governing_words(text: str, rel: Relation, relations: Sequence[Relation]) -> list[str]:
    """The words of the relation's sentence outside every relation's span and citation, in any script."""
    lo, hi = _sentence(text, *rel.span)
    chars = list(text[lo:hi])
    for other in relations:
        for k in range(max(other.span[0], lo), min(other.span[1], hi)):
            chars[k - lo] = " "
    prose = _folded(CITATION.sub(" ", "".join(chars)))
    names = {n for r in relations for n in r.names}
    counted = {w.lower() for m in _COUNTED.finditer(text, lo, hi) for w in m.group(1).split()}
    return [w for w in WORDS.findall(prose) if w not in names and w.lower() not in counted]


# ---- assumptions ----------------------------------------------------------------------------------------------
_IMPLICATION = re.compile(r"\b(?:if|when|whenever)\b[^.;:]*$", re.IGNORECASE)


def _assumed(context: StepContext, question: Question, plan: StepPlan,
             ancestors: Sequence[tuple[ReasoningStep, StepMath]]) -> list[Assumption]:
    """The premises the step states that are neither given nor derived (issue rule 8): its own assumptions
    ("assume x > 0", "suppose n is even"), less those the question gives, an ancestor claims, that only qualify
    names this step introduces ("n = 2k where k is an integer"), and the antecedents of an implication it
    asserts ("if K² = 1, then …": the step claims the implication, not K² = 1)."""
    given = {a.text for a in question.givens.assumptions} | {r.text for r in question.givens.relations}
    derived = {r.text for _, math in ancestors for r in math.claims}
    known = set(question.names) | {n for _, math in ancestors for r in math.relations for n in r.names}
    known |= {a.name for _, math in ancestors for a in math.assumptions if a.name}
    out = []
    for assumption in plan.reading.assumptions:
        names = assumption.relation.names if assumption.relation is not None else frozenset({assumption.name or ""})
        if assumption.text in given or assumption.text in derived or not names & known:
            continue
        start = assumption.span[0]
        lo, _ = _sentence(context.content, start, start)
        if _IMPLICATION.search(context.content, lo, start):
            continue
        out.append(assumption)
    return out


# "Suppose, for contradiction, that x > 5": a premise assumed in order to refute it is no claim that it holds
_REDUCTIO = re.compile(r"\b(?:contradiction|contrary|absurd|absurdity|sake|hypothetically|otherwise)\b", re.IGNORECASE)


# "for k ∈ ℤ", "where k is an integer", "for some integer k": a binder that gives a letter a meaning of its own
_BINDER_BEFORE = re.compile(r"\b(?:for|where|with|some|all|any|every|each)\b[^.;:]{0,40}$", re.IGNORECASE)


def _new_meaning(context: StepContext, question: Question, assumed: Sequence[Assumption]) -> str | None:
    """Why the step's relations cannot be read: a binder gives a letter the question fixes a new meaning ("2x =
    π/3 + 2kπ for k ∈ ℤ" when the question set k = −0.7), so which k each relation speaks of is unclear; else
    None."""
    values = question.given_values
    for assumption in assumed:
        if assumption.relation is not None or assumption.name not in values:
            continue
        before = re.sub(r"\\[A-Za-z]+|[\\{}$()\[\]]", " ", context.content[max(0, assumption.span[0] - 60):
                                                                       assumption.span[0]])
        if _BINDER_BEFORE.search(before):
            return (f"the step gives {assumption.name} a new meaning ({assumption.text}) while the question fixes "
                    f"{assumption.name} = {values[assumption.name]}: which {assumption.name} its relations speak of is "
                    "not read")
    return None


def _contradicted(context: StepContext, question: Question, assumed: Sequence[Assumption]) -> str | None:
    """Why a premise the step assumes contradicts the question's givens (their values make it false), else None.
    A premise supposed for a reductio ("for contradiction", "to the contrary") is not refuted."""
    values = question.given_values
    for assumption in assumed:
        start = assumption.span[0]
        if _REDUCTIO.search(context.content, *_sentence(context.content, start, start)):
            continue
        if assumption.relation is not None and assumption.relation.names <= values.keys() \
                and false_under(assumption.relation, values):
            return f"the step assumes {assumption.text}, which the question's givens contradict"
        if assumption.name in values and not holds_property(values[assumption.name], assumption.properties):
            return f"the step assumes {assumption.text}, which the question's givens contradict"
    return None


# ---- problem grounding ----------------------------------------------------------------------------------------
def _grounded(context: StepContext, plan: StepPlan, ancestors: Sequence[tuple[ReasoningStep, StepMath]],
              outcome: CheckOutcome) -> CheckOutcome:
    """A word problem's verified step stays verified only if every operand of its relations is grounded (8. in
    the module docstring; the rule: `lang.math.quantities.Grounds`): by a quantity the question states, a
    grounded result of the derivation so far (the question's bindings, the ancestors' relations, the step's
    earlier ones), or a named constant of the units the question speaks of. Nothing the chain writes grounds
    anything by being written (an ancestor's prose number, a binding's invented value)."""
    grounding = step_grounding(context.original_query, [math for _, math in ancestors], plan.reading)
    if grounding is None or not grounding.missing:
        return outcome
    return outcome.downgraded(StepStatus.UNSUPPORTED, ErrorKind.UNGROUNDED_OPERAND, grounding.message(),
                              ungrounded_operands=[m.operand for m in grounding.missing])


def is_word_problem(query: str) -> bool:
    """Whether `query` is a word problem (`lang.math.problem`): its steps are verified on their arithmetic only
    (evidence RELATIONS), unless independent formalisations of it corroborate them."""
    return word_problem(query)


def step_results(context: StepContext) -> list[Node]:
    """The closed values the step's claims give, in order (`16 - 3 - 4 = 9` gives 9); none for a step that
    claims no value."""
    plan = _plan(context)
    return [node for rel in plan.reading.claims if (node := value_of(rel, None)) is not None]


def step_claims(context: StepContext) -> list[Relation]:
    """The relations the step claims (what `step_results` takes its values from), as read in context."""
    return list(_plan(context).reading.claims)


def chain_answer(context: StepContext) -> Node | None:
    """The answer of a chain, from its last step's context: the claimed answer as one value, else the chain's
    final value (rule 6) when it is not ambiguous; None when neither can be read."""
    if context.claimed_answer.strip():
        claimed = read_answer(context.claimed_answer)
        if isinstance(claimed, Refusal) or len(claimed.parts) != 1:
            return None
        return claimed.parts[0].value
    ancestors = [StepText(a.step_id, a.content, read_step(a)) for a in context.ancestors]
    last = StepText(context.step_id, context.content, _plan(context).reading)
    final = final_value(read_problem(context.original_query), last, ancestors, None)
    return final.stated.value if final is not None and not final.rederived else None


def answer_check(context: StepContext, answer: str) -> AnswerCheck:
    """`answer` against the chain's final value, from the last step's context, read and compared as rule 6 reads
    and compares a claimed answer (a reference answer the caller holds is compared this way too)."""
    ancestors = [StepText(a.step_id, a.content, read_step(a)) for a in context.ancestors]
    last = StepText(context.step_id, context.content, _plan(context).reading)
    return check_answer(answer, read_problem(context.original_query), last, ancestors)


def _plan(context: StepContext) -> StepPlan:
    step = ReasoningStep(step_id=context.step_id, content=context.content,
                         claimed_conclusion=context.claimed_conclusion)
    return plan_step(step, read_question(context.original_query), [(a, read_step(a)) for a in context.ancestors])


# ---- alignment ---------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Aligned:
    """How the artifact's lines stand to the plan's: who wrote them, and the artifact line of each own line."""

    formaliser: Formaliser
    own_lines: tuple[Line, ...]  # the artifact's define/claim lines, in the plan's order


def _statements(lines: Sequence[Line]) -> list[Line]:
    return [line for line in lines if line.kind != "assume"]


def _align(plan: StepPlan, lines: Sequence[Line], text: str) -> _Aligned | CheckOutcome:
    """The alignment of the artifact (`lines`, parsed from `text`) with the plan, or the unsupported outcome
    saying why there is none."""
    expected = lines if text == plan.artifact else parse_artifact(plan.artifact) if plan.artifact else []
    if not any(line.kind in _OWN_KINDS for line in expected):
        return _unsupported(ErrorKind.UNREADABLE_CLAIM,
                            f"the step's text has no relation the reader can read ({'; '.join(plan.notes[:2]) or 'none'}), "
                            "so no artifact can be aligned with it")
    want, have = _statements(expected), _statements(lines)
    same_text = [(w.kind, w.relation) for w in want] == [(h.kind, h.relation) for h in have]
    if not same_text:
        for index in range(max(len(want), len(have))):
            w = want[index] if index < len(want) else None
            h = have[index] if index < len(have) else None
            if w is not None and h is not None and w.kind == h.kind and _equivalent(w, h):
                continue
            return _unsupported(ErrorKind.UNALIGNED, _mismatch(w, h))
    allowed = [line for line in expected if line.kind == "assume"]
    for line in lines:
        if line.kind == "assume" and not any(_same_assumption(line, a) for a in allowed):
            return _unsupported(ErrorKind.UNGROUNDED_PREMISE,
                                f"the premise `assume {line.relation}` is neither a given of the question, nor an "
                                "ancestor's, nor stated by the step")
    if same_text:
        same_text = sorted(line.relation for line in lines if line.kind == "assume") == \
            sorted(line.relation for line in allowed)
    own = tuple(h for h in have if h.kind in _OWN_KINDS)
    return _Aligned(Formaliser.OFFLINE_READER if same_text else Formaliser.ARTIFACT, own)


def _mismatch(want: Line | None, have: Line | None) -> str:
    if have is None and want is not None:
        what = "claim" if want.kind in _OWN_KINDS else "premise"
        return f"the step's {what} `{want.kind} {want.relation}` is missing from the artifact"
    if want is None and have is not None:
        if have.kind in _PREMISE_KINDS:
            return (f"the premise `{have.kind} {have.relation}` is neither a given of the question nor an "
                    "ancestor's claim")
        return f"the artifact's `{have.kind} {have.relation}` is not something the step's text says"
    assert want is not None and have is not None
    return (f"the artifact's `{have.kind} {have.relation}` is not what the step states here: "
            f"`{want.kind} {want.relation}`")


# a step that lists the values a name takes as what it derived ("so x = 2 or x = 3", "the roots are …"), not as
# candidates it goes on to test or reject
_CONCLUDES_ROOTS = re.compile(r"\b(?:so|thus|hence|therefore|get|gives?|yields?|roots?|solutions?|zeros?|solving|"
                              r"solve[sd]?|factor(?:s|ing|ed)?)\b", re.IGNORECASE)
_HEDGES_ROOTS = re.compile(r"\b(?:candidates?|possib\w*|test\w*|check\w*|try\w*|tri\w*|extraneous|reject\w*|"
                           r"discard\w*|exclud\w*|invalid|not|n't|cannot|except|other|whether|might|may|could|"
                           r"guess\w*|assum\w*|suppos\w*)\b|n['’]t\b", re.IGNORECASE)


def _listed_roots(plan: StepPlan, text: str) -> str | None:
    """Why a value the step lists for a name (`So x = 2 or x = 4`) is refuted: it solves no equation in that name
    alone that the givens, the ancestors or the step (before the list) state (x² − 5x + 6 = 0 at x = 4 is
    2 = 0). None when every listed value solves one such equation, or when the step does not conclude the list
    (a candidate, a test, a rejected value), or nothing can be decided exactly."""
    try:
        premises = parse_artifact("\n".join(plan.premises))
    except ArtifactSyntaxError:
        return None
    for name in plan.alternatives:
        listed = [rel for rel in plan.reading.cases if rel.bound_name == name and not names_in(rel.rhs_tree)]
        if len(listed) < 2:
            continue
        first = min(rel.span[0] for rel in listed)
        sentence_start = max(text.rfind(c, 0, first) for c in ".;\n?!") + 1
        if _HEDGES_ROOTS.search(text) or not _CONCLUDES_ROOTS.search(text[sentence_start:first]):
            continue
        equations = [(line.lhs, line.rhs, f"{line.relation} (a given or an earlier step)") for line in premises
                     if line.kind == "fact" and line.op == "=" and line.lhs is not None and line.rhs is not None]
        if not case_openings(text):  # in a case analysis the step's own equations hold in their case only
            equations += [(rel.lhs_tree, rel.rhs_tree, f"{rel.text} (stated before the values)")
                          for rel in plan.reading.claims if rel.op == "=" and rel.span[1] <= first]
        equations = [(lhs, rhs, shown) for lhs, rhs, shown in equations
                     if names_in(lhs) | names_in(rhs) == {name} and _several_roots(lhs, rhs, name)]
        for rel in listed:
            # equations in one name whose roots differ may be a case split ("x^3 = 0 and x^2 - x - 72 = 0"),
            # not facts that all hold: a value is refuted only when it solves none of them
            gaps = [(_gap_at(lhs, rhs, name, rel.rhs_tree), shown) for lhs, rhs, shown in equations]
            if gaps and all(gap is not None and gap != 0 for gap, _ in gaps):
                gap, shown = gaps[0]
                assert gap is not None
                return (f"{rel.text} is not a solution of {shown}: at {rel.text} the sides differ by "
                        f"{sympy.sstr(gap)}")
    return None


def _several_roots(lhs: Node, rhs: Node, name: str) -> bool:
    """Whether an equation in one name can have several roots (a polynomial of degree 2 or more, or not a
    polynomial): a linear one (`x = -1`, `5 - a = 3`) fixes one value, so values listed later for that letter
    are more likely a new use of it than roots of that equation."""
    try:
        gap = sympy.expand(evaluate(lhs) - evaluate(rhs))
        symbol = next((s for s in gap.free_symbols if str(s) == name), None)
        if symbol is None:
            return False
        poly = sympy.Poly(gap, symbol)
    except (ExpressionError, sympy.PolynomialError, sympy.GeneratorsNeeded, TypeError, ValueError):
        return True
    return poly.degree() >= 2


def _gap_at(lhs: Node, rhs: Node, name: str, value: Node) -> sympy.Expr | None:
    """lhs − rhs with `name` replaced by `value`, exactly; None when it cannot be decided exactly."""
    try:
        at = evaluate(value)
        gap = evaluate(lhs, {name: at}) - evaluate(rhs, {name: at})
        if gap.free_symbols or not gap.is_number or gap.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo):
            return None
        # evalf raises its working precision until 50 digits are right: a gap this far from 0 is no rounding
        numeric = sympy.N(gap, 50)
    except (ExpressionError, TypeError, ValueError, ZeroDivisionError):
        return None
    if not numeric.is_real:
        return None
    if abs(numeric) > sympy.Rational(1, 10**30):
        return gap if gap.is_Rational else numeric
    return sympy.Integer(0) if gap.is_Rational and gap == 0 else None


def _refuse(outcome: CheckOutcome, why: CheckOutcome) -> CheckOutcome:
    """An unaligned artifact's verdict (verified or failed) is about something else: unsupported."""
    if outcome.status is StepStatus.UNSUPPORTED and outcome.error_kind is ErrorKind.UNTRANSLATABLE:
        return outcome  # the translator's empty artifact: already unsupported, with the reader's notes
    return outcome.downgraded(StepStatus.UNSUPPORTED, why.error_kind or ErrorKind.UNALIGNED, why.message or "")


def _unsupported(kind: ErrorKind, message: str) -> CheckOutcome:
    return CheckOutcome(status=StepStatus.UNSUPPORTED, message=message, error_kind=kind)


def _equivalent(want: Line, have: Line) -> bool:
    """Same relation: same op and equal sides, or the sides swapped and the op flipped."""
    if want.lhs is None or have.lhs is None or want.rhs is None or have.rhs is None:
        return False
    if want.kind in ("let", "define") and want.name != have.name:
        return False
    if have.op == want.op and _same_side(want.lhs, have.lhs, want.op) and _same_side(want.rhs, have.rhs, want.op):
        return True
    return (want.kind not in ("let", "define") and have.op == _FLIP.get(want.op or "")
            and _same_side(want.lhs, have.rhs, want.op) and _same_side(want.rhs, have.lhs, want.op))


def _same_assumption(have: Line, allowed: Line) -> bool:
    if have.lhs is None or allowed.lhs is None:
        return have.lhs is None and allowed.lhs is None and have.name == allowed.name \
            and set(have.properties) <= set(allowed.properties)
    return _equivalent(allowed, have)


def _same_side(want: Node, have: Node, op: str | None) -> bool:
    """Equal up to exact evaluation; where the checker reads the written form (decimals, percent, `~=`) or an
    expansion could be unbounded, the written form itself."""
    text_w, text_h = to_text(want), to_text(have)
    if text_w == text_h:
        return True
    if op == "~=" or names_in(want) != names_in(have) or max(len(text_w), len(text_h)) > _MAX_SIDE_CHARS:
        return False
    if _written_form_matters(want) or _written_form_matters(have):
        return False
    try:
        gap = evaluate(want) - evaluate(have)
        if names_in(want):
            gap = sympy.cancel(sympy.expand(gap))
    except (ExpressionError, TypeError, ValueError, ZeroDivisionError, RecursionError):
        return False
    return gap == 0


def _written_form_matters(node: Node) -> bool:
    """A decimal, a percent, or a power of an unknown anywhere in the side."""
    if isinstance(node, Num):
        return node.decimals > 0
    if isinstance(node, Postfix):
        return node.op == "%" or _written_form_matters(node.arg)
    if isinstance(node, Unary):
        return _written_form_matters(node.arg)
    if isinstance(node, Binary):
        if node.op == "^" and (names_in(node.left) or names_in(node.right)):
            return True
        return _written_form_matters(node.left) or _written_form_matters(node.right)
    if isinstance(node, Call):
        return any(_written_form_matters(a) for a in node.args)
    return False


def _under_bindings(plan: StepPlan, outcome: CheckOutcome, limits: CheckLimits) -> CheckOutcome:
    """A binding of a name that is not fresh ("let a = √2013" where the question constrains a) is a claim;
    when it cannot be decided, the step's other claims are still checked under it: one that is false there
    fails the step (either the binding is false, or the claim is), one that holds proves nothing more."""
    under = ArithmeticChecker().check(plan.as_bound, level=ProofLevel.QUICK, limits=limits)
    if under.status is not StepStatus.FAILED:
        return outcome
    bound = {r.text for r in plan.bound}
    lines = {line.number: line for line in parse_artifact(plan.as_bound)}
    failed = [r for r in under.details.get("relations", []) if r.get("verdict") == StepStatus.FAILED.value]
    if not failed or any(lines[r["line"]].kind != "claim" or lines[r["line"]].relation in bound for r in failed):
        return outcome
    given = "; ".join(r.text for r in plan.bound)
    return CheckOutcome(status=StepStatus.FAILED, message=f"{under.message}, under this step's own binding {given}",
                        error_kind=under.error_kind or ErrorKind.ARITHMETIC,
                        details={**under.details, "under_bindings": given, "checker_status": outcome.status.value})


# a conclusion word in the relation's sentence before it: what follows is derived from what came before
_CONCLUDED = re.compile(r"\b(?:so|therefore|thus|hence|then|consequently|gives|get|gets|yields|obtain)\b[^.;:!?\n]*$",
                        re.IGNORECASE)


def _failed_relations(plan: StepPlan, alignment: _Aligned, outcome: CheckOutcome) -> list[Relation]:
    results = _results(outcome)
    own = plan.reading.relations
    return [own[i] for i, line in enumerate(alignment.own_lines)
            if i < len(own) and results.get(line.number, {}).get("verdict") == StepStatus.FAILED.value]


def _reused_failure(plan: StepPlan, alignment: _Aligned, outcome: CheckOutcome, text: str) -> str | None:
    """Why a failure that only gives a letter an earlier step determined another value (`N = 21 × 2` after N =
    21, `x = 2^6` after x = 1/4) is no refutation: models reuse letters for new quantities, part after part, and
    the step does not say whether this is the earlier N; which N it speaks of is not read. A value for a name of
    the question, or any other false relation, still refutes. None when some failing relation is not such a
    value."""
    failed = _failed_relations(plan, alignment, outcome) if plan.inherited else []
    if not failed or any(rel.bound_name not in plan.inherited for rel in failed):
        return None
    # "Therefore c = 9", or a claimed conclusion (read from its own field, not from the text): the step says it
    # follows from what came before, so the c is the same
    if any(text[rel.span[0]:rel.span[1]] != rel.source or _CONCLUDED.search(text[max(0, rel.span[0] - 80):rel.span[0]])
           for rel in failed):
        return None
    name = failed[0].bound_name
    return (f"{outcome.message}; but only earlier steps speak of {name}, and this step may use {name} for "
            f"another quantity: which {name} it means is not read")


def _reused_letters(plan: StepPlan, ancestors: Sequence[tuple[ReasoningStep, StepMath]]) -> set[str]:
    """Letters two steps of the chain (the ancestors and this one) give different values: `k = 1` for 6 = 3^k·2
    and `k = 0` for 16 = 3^k·16; `a = 1` as a coefficient of the quadratic formula and `a = 27` as a root; the
    n of "First, n − 2 = 1 ⇒ n = 3" and of "Second, n − 2 = −1 ⇒ n = 1". Each step speaks of its own k, and
    which one a relation means is not read."""
    per_step: dict[str, list[frozenset[sympy.Expr]]] = {}
    for math in [m for _, m in ancestors] + [plan.reading]:
        seen: dict[str, set[sympy.Expr]] = {}
        for rel in math.relations:
            if rel.bound_name and (value := closed_value(rel.rhs_tree)) is not None:
                seen.setdefault(rel.bound_name, set()).add(value)
        for name, values in seen.items():
            per_step.setdefault(name, []).append(frozenset(values))
    return {name for name, sets in per_step.items() if len(sets) > 1 and len(frozenset().union(*sets)) > 1}


_SOLVED_NAME = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*) = ")


def _ambiguous_letter(plan: StepPlan, alignment: _Aligned, outcome: CheckOutcome, text: str,
                      ancestors: Sequence[tuple[ReasoningStep, StepMath]]) -> str | None:
    """Why a failure through a letter steps of the chain give different values (`_reused_letters`) is no
    refutation: which of its meanings the failing relation speaks of is not read. A bare value after a concluding
    word that opens the step ("Therefore c = 9") still refutes: the step says it is the c derived before."""
    failed = _failed_relations(plan, alignment, outcome)
    if not failed:
        return None
    reused = _reused_letters(plan, ancestors)
    if not reused:
        return None
    solved = {m.group(1) for r in outcome.details.get("relations", []) if isinstance(r, dict)
              for m in _SOLVED_NAME.finditer(str((r.get("values") or {}).get("solutions", "")))}
    for rel in failed:
        touched = (rel.names | solved) & reused
        if not touched:
            return None
        # "Therefore c = 9" opening the step concludes from the steps before: the c is theirs ("2b = 36, so b = 18"
        # concludes from the step's own relations)
        concluded = _CONCLUDED.search(text[max(0, rel.span[0] - 80):rel.span[0]])
        first = min(plan.reading.relations, key=lambda r: r.span[0]) is rel
        if text[rel.span[0]:rel.span[1]] != rel.source or (rel.bound_name in reused and concluded and first):
            return None  # a claimed conclusion (its own field), or a value the step says follows from before
    name = min((failed[0].names | solved) & reused)
    return (f"{outcome.message}; but steps of the chain give {name} different values, and which {name} this "
            "relation speaks of is not read")


# a sentence that rejects what came before: the false relation was derived to refute a case, not asserted
_REJECTS = re.compile(r"\b(?:contradiction|contradicts|contradictory|impossible|absurd|not possible|no solutions?|"
                      r"inconsistent|not valid|invalid|cannot be|can't be|not a solution)\b", re.IGNORECASE)
_REDUCTIO_REACH = 160  # characters after the relation the rejection may stand in (its sentence and the next)


def _reductio(plan: StepPlan, alignment: _Aligned, outcome: CheckOutcome, text: str) -> str | None:
    """Why a false relation followed by a rejection ("… ⟹ 0 = −44. This is a contradiction, so there is no
    solution for a = −1") is no refutation: the step derives it to reject the case it stands in."""
    failed = _failed_relations(plan, alignment, outcome)
    rejections = [m for rel in failed if (m := _REJECTS.search(text, rel.span[1], rel.span[1] + _REDUCTIO_REACH))]
    if not failed or len(rejections) < len(failed):
        return None
    return (f"{outcome.message}; but the step goes on to reject it (\"{rejections[0].group(0)}\"): a relation "
            "derived to refute a case is not asserted")


_OPENS_STEP = 40  # an opener this near the start of the step makes the whole step one case of an enumeration


def _case_condition(plan: StepPlan, alignment: _Aligned, outcome: CheckOutcome, text: str) -> str | None:
    """Why a false relation that is the first of a case ("This gives two cases. First, 12r − 60 = 13r …",
    "Second, **Case k = 3:**") is no refutation: it is the case's condition, which the step supposes; a case the
    givens exclude is no error of the step (the cases of an enumeration within a step, or a step that is one case
    of an enumeration across steps)."""
    failed = _failed_relations(plan, alignment, outcome)
    openers = case_openers(text)
    if not failed or not (len(openers) >= 2 or (openers and openers[0][0] <= _OPENS_STEP)):
        return None
    # (a hypothesis the case states, "Second, for b - a = 3 and …", is its condition: the claims after it are not)
    stated = [*plan.reading.relations, *(a.relation for a in plan.reading.assumptions if a.relation is not None)]
    firsts = {min((r for r in stated if r.span[0] >= at), key=lambda r: r.span[0], default=None) for at, _ in openers}
    if any(rel not in firsts or not rel.names for rel in failed):  # `First, 7995 - 2595 = 4500` supposes nothing
        return None
    return (f"{outcome.message}; but it opens a case of the enumeration, so the step supposes it: a case that what "
            "is known excludes is no error of the step")


# "Solving the second case:", "For the other case,": a step about one case of several, named mid-sentence
_NAMES_A_CASE = re.compile(r"\b(?:first|second|third|fourth|fifth|other|next|last|remaining)\s+(?:sub)?case\b",
                           re.IGNORECASE)


# "For r = -\\sqrt{2}:", "When k = 3,": a step that starts by supposing a value
_STARTS_WITH_A_VALUE = re.compile(r"\s*(?:\*\*)?(?:for|when|if|with|taking|in\s+the\s+case)\b[^.:;\n]{0,30}=",
                                  re.IGNORECASE)


_SUPPOSES = re.compile(r"\b(?:assum\w*|suppos\w*|consider(?:ing)?\s+the\s+(?:possibility|case)|let(?:'s|\s+us)\s+say|"
                       r"hypothetical\w*|if\s+we\s+(?:take|set|let))\b", re.IGNORECASE)


def _supposed_system(alignment: _Aligned, outcome: CheckOutcome, text: str) -> str | None:
    """Why a relation refuted only by the step's own earlier claims, in a step that reasons under a supposition
    ("Let's assume p3 = p4 = … = 0. Then p1 + 2p2 = 1, p1 + 4p2 = 2, p1 + 8p2 = 5"), is no refutation: what
    follows from a supposition may contradict itself, which refutes the supposition, not the step."""
    results = _results(outcome)
    failed = [results[line.number] for line in alignment.own_lines
              if results.get(line.number, {}).get("verdict") == StepStatus.FAILED.value]
    if not failed or not all(r.get("against_own_claims") for r in failed) or not (m := _SUPPOSES.search(text)):
        return None
    return (f"{outcome.message}; but only together with the step's own claims, which it derives under a "
            f"supposition (\"{m.group(0)}\"): claims that contradict each other there refute the supposition")


def _opens_a_case(text: str) -> bool:
    openers = case_openers(text)
    named = _NAMES_A_CASE.search(text, 0, _OPENS_STEP)
    return bool(openers) and openers[0][0] <= _OPENS_STEP or named is not None \
        or _STARTS_WITH_A_VALUE.match(text) is not None


def _sibling_case(plan: StepPlan, outcome: CheckOutcome, context: StepContext, limits: CheckLimits) -> str | None:
    """Why a failure of a step that is one item of an enumeration across steps ("Second, (x+8)^2 - 4 = 0", "For
    r = -√2: …") that needs what an earlier item established ("First, (x+8)^2 = 0 ⟹ x = -8"; "For r = √2: …"
    and the steps after it) is no refutation: the items may be the cases of a disjunction, each holding in its
    own case only. Checked again without those items: still false there, it refutes."""
    ancestors = context.ancestors
    opening = [i for i, a in enumerate(ancestors) if _opens_a_case(a.content)]
    # the case the step is in starts at the step, or at the latest ancestor that opens one ("**Case 2: r = -√2**",
    # then "3a(1 - √2) = 6 + 6√2")
    start = len(ancestors) if _opens_a_case(context.content) else opening.pop() if opening else None
    if not opening or start is None or not plan.artifact:
        return None
    # the other items, and the steps that follow the latest within its case ("For r = √2: …", then "a = 2")
    siblings = {ancestors[i].step_id for i in (*opening, *range(opening[-1], start))}
    kept, skipping = [], False
    for line in plan.artifact.splitlines():
        if line.startswith("# step "):
            skipping = line.split()[2] in {str(s) for s in siblings} and not line.endswith("(checked)")
        if not skipping:
            kept.append(line)
    if ArithmeticChecker().check("\n".join(kept) + "\n", level=ProofLevel.QUICK, limits=limits).status \
            is StepStatus.FAILED:
        return None
    return (f"{outcome.message}; but only given what an earlier item of the enumeration established, and the items "
            "may be cases that each hold on their own: a sibling case refutes nothing")


def _known(context: StepContext) -> str:
    """What the chain states before the step: the question and the ancestors' texts."""
    return "\n".join((context.original_query, *(a.content for a in context.ancestors)))


def _vacuous_case(plan: StepPlan, limits: CheckLimits, bounds_only: bool = False) -> str | None:
    """Why a step that holds under a case it supposes ("So for x = 6 and y = 5, xy = 30", "Suppose y = 5", "If
    n > 6, …") proves nothing when the known equations exclude that case (y = 4, n = 6 were derived): the
    implication holds vacuously, and a chain that reasons on under it reaches what the case gives, not what is.
    Each supposed value or bound (cases, bindings, assumptions; with `bounds_only`, the assumed inequalities
    alone) is checked as a claim against the givens and the ancestors alone; one they refute makes the step's
    claims hold or fail in a case that is not the problem's: unsupported, never refuted."""
    assumed = [a.relation for a in plan.reading.assumptions if a.relation is not None]
    supposed = [rel for rel in assumed if rel.op != "="] if bounds_only else \
        [*plan.reading.cases, *plan.reading.bindings, *assumed]
    header = next((i for i, line in enumerate(plan.premises) if line.endswith("(checked)")), None)
    if not supposed or header is None:
        return None
    premises = "\n".join(plan.premises[:header + 1])
    for rel in supposed:
        if not any(re.search(rf"\b{re.escape(name)}\b", premises) for name in rel.names):
            continue  # a name nothing before the step speaks of: no known value can exclude it (no solver run)
        known = f"{premises}\nclaim {rel.text}\n"
        check = ArithmeticChecker().check(known, level=ProofLevel.QUICK, limits=limits)
        if check.status is StepStatus.FAILED:
            return (f"the step supposes {rel.text}, which what is known excludes ({check.message}): what holds "
                    "under that case holds vacuously, and proves nothing about the problem")
    return None if bounds_only else _excluded_together(plan, supposed, header)


def _excluded_together(plan: StepPlan, supposed: Sequence[Relation], header: int) -> str | None:
    """Why the values the step supposes, taken together, are a case the givens and ancestors exclude: a known
    relation in those names alone is false at them ("For x = 2 and y = 5" beside x + y = 6; "n = 6" beside the
    given n > 6), though the solver left each value on its own undecided."""
    values: dict[str, sympy.Expr] = {}
    for rel in supposed:
        name = rel.bound_name
        value = closed_value(rel.rhs_tree) if rel.op == "=" and name else None
        if name and value is not None and name not in values:
            values[name] = value
    if not values:
        return None
    try:
        premises = parse_artifact("\n".join(plan.premises[:header + 1]) + "\n")
    except ArtifactSyntaxError:
        return None
    for line in premises:
        if line.kind not in ("fact", "assume") or line.lhs is None or line.rhs is None or line.op not in _ORDERS:
            continue
        names = names_in(line.lhs) | names_in(line.rhs)
        if not names or not names <= values.keys():
            continue
        try:
            gap = evaluate(line.lhs, values) - evaluate(line.rhs, values)
        except ExpressionError:
            continue
        if gap.free_symbols or not gap.is_number:
            continue
        if _ORDERS[line.op](gap) is False:
            shown = ", ".join(f"{name} = {sympy.sstr(v)}" for name, v in values.items() if name in names)
            return (f"the step supposes {shown}, which {line.relation} excludes: what holds under that case holds "
                    "vacuously, and proves nothing about the problem")
    return None


# a known relation as a test of its sides' difference
_ORDERS: dict[str, Callable[[sympy.Expr], bool]] = {
    "=": lambda gap: bool(gap == 0), "!=": lambda gap: bool(gap != 0), "<": lambda gap: bool(gap < 0),
    ">": lambda gap: bool(gap > 0), "<=": lambda gap: bool(gap <= 0), ">=": lambda gap: bool(gap >= 0)}


def _only_if_nonnegative(plan: StepPlan, outcome: CheckOutcome, limits: CheckLimits) -> str | None:
    """Why a failure that needs the plan's own reading that a length or count is nonnegative is no refutation:
    that is an assumed premise (the prose names a distance or a count; no given says which quantity), and an
    assumed premise refutes nothing. Checked again without it: still false there, it refutes."""
    assumed = [line for line in plan.premises if line.endswith("# a length or count")]
    if not assumed or not plan.artifact:
        return None
    without = "\n".join(line for line in plan.artifact.splitlines() if line not in assumed) + "\n"
    if ArithmeticChecker().check(without, level=ProofLevel.QUICK, limits=limits).status is StepStatus.FAILED:
        return None
    names = ", ".join(line.split()[1] for line in assumed)
    return (f"{outcome.message}; but only when {names} ≥ 0, which the plan assumes (a length or count) and "
            "nothing given states: an assumed premise refutes nothing")


# an unread relation that gives a letter a value (`y = 5` after "Choose", "Imagine"): it may be a supposition
_UNREAD_BINDING = re.compile(r"^\s*(?:\\\(|\$)?\s*([A-Za-z])\s*(?:=|:=)")


def _unread_binding(plan: StepPlan, alignment: _Aligned, outcome: CheckOutcome) -> str | None:
    """Why a failure through a letter that an unread relation of the step gives a value ("Choose y = 5; then
    6y = 30", with "y = 5" unread after an operator word) is no refutation: the unread relation may suppose that
    value, under which the failing relation holds; the checker used the value known before instead."""
    failed = _failed_relations(plan, alignment, outcome)
    first = min((rel.span[0] for rel in failed), default=None)
    for unread in plan.reading.unread:
        bound = _UNREAD_BINDING.match(unread.source)
        # (a letter the step introduces itself had no value before to be checked at: its failure stands)
        if bound and first is not None and unread.span[0] < first and re.search(
                rf"\b{bound.group(1)}\b", "\n".join((*plan.given, *plan.derived))) \
                and any(bound.group(1) in rel.names for rel in failed):
            return (f"{outcome.message}; but the step also gives {bound.group(1)} a value the reader did not read "
                    f"(\"{unread.source}\"), which may be the case the failing relation speaks of")
    return None


# "let x be the number of blue balls", "x denotes the width", "where n is the count": a letter given a meaning in
# words, which may not be the one earlier steps gave it
_LETTERED = re.compile(r"\blet\s+(?:\\\(|\$)?\s*([A-Za-z])\s*(?:\\\)|\$)?\s+(?:[a-z]+\s+){0,2}(?:be|denote|represent|"
                       r"stand\s+for|equal\s+the)\b|(?<![\w\\])([A-Za-z])\s*(?:\\\)|\$)?\s+(?:denotes|represents|stands\s+for|"
                       r"is\s+(?:now\s+)?(?:the\s+)?(?:number|amount|count|length|width|height|value|cost|price|age)\s+of)\b",
                       re.IGNORECASE)


def _lettered_in_words(plan: StepPlan, alignment: _Aligned, outcome: CheckOutcome, text: str) -> str | None:
    """Why a failure through a letter the step gives a meaning in words ("Now let x be the number of blue balls
    instead. Then x = 30 − 10 = 20", after x = 10 counted the red ones) is no refutation: the letter may mean
    something new here, and the checker held it to the old value."""
    failed = _failed_relations(plan, alignment, outcome)
    for m in _LETTERED.finditer(text):
        letter = m.group(1) or m.group(2)
        if letter in plan.inherited | plan.asked and any(letter in rel.names for rel in failed):
            return (f"{outcome.message}; but the step gives {letter} a meaning in words (\"{m.group().strip()}\"), "
                    "which may not be the one the earlier steps gave it")
    return None


def _renamed_failure(plan: StepPlan, alignment: _Aligned, outcome: CheckOutcome) -> str | None:
    """Why a failure that runs through a letter the step rebinds with a binder word ("where a = 1, b = 4, c = 5"
    after an earlier step found b = 5, "Let x = a + b" when x is the question's root) is no refutation: the step may give the letter a new meaning, and which
    meaning each relation speaks of is not read. None when the failing relations do not touch such a letter."""
    if not plan.renamed:
        return None
    failed = _failed_relations(plan, alignment, outcome)
    letters = {rel.bound_name for rel in plan.renamed}
    touched = next((rel for rel in failed if rel in plan.renamed or rel.names & letters), None)
    if touched is None and failed:
        return None
    renamed = next((rel for rel in plan.renamed if touched is not None and (
        rel is touched or rel.bound_name in touched.names)), plan.renamed[0])
    return (f"the step gives {renamed.bound_name} a value ({renamed.text}) with a binder word, though the question "
            f"or an earlier step already speaks of {renamed.bound_name}: it may be a new meaning of the letter, so "
            f"{outcome.message} refutes nothing")


def _named_failure(plan: StepPlan, alignment: _Aligned, outcome: CheckOutcome) -> CheckOutcome:
    """A failure that rests only on values the text names without asserting them (`x = -1 could be a root`,
    cases with no hypothetical word, see `plan_step`) is no evidence the step is wrong: unsupported."""
    failed = _failed_relations(plan, alignment, outcome)
    if not failed or any(rel not in plan.named for rel in failed):
        return outcome
    rebound = next((r for r in plan.rebound if r.relation in failed), None)
    if rebound is not None:
        why = (f"{rebound.given.bound_name} is a given of the question ({rebound.given.text}), and this step names "
               f"another value ({rebound.relation.text})")
    else:
        why = f"{failed[0].text} does not hold ({outcome.message})"
    return outcome.downgraded(StepStatus.UNSUPPORTED, ErrorKind.UNDECIDED,
                     f"{why}, but the step only names the value: no word of it asserts {failed[0].text}")


# ---- definitions ------------------------------------------------------------------------------------------------
def _results(outcome: CheckOutcome) -> dict[int, dict[str, Any]]:
    return {r["line"]: r for r in outcome.details.get("relations", []) if isinstance(r, dict) and "line" in r}


def _definitions(context: StepContext, plan: StepPlan, alignment: _Aligned, outcome: CheckOutcome) -> CheckOutcome:
    """Rule 4 of the module docstring: definitions that would verify what nothing derived."""
    results = _results(outcome)
    derived = False
    for line in alignment.own_lines:
        result = results.get(line.number, {})
        if result.get("how") != "definition":
            derived = derived or result.get("verdict") == StepStatus.VERIFIED.value
            continue
        if line.kind != "claim" or line.lhs is None or line.rhs is None:
            continue
        names = names_in(line.lhs) | names_in(line.rhs)
        if asked := sorted(names & plan.asked):
            return outcome.downgraded(StepStatus.UNSUPPORTED, ErrorKind.UNDECIDED,
                             f"{line.relation} cannot be checked: {', '.join(asked)} is what the question asks "
                             "for, and nothing before this step determines it")
        # (in a word problem a letter names a quantity of the story, whose values are never proven anyway)
        if not word_problem(context.original_query) and (
                spoken := sorted(names & _question_letters(context.original_query))):
            return outcome.downgraded(StepStatus.UNSUPPORTED, ErrorKind.UNDECIDED,
                             f"{line.relation} cannot be checked: the question speaks of {', '.join(spoken)} (\"the "
                             "roots r and s\", \"i is the imaginary unit\") in words the reader does not read, so an "
                             "equation in it is a claim about it, not a definition")
        lone = _lone_value(line.lhs, line.rhs)
        if lone is not None:
            return outcome.downgraded(StepStatus.UNSUPPORTED, ErrorKind.UNDECIDED,
                             f"{line.relation} is stated as a conclusion, but nothing before this step determines "
                             f"{lone}")
    if context.final and not derived and alignment.own_lines:
        return outcome.downgraded(StepStatus.UNSUPPORTED, ErrorKind.UNDECIDED,
                         "the chain's last step only defines names (" + "; ".join(
                             line.relation for line in alignment.own_lines) + "): it derives nothing to conclude")
    return outcome


# a letter standing alone in the question's text (not the article "a" or the pronoun "I")
_QUESTION_LETTER = re.compile(r"(?<![\w\\'’])([B-HJ-Zb-z])(?![\w'’(])")


def _question_letters(question: str) -> frozenset[str]:
    """The letters the question names something by ("the roots are r and s", "where i is the imaginary unit")."""
    return frozenset(_QUESTION_LETTER.findall(question))


def _lone_value(lhs: Node, rhs: Node) -> str | None:
    """The name of `name = <number>` (either way round), else None."""
    for name_side, value_side in ((lhs, rhs), (rhs, lhs)):
        if isinstance(name_side, Name) and names_in(name_side) and _literal(value_side):
            return name_side.name
    return None


def _literal(node: Node) -> bool:
    while isinstance(node, (Unary, Postfix)):
        node = node.arg
    return isinstance(node, Num)


def _conclusion(context: StepContext, plan: StepPlan, alignment: _Aligned, outcome: CheckOutcome) -> CheckOutcome:
    """A `claimed_conclusion` with no relation (`53`) must be a value the step's verified claims give: its
    relations are claims the artifact checks already (`read_step`), anything else is a claim nobody checked."""
    text = (context.claimed_conclusion or "").strip()
    if outcome.status is not StepStatus.VERIFIED or not text or extract(text).relations:
        return outcome
    value = extract_value(text)
    if value is None:
        return outcome.downgraded(StepStatus.UNSUPPORTED, ErrorKind.UNREADABLE_CLAIM,
                         f"the claimed conclusion \"{_short(text)}\" cannot be read as a relation or a value")
    results = _results(outcome)
    own = plan.reading.relations
    for rel, line in zip(own, alignment.own_lines):
        node = value_of(rel, None) if rel in plan.reading.claims else None
        verified = results.get(line.number, {}).get("verdict") == StepStatus.VERIFIED.value
        if node is not None and verified and same_value(node, value):
            return outcome
    return outcome.downgraded(StepStatus.UNSUPPORTED, ErrorKind.UNALIGNED,
                     f"the claimed conclusion {to_text(value)} is not a value this step's relations derive")


# ---- the claimed answer -----------------------------------------------------------------------------------------
def _answer(context: StepContext, plan: StepPlan, ancestors: Sequence[tuple[ReasoningStep, StepMath]],
            alignment: _Aligned | None, outcome: CheckOutcome) -> CheckOutcome:
    """Rule 6 of the module docstring (`alignment` None: the artifact is not the step's, so nothing in the last
    step counts as derived, but a value it states still shows a mismatch)."""
    results = _results(outcome)
    own_lines = alignment.own_lines if alignment is not None else ()
    last = StepText(context.step_id, context.content, plan.reading)
    check = check_answer(context.claimed_answer, read_problem(context.original_query), last,
                         [StepText(a.step_id, a.content, math) for a, math in ancestors])
    if check.status == "unread":
        return _unchecked_answer(outcome, check.message)
    if check.status == "different":
        if outcome.status is StepStatus.FAILED:  # the step's own failure comes first; the mismatch is noted
            return outcome.model_copy(update={"details": {**outcome.details, "answer": f"mismatch: {check.message}"}})
        return outcome.downgraded(StepStatus.FAILED, ErrorKind.ANSWER_MISMATCH, check.message,
                                  answer=f"mismatch: {check.message}")

    def derived(final: Stated) -> bool:
        if final.step_id != context.step_id:
            # an ancestor's claim is vouched for by its own verdict: the chain is VERIFIED only if it is
            return any(a.step_id == final.step_id and final.relation in math.claims for a, math in ancestors)
        own = plan.reading.relations
        if final.relation is None:  # the answer line: its claim is the plan's last line
            line = own_lines[-1] if plan.answer is not None and own_lines else None
        else:
            line = own_lines[own.index(final.relation)] if final.relation in own and len(own_lines) == len(own) \
                else None
        return line is not None and results.get(line.number, {}).get("verdict") == StepStatus.VERIFIED.value

    if not all(derived(final) for final in check.finals):
        return _unchecked_answer(outcome, f"the claimed answer matches {check.message.split(' against ', 1)[-1]}, "
                                 "which no verified relation derives")
    return outcome.model_copy(update={"details": {**outcome.details, "answer": check.message}})


def _unchecked_answer(outcome: CheckOutcome, message: str) -> CheckOutcome:
    if outcome.status is not StepStatus.VERIFIED:
        return outcome
    return outcome.downgraded(StepStatus.UNSUPPORTED, ErrorKind.UNREADABLE_CLAIM,
                     f"{message}; the last step does not vouch for an answer nobody checked")


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _answer_text(plan: StepPlan) -> str:
    """The answer line's claim, as the evidence's aligned claim."""
    if plan.answer is None:
        return ""
    return plan.own[-1].split("#", 1)[0].removeprefix("claim").strip()

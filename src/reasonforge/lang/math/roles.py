"""The role each relation of a step plays: a claim, a binding ("Let x = 3"), a case ("if x = 2", for
this step only) or an assumption ("z > 0", "if K^2 = 1"), read from the prose of its sentence before it;
and the domain assumptions the prose states ("where k is an integer", `n ∈ ℕ`)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from reasonforge.lang.math.expr import ExpressionError, Name, Node, Num, Unary, evaluate, names_in, to_text
from reasonforge.lang.math.step import Assumption, Relation

__all__ = ["classify", "domain_assumptions"]

_BINDING_PREFIX = re.compile(
    r"\b(?:let|suppose|assume|assuming|define|denote|where|given|say|put)(?:\s+that|\s+now|\s+again)?[\s,:]*$",
    re.IGNORECASE,
)
# a hypothetical value holds for the step that states it: a case, a trial, a reference to a term
_CASE_PREFIX = re.compile(
    r"\b(?:if|when|whenever|for|set|setting|with|consider|considering|testing|test|try|trying|substitute|"
    r"substituting|plug|plugging|take|taking|case|at|from|of|starting|choose|choosing|pick|picking|imagine|"
    r"imagining)\b[^.;]*$",
    re.IGNORECASE,
)
# one root of several, named right before its value ("gives us one solution x = 0, and the others come from …"):
# a case even after a conclusion word, since the others are still to come
_ONE_OF_SEVERAL = re.compile(r"\b(?:one|another)\s+(?:possible\s+)?(?:solution|root|zero)\s*(?:is\s+)?$",
                             re.IGNORECASE)
# "the case where a = b", "the case in which n = 1": "where" opens a case there, not a binding
_CASE_WHERE = re.compile(r"\bcases?\s+(?:where|when|in\s+which|that)\s*$", re.IGNORECASE)
_INEQUALITIES = ("<", ">", "<=", ">=", "!=")
_REASON_GIVEN = re.compile(r"\b(?:since|because|as)\b[^.;]*,\s*$", re.IGNORECASE)  # "Since z > 0, z = 5"
# an equation the step names as what it works on ("Solving x² + 4x + 5 = 0", "the second pair of equations:"),
# whose letters need not be the values found before: a premise of this step
_MENTION = re.compile(r"(?:\b(?:solving|solve)\s+(?:the\s+(?:\w+\s+){0,2}equations?\s+)?|\bequations?\s*:?\s*)"
                      r"(?:\\\(|\\\[|\$|\s)*$", re.IGNORECASE)
_HYPOTHESIS = re.compile(r"\b(?:if|when|whenever|suppose|supposing|assume|assuming)\b[^.;:]*$", re.IGNORECASE)
# "for a ≠ b, there are none", "unless x = 0": the relation right after is the condition of what follows
_FOR_EACH = re.compile(r"\b(?:for|unless|whenever)\s*$", re.IGNORECASE)
_CONTINUATION = re.compile(r"^[\s,;]*(?:and|or|,)?[\s,]*$", re.IGNORECASE)
_CONCLUSION = re.compile(
    r"\b(?:therefore|so|thus|hence|then|get|gets|got|gives|give|obtain|obtains|find|finds|means|implies|"
    r"conclude|yields|becomes|shows?|solving|equals|is|are|must|need|needs)\b",
    re.IGNORECASE,
)
_DELIMS = re.compile(r"\\[()\[\]]|\$")
_PROPS = r"(?:positive|negative|non-?negative|non-?positive|even|odd|prime|real|rational|natural|whole)"
_NOUNS = r"(?:integers?|numbers?|reals?|natural\s+numbers?|whole\s+numbers?|primes?)"
_DOMAIN_IS = re.compile(
    rf"(?<![\w\\])([A-Za-z](?:\s{{0,3}},\s{{0,3}}[A-Za-z]){{0,12}}(?:\s{{0,3}},?\s{{0,3}}and\s+[A-Za-z])?)\$?\s+(?:is|are|be)\s+(?:an?\s+|all\s+)?"
    rf"((?:{_PROPS}\s*)*)({_NOUNS})?\b",
    re.IGNORECASE,
)
_DOMAIN_SOME = re.compile(rf"\b(?:some|any|all|every|an?)\s+((?:{_PROPS}\s+)*)({_NOUNS})\s+\$?\\?\(?\s*([A-Za-z])\b",
                          re.IGNORECASE)
_DOMAIN_IN = re.compile(r"(?<![\w\\])([A-Za-z])\s*(?:\\in|∈)\s*(?:\\mathbb\s*\{?\s*([ZNRQ])\s*\}?|([ℤℕℝℚ]))")
_SET_PROPS = {"Z": ("integer",), "ℤ": ("integer",), "N": ("integer", "nonnegative"), "ℕ": ("integer", "nonnegative"),
              "R": ("real",), "ℝ": ("real",), "Q": ("rational",), "ℚ": ("rational",)}


def _properties(props: str, noun: str | None) -> tuple[str, ...]:
    out: list[str] = []
    for word in props.lower().replace("-", "").split():
        if word in ("natural", "whole"):
            out += ["integer", "nonnegative"]
        else:
            out.append(word)
    noun = (noun or "").lower()
    if noun.startswith(("integer", "natural", "whole")):
        out.append("integer")
        if noun.startswith(("natural", "whole")):
            out.append("nonnegative")
    elif noun.startswith("prime"):
        out.append("prime")
    elif noun.startswith("real"):
        out.append("real")
    return tuple(dict.fromkeys(out))


def domain_assumptions(raw: str) -> list[Assumption]:
    """Properties the prose gives names: `k is an integer`, `some positive integer n`, `x \\in \\mathbb{R}`."""
    # delimiters blanked to spaces of the same length, so "\\(k\\) is an integer" reads and spans still fit
    text = _DELIMS.sub(lambda m: " " * len(m.group()), raw)
    found: list[Assumption] = []
    for m in _DOMAIN_IS.finditer(text):
        props = _properties(m.group(2) or "", m.group(3))
        if not props or props == ("real",) and not m.group(2):
            continue
        for name in re.findall(r"[A-Za-z]+", re.sub(r"\band\b", " ", m.group(1))):
            if len(name) == 1:
                found.append(Assumption(m.span(), m.group(), name=name, properties=props))
    for m in _DOMAIN_SOME.finditer(text):
        props = _properties(m.group(1) or "", m.group(2))
        if props:
            found.append(Assumption(m.span(), m.group(), name=m.group(3), properties=props))
    for m in _DOMAIN_IN.finditer(text):
        props = _SET_PROPS[m.group(2) or m.group(3)]
        found.append(Assumption(m.span(), m.group(), name=m.group(1), properties=props))
    return found


_WINDOW = 300  # how far back a relation's sentence is read: roles are settled by the nearby prose


def _prefix(text: str, start: int, floor: int) -> str:
    """The prose of the current sentence before `start` (at most _WINDOW characters), LaTeX delimiters removed."""
    floor = max(floor, start - _WINDOW)
    lo = max(floor, *(text.rfind(c, floor, start) + 1 for c in ".;\n?!"))
    return _DELIMS.sub(" ", text[lo:start])


def _lead_in(text: str, start: int, prefix: str) -> str:
    """A display's lead-in: the line before it when that line ends with a colon and nothing but delimiters stands
    before the relation on its own line ("… the second pair of equations:\n\\[ x^2 + 4x + 5 = 0 \\]"), else ""."""
    if prefix.strip():
        return ""
    line_start = text.rfind("\n", 0, start)
    if line_start <= 0:
        return ""
    before = text[text.rfind("\n", 0, line_start) + 1:line_start].rstrip()
    return before[-_WINDOW:] if before.endswith(":") else ""


def classify(text: str, relations: Sequence[Relation], question: bool = False) -> dict[str, list]:
    """Sort relations into claims, bindings, cases (hypothetical bindings) and assumptions by the prose of
    their sentence before them:
    - `name = …` after let/suppose/define/denote/where/given/say, or "x is 3" → a binding (it persists);
    - `name = …` after if/for/when/set/with/consider/testing/substituting/…, or "the case where" → a case (this
      step only);
    - `name = <number>` with no conclusion word (so/therefore/thus/get/gives/…) before it → a case too:
      prose such as "the n = 1 term" or "starting from n = 2" names a value, it does not derive one;
    - `name < constant` (and >, ≤, ≥, ≠) with no conclusion word → an assumption;
    - any other relation with names right after if/when/suppose/assume (no conclusion word between) → an
      assumption (a hypothesis); an annotation is always a claim;
    - a relation joined by "and"/"," to the one before takes its kind; a later pair of a chain
      `a = b = c` is always a claim; everything else is a claim;
    - finally, a name given several values in one step (`x = 2 and x = 1/2`) lists alternatives: cases."""
    sorted_: dict[str, list] = {"claim": [], "binding": [], "case": [], "assumption": []}
    previous: Relation | None = None
    previous_kind = "claim"
    mentioned = False  # the previous relation is an equation the step names as what it works on
    for rel in relations:
        chained = previous is not None and rel.span[0] < previous.span[1] and previous.rhs_tree == rel.lhs_tree
        floor = min(previous.span[1], rel.span[0]) if previous is not None and not chained else 0
        prefix = _prefix(text, rel.span[0], floor)
        sentence = _prefix(text, rel.span[0], 0)
        kind = "claim"
        mention = False
        if not chained:
            concluded = _CONCLUSION.search(sentence) is not None or _REASON_GIVEN.search(sentence) is not None
            continued = previous is not None and _CONTINUATION.match(prefix) is not None
            if continued and previous_kind in ("binding", "case") and rel.bound_name or continued and previous_kind == "assumption" and rel.op in _INEQUALITIES and _is_bound_check(rel):
                kind = previous_kind
            elif rel.bound_name and _CASE_WHERE.search(prefix):
                kind = "case"
            elif rel.bound_name and (_BINDING_PREFIX.search(prefix) or (
                    re.search(r"\s(?:is|equals)\s", rel.source) and not concluded)):
                kind = "binding"  # "Let x = 3", "x is 3"
            elif rel.bound_name and _CASE_PREFIX.search(sentence) and not _CONCLUSION.search(prefix) or rel.bound_name and isinstance(rel.rhs_tree, (Num, Unary)) and not names_in(rel.rhs_tree) \
                    and not concluded or rel.bound_name and _ONE_OF_SEVERAL.search(prefix):
                kind = "case"
            elif rel.op in _INEQUALITIES and _is_bound_check(rel) and not concluded:
                kind = "assumption"
            elif rel.names and rel.origin != "annotation" and (_hypothesis(prefix) or _FOR_EACH.search(prefix)):
                kind = "assumption"  # "if K^2 = 1, then …", "for a ≠ b, …": a hypothesis of this step, not a claim
            elif rel.names and rel.origin != "annotation" and (_MENTION.search(prefix) or _MENTION.search(
                    _lead_in(text, rel.span[0], prefix)) or (continued and mentioned)):
                kind = "assumption"  # "Solving x² + 4x + 5 = 0 …": the equation the step works on, not a fact
                mention = True
        sorted_[kind].append(Assumption(rel.span, rel.source, relation=rel) if kind == "assumption" else rel)
        previous, previous_kind, mentioned = rel, kind, mention
    # `x = 2 and x = 1/2`, `m = 0 or m = 2`: one name given several values lists alternatives (roots,
    # cases), not facts that must all hold at once
    # (a binding too: "x = (-4 + 6)/2 = 1 and x = (-4 - 6)/2 = -5" binds neither value for the steps after)
    values: dict[str, set[str]] = {}
    # (only a binding to a value: "Let n = 3. Then n = 2k" binds n and claims something of it; and a question's
    # givens stay bindings: two values given for one name are a conflict, reported as such)
    closed: dict[str, set[str]] = {}
    for rel in (*sorted_["claim"], *sorted_["case"]):
        if rel.bound_name:
            values.setdefault(rel.bound_name, set()).add(_value_key(rel.rhs_tree))
    for rel in (*sorted_["claim"], *sorted_["case"], *(() if question else sorted_["binding"])):
        if rel.bound_name and not names_in(rel.rhs_tree):
            closed.setdefault(rel.bound_name, set()).add(_value_key(rel.rhs_tree))
    several = {name for name, seen in values.items() if len(seen) > 1}
    several_closed = {name for name, seen in closed.items() if len(seen) > 1}
    alternatives = [r for r in sorted_["claim"] if r.bound_name in several] + [
        r for r in sorted_["binding"] if not question and r.bound_name in several_closed and not names_in(r.rhs_tree)]
    sorted_["claim"] = [r for r in sorted_["claim"] if r not in alternatives]
    sorted_["binding"] = [r for r in sorted_["binding"] if r not in alternatives]
    sorted_["case"] = sorted([*sorted_["case"], *alternatives], key=lambda r: r.span)
    return sorted_


def _value_key(node: Node) -> str:
    """What a side says a name's value is: its exact value where it has no names (`6/2` and `3` are one value),
    else its text."""
    if not names_in(node):
        try:
            return str(evaluate(node))
        except (ExpressionError, ValueError):  # ValueError: a value over Python's 4,300 printable digits
            pass
    return to_text(node)


def _hypothesis(prefix: str) -> bool:
    """The relation right after "if"/"when"/"suppose" … with no conclusion word in between."""
    m = _HYPOTHESIS.search(prefix)
    if m is None:
        return False
    after = m.group()[len(m.group().split()[0]):]  # the prose after the if/when word
    return _CONCLUSION.search(after) is None


def _is_bound_check(rel: Relation) -> bool:
    """`z > 0`, `3 <= n`: a lone symbol against a constant."""
    sides = (rel.lhs_tree, rel.rhs_tree)
    lone = [s for s in sides if isinstance(s, Name) and s.name != "pi"]
    return len(lone) == 1 and not names_in(sides[1] if sides[0] is lone[0] else sides[0])

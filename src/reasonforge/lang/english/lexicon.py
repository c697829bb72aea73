"""Word-level rules: plurals, predicate and constant names, and telling plural nouns from adjectives.

Both nouns and adjectives become unary predicates. What matters is consistency: "Xs are Ys",
"Every X is a Y" and "Name is a Y" must name Y's predicate identically, so every noun phrase is
singularised before it is named ("painted ladies" → PaintedLady, "sheep" → Sheep).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field

# Irregular plurals of everyday English; regular ones are handled by suffix rules below.
IRREGULAR_PLURALS: dict[str, str] = {
    "men": "man", "women": "woman", "people": "person", "children": "child", "mice": "mouse",
    "geese": "goose", "feet": "foot", "teeth": "tooth", "oxen": "ox", "lice": "louse",
    "sheep": "sheep", "deer": "deer", "fish": "fish", "moose": "moose", "swine": "swine",
    "bison": "bison", "salmon": "salmon", "aircraft": "aircraft", "series": "series", "species": "species",
    "wolves": "wolf", "knives": "knife", "wives": "wife", "lives": "life", "leaves": "leaf",
    "halves": "half", "calves": "calf", "elves": "elf", "shelves": "shelf", "thieves": "thief",
    "loaves": "loaf", "selves": "self", "heroes": "hero", "potatoes": "potato", "tomatoes": "tomato",
    "echoes": "echo", "vetoes": "veto", "cacti": "cactus", "fungi": "fungus", "nuclei": "nucleus",
    "radii": "radius", "crises": "crisis", "analyses": "analysis", "theses": "thesis",
    "phenomena": "phenomenon", "criteria": "criterion", "bacteria": "bacterium", "data": "datum",
    "vertices": "vertex", "matrices": "matrix", "indices": "index", "dice": "die", "alumni": "alumnus",
}
_SINGULAR_OF_IRREGULAR = {singular for singular in IRREGULAR_PLURALS.values()}

# Endings that mark an adjective even though the word ends in "s" ("nervous", "careless", "crass").
_ADJECTIVE_S_ENDINGS = ("ous", "less", "ss", "us", "is", "ics")


def singularize(word: str) -> str:
    """Singular form of an English noun (lower-case in, lower-case out); non-plurals come back unchanged."""
    w = word.lower()
    if w in IRREGULAR_PLURALS:
        return IRREGULAR_PLURALS[w]
    if w in _SINGULAR_OF_IRREGULAR or len(w) <= 3 or not w.endswith("s"):
        return w
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"  # butterflies, ladies, tabbies
    if w.endswith("uses"):
        # wumpuses/impuses/buses drop "es"; houses/causes (vowel before "u") only drop "s"; "uses" is "use".
        return w[:-2] if len(w) > 4 and w[-5] not in "aeiou" else w[:-1]
    if w.endswith(("sses", "xes", "zzes", "ches", "shes")):
        return w[:-2]
    if w.endswith(_ADJECTIVE_S_ENDINGS):
        return w  # "nervous", "glass": not a plural
    return w[:-1]


def looks_plural(word: str) -> bool:
    """Whether a word's form is a plural noun's (irregular plural, or an -s form that is not an -ous/-ss word)."""
    w = word.lower()
    if w in IRREGULAR_PLURALS:
        return True
    return singularize(w) != w


def third_person(verb: str) -> str:
    """Third-person singular of a base-form verb: see → sees, chase → chases, carry → carries."""
    v = verb.lower()
    if v in ("be", "have", "do", "go"):
        return {"be": "is", "have": "has", "do": "does", "go": "goes"}[v]
    if v.endswith(("s", "x", "z", "ch", "sh")):
        return v + "es"
    if v.endswith("y") and len(v) > 1 and v[-2] not in "aeiou":
        return v[:-1] + "ies"
    return v + "s"


def predicate_name(words: Iterable[str]) -> str:
    """CamelCase predicate for a noun or adjective phrase: "six-legged" → SixLegged, "Mersenne prime" → MersennePrime."""
    parts = [p for w in words for p in re.split(r"[-_'\s]+", w) if p]
    name = "".join(re.sub(r"[^A-Za-z0-9]", "", p).lower().capitalize() for p in parts)
    if not name:
        raise ValueError("empty predicate name")
    return name if name[0].isalpha() else "P" + name


# Variables the translator binds; a constant with one of these names is renamed so it is never captured.
VARIABLE_NAMES = ("x", "y", "z", "u", "v", "w")


def constant_name(words: Iterable[str]) -> str:
    """Lower-case identifier for a named individual: "Fae" → fae, "bald eagle" → bald_eagle, "127" → n127."""
    parts = [re.sub(r"[^a-z0-9]", "", p) for w in words for p in re.split(r"[-\s]+", w.lower())]
    name = "_".join(p for p in parts if p)
    if not name:
        raise ValueError("empty constant name")
    if name[0].isdigit():
        return "n" + name
    return "c_" + name if name in VARIABLE_NAMES else name


@dataclass(frozen=True)
class Lexicon:
    """What a theory's own sentences reveal about its words: which are nouns, which adjectives.

    Built once per chain from every sentence in it (no global state). A word is a noun if it appears
    after "a"/"an", after a quantifier ("Every X", "No X"), or as the plural subject of "Xs are ...";
    an adjective if it stands alone after a singular "is" ("Max is sour").
    """

    nouns: frozenset[str] = field(default_factory=frozenset)
    adjectives: frozenset[str] = field(default_factory=frozenset)

    @classmethod
    def from_texts(cls, texts: Iterable[str]) -> Lexicon:
        """Collect noun and adjective evidence from raw text."""
        nouns: set[str] = set()
        adjectives: set[str] = set()
        for text in texts:
            # NFKC, as the parser reads text: a full-width word is evidence about the word a reader sees
            for sentence in re.split(r"[.!?;:]+", unicodedata.normalize("NFKC", text)):
                words = re.findall(r"[A-Za-z0-9][A-Za-z0-9'-]*", sentence)
                lower = [w.lower() for w in words]
                for i, w in enumerate(lower):
                    nxt = lower[i + 1] if i + 1 < len(lower) else None
                    if w in ("a", "an", "every", "each", "no", "some", "all") and nxt:
                        nouns.add(singularize(nxt) if w in ("no", "some", "all") else nxt)
                    if w == "is" and nxt and nxt not in _FUNCTION_WORDS:
                        after = lower[i + 2] if i + 2 < len(lower) else None
                        if nxt == "not" and after and after not in _FUNCTION_WORDS:
                            adjectives.add(after)
                        elif nxt != "not":
                            adjectives.add(nxt)
                if len(lower) >= 3 and lower[1] == "are" and looks_plural(lower[0]):
                    nouns.add(singularize(lower[0]))
        return cls(frozenset(nouns), frozenset(adjectives - nouns))

    def plural_is_noun(self, word: str) -> bool:
        """Decide a lone word after "are": noun if its singular is a known noun, else adjective if seen as
        one, else by its form (an -s plural such as "rompuses" is a noun; "nervous" is not)."""
        w = word.lower()
        singular = singularize(w)
        if singular != w and singular in self.nouns:
            return True
        if w in self.adjectives:
            return False
        return looks_plural(w)


_FUNCTION_WORDS = frozenset(
    ["a", "an", "the", "not", "either", "neither", "both", "and", "or", "nor", "if", "then", "is", "are", "it", "they", "something", "someone"]
)

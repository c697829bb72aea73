"""extract(): relations, bindings, cases and assumptions read from natural-language maths steps."""

import time

import pytest
import sympy

from reasonforge.verify.math_text import extract, extract_value
from reasonforge.verify.math_expr import to_text


def claims(text):
    return [r.text for r in extract(text).claims]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("So z² = 9 + 16 = 25", ["z^2 = 9 + 16", "9 + 16 = 25"]),
        ("By Pythagorean theorem, x² + y² = z²", ["x^2 + y^2 = z^2"]),
        ("0.2 x 50 = 10 and 3 × 4 ÷ 2 − 1 = 5", ["0.2*50 = 10", "3*4/2 - 1 = 5"]),
        ("√16 + π·0 = 4", ["sqrt(16) + pi*0 = 4"]),
        ("20% of 50 = 10", ["20%*50 = 10"]),
        ("The total is 1,000 + 2,000 = 3,000 dollars", ["1000 + 2000 = 3000"]),
        ("He paid $12 + $3 = $15 for 5 km", ["12 + 3 = 15"]),
        ("We get 2k + 3(x+1) = 2k + 3x + 3", ["2*k + 3*(x + 1) = 2*k + 3*x + 3"]),
        ("8 x 1 1/2 = 12 rolls", ["8*(1 + 1/2) = 12"]),
        ("So 10/3 ≈ 3.33 and 5 ≤ 7, 7 ≥ 5, 5 ≠ 6", ["10/3 ~= 3.33", "5 <= 7", "7 >= 5", "5 != 6"]),
        ("He will pay $7,980 : $420 = 19 months", ["7980/420 = 19"]),
    ],
)
def test_plain_text_relations(text, expected):
    assert claims(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (r"So \(\frac{1}{2} + \frac{1}{3} = \frac{5}{6}\).", ["1/2 + 1/3 = 5/6"]),
        (r"$\sqrt{16} \cdot 2 = 8$", ["sqrt(16)*2 = 8"]),
        (r"\[ 2^{10} \times 3 = 3072 \]", ["2^10*3 = 3072"]),
        (r"\(\left( 3 + 1 \right)^2 = 16\)", ["(3 + 1)^2 = 16"]),
        (r"The answer is \(\boxed{x = 5}\)", ["x = 5"]),
        (r"\(\sqrt[3]{27} = 3\) and \(\binom{5}{2} = 10\)", ["root(27, 3) = 3", "binomial(5, 2) = 10"]),
        (r"\(7 \le 8\), \(9 \ge 8\), \(1 \neq 2\)", ["7 <= 8", "9 >= 8", "1 != 2"]),
        (r"\(\sin 30^\circ = \frac{1}{2}\)", ["sin(30*(pi/180)) = 1/2"]),
        (r"\(BC = CD\)", ["BC = CD"]),
        (r"\(f(0) + 1 = 7\)", ["f_of_0 + 1 = 7"]),
    ],
)
def test_latex_relations(text, expected):
    assert claims(text) == expected


def test_relations_keep_spans_and_unevaluated_sympy_trees():
    text = "Natalia sold 48/2 = 24 clips."
    (rel,) = extract(text).claims
    assert text[rel.span[0]:rel.span[1]] == rel.source == "48/2 = 24"
    assert rel.origin == "text" and rel.op == "="
    assert str(rel.lhs) == "48/2" and rel.rhs == 24  # structure as written, not evaluated to 24
    eq = rel.sympy()
    assert isinstance(eq, sympy.Eq) and eq.doit() == sympy.true


def test_gsm8k_annotation_is_the_relation_and_its_echo_is_not_a_second_claim():
    text = "Natalia sold 48/2 = <<48/2=24>>24 clips in May."
    (rel,) = extract(text).claims
    assert rel.origin == "annotation" and rel.text == "48/2 = 24" and rel.source == "<<48/2=24>>"
    # the echo of a perturbed annotation is one (false) claim too, not two
    assert claims("Weng earns 12/60 = $<<12/60=0.3>>0.3 per minute.") == ["12/60 = 0.3"]


def test_words_in_prose_never_become_symbols():
    assert extract("Let x be the number of apples she has.").empty
    assert extract("I have a dog and x marks the spot").empty
    # a run cut by a word loses its cut side instead of being misread
    assert claims("6 monkeys / 10 animals * 100% = 60%") == []
    assert claims("12 = 5 + 3 apples + 4 apples") == []


def test_unit_conversions_are_skipped_with_a_note():
    math = extract("It takes 1 hour = 60 minutes")
    assert math.claims == () and "converts units" in math.notes[0]
    assert claims("That is 2 hours * 60 = 120 minutes") == []  # hours and minutes: skipped too
    assert claims("She earns $12 per hour * 5 hours = $60") == ["12*5 = 60"]  # a rate is not a conversion


def test_bindings_cases_and_assumptions():
    math = extract("Let x = 3 and y = 4")
    assert [r.text for r in math.bindings] == ["x = 3", "y = 4"] and not math.claims
    assert [r.text for r in extract("x is 3").bindings] == ["x = 3"]
    suppose = extract("Suppose n = 2k, where k is an integer.")
    assert [r.text for r in suppose.bindings] == ["n = 2*k"]
    assert [a.text for a in suppose.assumptions] == ["k is integer"]
    since = extract("Since z > 0, z = 5")
    assert [a.text for a in since.assumptions] == ["z > 0"] and [r.text for r in since.claims] == ["z = 5"]
    case = extract("If x = 2 then y = 5")
    assert [r.text for r in case.cases] == ["x = 2"] and [r.text for r in case.claims] == ["y = 5"]
    roots = extract(r"The roots are \(x = 2\) and \(x = \frac{1}{2}\).")
    assert [r.text for r in roots.cases] == ["x = 2", "x = 1/2"] and not roots.claims
    assert [r.text for r in extract("Therefore z = 5").claims] == ["z = 5"]


def test_domain_assumptions():
    texts = {
        r"where \(k\) is a positive integer": ("k is positive integer",),
        "for some integer m": ("m is integer",),
        r"with \(n \in \mathbb{N}\)": ("n is integer nonnegative",),
        "a and b are odd integers": ("a is odd integer", "b is odd integer"),
    }
    for text, expected in texts.items():
        assert tuple(a.text for a in extract(text).assumptions) == expected, text


def test_extract_value_reads_a_lone_answer():
    assert to_text(extract_value("#### 1,000")) == "1000"
    assert to_text(extract_value("$5")) == "5"
    assert extract_value("The answer is x") is None and extract_value("3 = 3") is None


@pytest.mark.parametrize(
    "text",
    [
        r"\(\frac{1}{2",
        r"\(\frac{1}{2\)} = }}} \sqrt[",
        "$" * 50 + "\\" * 50,
        "((((((((((" * 30 + "1 = 1",
        r"\(" + "{" * 500 + "1 = 1" + "}" * 500 + r"\)",
        "<<" + "1+" * 3000 + "1=1>>",
        "9" * 10_000 + " = 1",
        r"\(\sum_{i=1}^{n} i = 55\) and \(\lim_{x\to 0} x = 0\)",
        "x = x + 1",
        "\x00\ufffd = ½ ⁻¹",
    ],
)
def test_malformed_input_never_raises_or_hangs(text):
    started = time.perf_counter()
    math = extract(text)
    assert time.perf_counter() - started < 2.0
    assert isinstance(math.notes, tuple)


def test_unreadable_sides_are_noted():
    math = extract(r"\(\sum_{i=1}^{n} i = 55\)")
    assert math.empty and "could not read" in math.notes[0]

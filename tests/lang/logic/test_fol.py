"""The FOL/propositional parser, printer and renderers (no solver needed except for the Z3 encoding)."""

import pytest
import z3
from hypothesis import given, settings
from hypothesis import strategies as st

from reasonforge.errors import ArtifactSyntaxError
from reasonforge.lang.logic import (
    MAX_DEPTH,
    And,
    Atom,
    BoolConst,
    Const,
    Eq,
    FolParser,
    Iff,
    Implies,
    Not,
    Or,
    Quant,
    Signature,
    Var,
    Xor,
    Z3Encoding,
    parse_fol_artifact,
    parse_formula,
    signature_of,
    to_smtlib,
    to_smtlib_script,
    to_text,
)

P, Q, R, S = (Atom(n) for n in "PQRS")


def atom(name, *args):
    return Atom(name, tuple(args))


# ------------------------------------------------------------------------------------ connectives


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("¬P", Not(P)),
        ("~P", Not(P)),
        ("!P", Not(P)),
        ("-P", Not(P)),
        ("P ∧ Q", And((P, Q))),
        ("P & Q", And((P, Q))),
        ("P && Q", And((P, Q))),
        ("P ∨ Q", Or((P, Q))),
        ("P | Q", Or((P, Q))),
        ("P || Q", Or((P, Q))),
        ("P ⊕ Q", Xor((P, Q))),
        ("P ^ Q", Xor((P, Q))),
        ("P xor Q", Xor((P, Q))),
        ("P ⊻ Q", Xor((P, Q))),
        ("P → Q", Implies(P, Q)),
        ("P -> Q", Implies(P, Q)),
        ("P => Q", Implies(P, Q)),
        ("P ↔ Q", Iff(P, Q)),
        ("P <-> Q", Iff(P, Q)),
        ("P <=> Q", Iff(P, Q)),
        ("P ⟷ Q", Iff(P, Q)),
        ("⊤", BoolConst(True)),
        ("false", BoolConst(False)),
    ],
)
def test_every_connective_and_its_ascii_form(text, expected):
    assert parse_formula(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("¬P ∧ Q", And((Not(P), Q))),  # ¬ binds tightest
        ("P ∧ Q ∨ R", Or((And((P, Q)), R))),  # then ∧
        ("P ∨ Q ∧ R", Or((P, And((Q, R))))),
        ("P ∨ Q → R", Implies(Or((P, Q)), R)),  # then ∨/⊕, then →
        ("P ⊕ Q → R", Implies(Xor((P, Q)), R)),  # FOLIO: `A ⊕ B → C`
        ("P → Q ↔ R", Iff(Implies(P, Q), R)),  # ↔ loosest
        ("P → Q → R", Implies(P, Implies(Q, R))),  # → is right-associative
        ("P ↔ Q ↔ R", Iff(P, Iff(Q, R))),
        ("P ∨ Q ⊕ R", Xor((Or((P, Q)), R))),  # ∨ and ⊕ share a level, left to right
        ("P ⊕ Q ∨ R", Or((Xor((P, Q)), R))),
        ("P ∧ Q ∧ R", And((P, Q, R))),  # runs flatten
        ("(P ∧ Q) ∧ R", And((And((P, Q)), R))),  # parentheses are kept
        ("¬¬P", Not(Not(P))),
    ],
)
def test_precedence(text, expected):
    assert parse_formula(text) == expected


def test_quantifier_scope_extends_as_far_right_as_possible():
    # FOLIO writes both forms for a restricted universal; they must mean the same thing.
    with_parens = parse_formula("∀x (Celebrating(x) → Weddings(x))")
    without = parse_formula("∀x Celebrating(x) → Weddings(x)")
    assert with_parens == without == Quant("forall", "x", Implies(atom("Celebrating", Var("x")), atom("Weddings", Var("x"))))
    assert parse_formula("¬∀x P(x) ∧ Q") == Not(Quant("forall", "x", And((atom("P", Var("x")), Q))))
    assert parse_formula("(∀x P(x)) ∧ Q") == And((Quant("forall", "x", atom("P", Var("x"))), Q))


def test_quantifier_spellings_and_nesting():
    expected = Quant("forall", "x", Quant("exists", "y", atom("R", Var("x"), Var("y"))))
    for text in ("∀x ∃y R(x, y)", "forall x exists y R(x,y)", "∀x. ∃y. R(x, y)", "∀ x ∃ y (R(x, y))"):
        assert parse_formula(text) == expected


def test_terms_variables_constants_and_numerals():
    f = parse_formula("∀x (Visited(x, 127) ∧ From(x, new_york) → Likes(bob, x))")
    assert f == Quant("forall", "x", Implies(
        And((atom("Visited", Var("x"), Const("127")), atom("From", Var("x"), Const("new_york")))),
        atom("Likes", Const("bob"), Var("x")),
    ))
    # An identifier outside any quantifier is a constant, even if it looks like a variable.
    assert parse_formula("P(x)") == atom("P", Const("x"))
    # FOLIO names: an apostrophe inside a predicate, a space before the argument list.
    assert parse_formula("Companies’Stocks(kO)") == atom("Companies’Stocks", Const("kO"))
    assert parse_formula("Music (vicdicara, punk)") == atom("Music", Const("vicdicara"), Const("punk"))


def test_equality():
    assert parse_formula("a = b") == Eq(Const("a"), Const("b"))
    assert parse_formula("a ≠ b") == parse_formula("a != b") == Not(Eq(Const("a"), Const("b")))
    assert parse_formula("∃x ∃y (P(x) ∧ P(y) ∧ x ≠ y)") == Quant("exists", "x", Quant("exists", "y", And((
        atom("P", Var("x")), atom("P", Var("y")), Not(Eq(Var("x"), Var("y")))))))


# ------------------------------------------------------------------------------------------ errors


@pytest.mark.parametrize(
    ("text", "line", "column", "fragment"),
    [
        ("P(a) ∧", 1, 7, "expected a formula after '∧'"),
        ("(P(a) ∧ Q(a)", 1, 1, "unbalanced parenthesis opened at column 1"),
        ("P(a) ∧ (Q(a) ∨", 1, 15, "opened at column 8"),
        ("P(a))", 1, 5, "unmatched ')'"),
        ("P(a) Q(a)", 1, 6, "expected a connective"),
        ("P(a), Q(a)", 1, 5, "',' is not a connective"),
        ("∀ (P(x))", 1, 3, "expected a variable name after '∀'"),
        ("P(a,", 1, 2, "unbalanced parenthesis opened at column 2"),
        ("P()", 1, 3, "needs at least one argument"),
        ("P(f(a))", 1, 4, "function terms are not supported"),
        ("P(a) $ Q(a)", 1, 6, "unexpected character '$'"),
        ("P(a) ∧ P(a, b)", 1, 8, "used with 2 argument(s) here but with 1 at line 1, column 1"),
        ("P(a) ∧ Q(P)", 1, 10, "used as a constant here but as a predicate"),
        ("∀P Q(P) ∧ P", 1, 11, "used as a predicate here but as a variable"),
        ("", 1, 1, "empty"),
    ],
)
def test_errors_name_line_column_and_cause(text, line, column, fragment):
    with pytest.raises(ArtifactSyntaxError) as info:
        parse_formula(text)
    err = info.value
    assert (err.line, err.column) == (line, column), err.message
    assert fragment in err.message
    assert err.message.startswith(f"line {line}, column {column}: ")


def test_arity_clash_across_lines_of_an_artifact():
    with pytest.raises(ArtifactSyntaxError) as info:
        parse_fol_artifact("∀x (Likes(x) → Happy(x))\n\n⊢ Likes(ann, bob)")
    assert (info.value.line, info.value.column) == (3, 3)
    assert "'Likes' is used with 2 argument(s) here but with 1 at line 1, column 5" in info.value.message


def test_deep_nesting_is_a_syntax_error_not_a_crash():
    with pytest.raises(ArtifactSyntaxError, match="nested too deeply"):
        parse_formula("(" * 10_000 + "P" + ")" * 10_000)
    with pytest.raises(ArtifactSyntaxError, match="nested too deeply"):
        parse_formula("¬" * 10_000 + "P")
    assert parse_formula("(" * (MAX_DEPTH - 2) + "P" + ")" * (MAX_DEPTH - 2)) == P
    long = " ∧ ".join(f"P{i}" for i in range(5_000))  # long but flat: fine
    assert len(parse_formula(long).args) == 5_000


def test_propositional_mode_rejects_fol_constructs():
    for text, fragment in [("P(a)", "take no arguments"), ("∀x P", "quantifiers are not allowed"),
                           ("a = b", "equality is not allowed")]:
        with pytest.raises(ArtifactSyntaxError, match=fragment):
            parse_formula(text, propositional=True)
    assert parse_formula("rain ∧ (rain → wet)", propositional=True) == And((Atom("rain"), Implies(Atom("rain"), Atom("wet"))))


# ----------------------------------------------------------------------------------------- lenient


def test_lenient_repairs_folio_slips_and_reports_them():
    parser = FolParser(lenient=True)
    # FOLIO validation row 2: one ')' too many; dropping it keeps the quantifier's scope.
    fixed = parser.parse("∀x ((Orlando(x) ∨ Miami(x)) ∧ Florida(x)) → WantToGo(x))")
    assert fixed == parse_formula("∀x (((Orlando(x) ∨ Miami(x)) ∧ Florida(x)) → WantToGo(x))")
    # FOLIO validation row 60: a comma used as a connective.
    assert parser.parse("∀x ∀y (Movie(x), NamedAfter(x, y) → Good(y))", line=2) == parse_formula(
        "∀x ∀y (Movie(x) ∧ NamedAfter(x, y) → Good(y))")
    assert parser.parse("(Good(a) ∧ Movie(a)", line=3) == parse_formula("Good(a) ∧ Movie(a)")
    assert parser.repairs == [
        "line 1, column 56: dropped an unmatched ')'",
        "line 2, column 16: read ',' as '∧'",
        "line 3, column 20: added 1 missing ')' at the end of the line",
    ]


def test_strict_is_the_default():
    with pytest.raises(ArtifactSyntaxError):
        FolParser().parse("∀x (P(x), Q(x))")


# ---------------------------------------------------------------------------------------- artifact


def test_artifact_format():
    art = parse_fol_artifact("# the whale\n∀x (Whale(x) → Mammal(x))\n\n  Whale(moby)\n⊢ Mammal(moby)\n")
    assert art.premise_lines == [2, 4] and art.conclusion_line == 5
    assert art.conclusion == atom("Mammal", Const("moby"))
    ascii_art = parse_fol_artifact("forall x (Whale(x) -> Mammal(x))\nWhale(moby)\n|- Mammal(moby)")
    assert ascii_art.premises == art.premises and ascii_art.conclusion == art.conclusion
    assert parse_fol_artifact("⊢ P ∨ ¬P").premises == []


@pytest.mark.parametrize(
    ("text", "line", "column", "fragment"),
    [
        ("", 1, 1, "empty artifact"),
        ("# only a comment\n\n", 1, 1, "empty artifact"),
        ("P\nQ", 2, 1, "no conclusion line"),
        ("P\n⊢ Q\nR", 3, 1, "nothing may follow the conclusion line"),
        ("P\n⊢   ", 2, 2, "no formula after '⊢'"),
        ("P\n⊢ Q ∧", 2, 6, "expected a formula after '∧'"),
        ("P\n  |- (Q", 2, 6, "unbalanced parenthesis opened at column 6"),
    ],
)
def test_artifact_errors(text, line, column, fragment):
    with pytest.raises(ArtifactSyntaxError) as info:
        parse_fol_artifact(text)
    assert (info.value.line, info.value.column) == (line, column), info.value.message
    assert fragment in info.value.message


# --------------------------------------------------------------------------------- printing, round trips


@pytest.mark.parametrize(
    "text",
    [
        "∀x (Whale(x) → Mammal(x))",
        "(Engaged(bonnie) ∧ Students(bonnie)) ⊕ (¬Engaged(bonnie) ∧ ¬Students(bonnie))",
        "AcademicCareer(bonnie) ⊕ Chaperone(bonnie) → AcademicCareer(bonnie) ⊕ Inactive(bonnie)",
        "∀x ∀y (GoodGuy(x) ∧ Fights(x, y) ⟷ BadGuy(y) ∧ Fights(y, x))",
        "¬(∃x (FinancialAid(x)))",
        "(P → Q) → R",
        "P ∧ (Q ∧ R)",
        "(P ∨ Q) ⊕ R",
        "¬∀x P(x) ∧ Q",
        "(∀x P(x)) ∧ Q",
        "∃x ∃y (P(x) ∧ P(y) ∧ x ≠ y)",
        "∀x (x = a) ∨ ⊥",
    ],
)
def test_round_trip_text(text):
    f = parse_formula(text)
    assert parse_formula(to_text(f)) == f
    assert parse_formula(to_text(f, ascii=True)) == f
    assert to_text(parse_formula(to_text(f))) == to_text(f)
    assert parse_formula(to_text(f, explicit=True)) == f


def test_printer_uses_folio_notation():
    assert to_text(parse_formula("forall x (Whale(x) -> Mammal(x))")) == "∀x (Whale(x) → Mammal(x))"
    assert to_text(parse_formula("∀x (Whale(x) → Mammal(x))"), ascii=True) == "forall x (Whale(x) -> Mammal(x))"


@pytest.mark.parametrize(
    ("text", "explicit"),
    [
        ("∀x P(x)", "∀x (P(x))"),
        ("P ∧ Q → R", "(P ∧ Q) → R"),
        ("P → (∃y R(y, y))", "P → (∃y (R(y, y)))"),
        ("¬¬P ∧ ¬¬¬Q", "(¬¬P) ∧ (¬(¬¬Q))"),
        ("¬∀x P(x)", "¬(∀x (P(x)))"),
        ("a ≠ b ∨ a = b", "a ≠ b ∨ a = b"),
    ],
)
def test_explicit_printing_brackets_every_compound_operand(text, explicit):
    assert to_text(parse_formula(text), explicit=True) == explicit


_NAMES = st.sampled_from(["P", "Q", "R"])
_CONSTS = st.sampled_from(["a", "b", "c1"])


@st.composite
def fol_formulas(draw, depth=3, bound=()):
    """Random FOL formulas over P/1, R/2 and 0-ary S, with quantifiers and equality."""
    terms = st.one_of(_CONSTS.map(Const), *([st.sampled_from(bound).map(Var)] if bound else []))
    if depth == 0 or draw(st.booleans()):
        kind = draw(st.sampled_from(["P", "R", "S", "eq", "bool"]))
        if kind == "P":
            return Atom("P", (draw(terms),))
        if kind == "R":
            return Atom("R", (draw(terms), draw(terms)))
        if kind == "eq":
            return Eq(draw(terms), draw(terms))
        if kind == "bool":
            return BoolConst(draw(st.booleans()))
        return Atom("S")
    kind = draw(st.sampled_from(["not", "and", "or", "xor", "implies", "iff", "forall", "exists"]))
    sub = fol_formulas(depth - 1, bound)
    if kind == "not":
        return Not(draw(sub))
    if kind in ("and", "or", "xor"):
        return {"and": And, "or": Or, "xor": Xor}[kind](tuple(draw(st.lists(sub, min_size=2, max_size=3))))
    if kind in ("implies", "iff"):
        return (Implies if kind == "implies" else Iff)(draw(sub), draw(sub))
    var = draw(st.sampled_from(["x", "y"]))
    return Quant(kind, var, draw(fol_formulas(depth - 1, tuple(sorted({*bound, var})))))


@settings(max_examples=300, deadline=None)
@given(fol_formulas())
def test_parse_of_print_is_identity(formula):
    assert parse_formula(to_text(formula)) == formula
    assert parse_formula(to_text(formula, ascii=True)) == formula
    assert parse_formula(to_text(formula, explicit=True)) == formula


@settings(max_examples=50, deadline=None)
@given(fol_formulas())
def test_smtlib_rendering_is_equivalent_to_the_z3_encoding(formula):
    # The text cvc5 reads and the terms Z3 builds must be the same formula.
    ctx = z3.Context()
    direct = Z3Encoding(signature_of([formula]), ctx).encode(formula)
    rendering = to_smtlib([formula])
    parsed = z3.parse_smt2_string(rendering.declarations + f"\n(assert {rendering.terms[0]})", ctx=ctx)[0]
    solver = z3.Solver(ctx=ctx)
    solver.add(z3.Not(direct == parsed))
    assert solver.check() == z3.unsat


def test_smtlib_script_for_the_translator():
    art = parse_fol_artifact("∀x (Whale(x) → Mammal(x))\nWhale(moby)\n⊢ Mammal(moby)")
    script = to_smtlib_script(art.premises, art.conclusion)
    assert script.splitlines()[0] == "(set-logic UF)"
    assert "(assert (not (Mammal moby)))" in script
    # Awkward names are quoted and reserved words can never clash with declarations.
    odd = to_smtlib([parse_formula("Companies’Stocks(kO) ∧ P(127) ∧ true ∧ Bool(and)")])
    assert "|Companies’Stocks|" in odd.declarations and "|127|" in odd.declarations
    assert "|and!|" in odd.declarations and "|Bool!|" in odd.declarations


def test_signature():
    sig = signature_of([parse_formula("∀x (P(x) → R(x, a))"), parse_formula("S ∧ b = a")])
    assert sig == Signature(predicates={"P": 1, "R": 2, "S": 0}, constants=["a", "b"], quantified=True, equality=True)

"""AST mutants: operators, tests never mutated, deterministic capped selection, no equivalent duplicates."""

from __future__ import annotations

import ast

from reasonforge.verify.code.mutants import (
    generate_mutants,
    implementation_nodes,
    is_test_function,
)

SRC = '''
from hypothesis import given, strategies as st

def clamp(x, lo, hi):
    if x < lo:
        return lo
    return min(x, hi)

def window(xs, i, j):
    return xs[i:j]

def total(xs):
    s = 0
    for x in xs:
        s += x * 2
    return s > 0 and s

def test_clamp():
    assert clamp(5, 0, 3) == 3

@given(st.integers())
def prop_clamp(x):
    assert 0 <= clamp(x, 0, 3) <= 3

class TestThings:
    def test_total(self):
        assert total([1]) == 2
'''


def _ops(mutants):
    return {m.operator for m in mutants}


def test_every_operator_appears_and_each_mutant_compiles():
    mutants = generate_mutants(SRC, max_mutants=1000)
    assert {"cmp", "const", "slice", "arith", "bool", "return"} <= _ops(mutants)
    for m in mutants:
        compile(m.source, "<m>", "exec")
        assert m.source != ast.unparse(ast.parse(SRC))
    assert len({m.source for m in mutants}) == len(mutants)  # no duplicates


def test_specific_mutations_are_generated():
    changes = {m.description.split(": ", 1)[1] for m in generate_mutants(SRC, max_mutants=1000)}
    assert "x < lo → x <= lo" in changes
    assert "i:j → i + 1:j" in changes
    assert "i:j → i:j - 1" in changes
    assert "s += x * 2 → s -= x * 2" in changes
    assert "x * 2 → x / 2" in changes
    assert "0 → 1" in changes
    assert "x < lo → not x < lo" in changes
    assert "s > 0 and s → s > 0 or s" in changes
    assert "return lo → return type(lo)()" in changes
    assert "return s > 0 and s → return type(s > 0 and s)()" in changes


def test_return_values_are_replaced_by_a_wrong_value_of_the_same_type():
    src = ("def f(x):\n    return x\n\ndef g():\n    return True\n\ndef h():\n    return 0\n\n"
           "def k():\n    return 'ab'\n\ndef m():\n    return []\n\ndef n():\n    return {1}\n")
    changes = {m.description.split(": ", 1)[1] for m in generate_mutants(src, max_mutants=100) if m.operator == "return"}
    assert changes == {"return x → return type(x)()", "return True → return False", "return 0 → return None",
                       "return 'ab' → return ''", "return [] → return None", "return {1} → return set()"}
    for value, empty in ((7, 0), (2.5, 0.0), ("ab", ""), ([1], []), ((1,), ()), ({1: 2}, {}), ({1}, set()), (True, False)):
        assert type(value)() == empty and type(type(value)()) is type(value)  # what the mutant returns


def test_tests_properties_and_test_classes_are_never_mutated():
    tree = ast.parse(SRC)
    names = [f.name for f in implementation_nodes(tree)]
    assert names == ["clamp", "window", "total"]
    for m in generate_mutants(SRC, max_mutants=1000):
        mutated = {n.name: ast.dump(n) for n in ast.walk(ast.parse(m.source)) if isinstance(n, ast.FunctionDef)}
        original = {n.name: ast.dump(n) for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
        for name in ("test_clamp", "prop_clamp", "test_total"):
            assert mutated[name] == original[name]


def test_assert_helpers_called_only_by_tests_are_not_implementation():
    src = "def f(x):\n    return x + 1\n\ndef check(candidate):\n    assert candidate(1) == 2\n\ndef test_f():\n    check(f)\n"
    assert [f.name for f in implementation_nodes(ast.parse(src))] == ["f"]
    assert all("candidate" not in m.before for m in generate_mutants(src, max_mutants=100))


def test_selection_is_deterministic_capped_and_seeded():
    a = generate_mutants(SRC, seed=1, max_mutants=5)
    b = generate_mutants(SRC, seed=1, max_mutants=5)
    c = generate_mutants(SRC, seed=2, max_mutants=5)
    assert [m.source for m in a] == [m.source for m in b]
    assert len(a) == 5 and [m.id for m in a] == list(range(5))
    assert [m.source for m in a] != [m.source for m in c]
    assert [m.line for m in a] == sorted(m.line for m in a)  # returned in source order


def test_equivalent_by_ast_is_skipped():
    # a bare function with nothing to mutate gives nothing
    assert generate_mutants("def f():\n    pass\n\ndef test_f():\n    f()\n") == []
    src = "def f(x):\n    return x\n"
    assert [m.description for m in generate_mutants(src)] == ["line 2: return x → return type(x)()"]


def test_is_test_function():
    tree = ast.parse(SRC)
    funcs = {n.name: n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    assert is_test_function(funcs["test_clamp"]) and is_test_function(funcs["prop_clamp"])
    assert not is_test_function(funcs["clamp"])


def test_diff_is_short():
    m = generate_mutants("def f(x):\n    return x + 1\n", max_mutants=10)[0]
    diff = m.diff(ast.unparse(ast.parse("def f(x):\n    return x + 1\n")))
    assert diff.count("\n") <= 3 and diff.startswith("@@")


def test_draw_order_makes_a_small_draw_the_prefix_of_a_large_one():
    small = generate_mutants(SRC, seed=3, max_mutants=4, draw_order=True)
    large = generate_mutants(SRC, seed=3, max_mutants=12, draw_order=True)
    assert [m.source for m in small] == [m.source for m in large[:4]]
    assert {m.source for m in small} == {m.source for m in generate_mutants(SRC, seed=3, max_mutants=4)}

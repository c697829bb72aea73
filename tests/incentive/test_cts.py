"""CTS and its efficiency term against hand-computed values (plan Eq. 2)."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reasonforge.errors import InputError
from reasonforge.incentive import cts, efficiency, gated_cts

unit = st.floats(min_value=0.0, max_value=1.0)


def test_efficiency_linear_window_hand_computed():
    # ratio 1000/10000 = 0.1 → 1 − 0.4·0.1 = 0.96
    assert efficiency(1000, 10000) == pytest.approx(0.96)
    # ratio 0.5 → 1 − 0.2 = 0.8
    assert efficiency(150_000, 300_000) == pytest.approx(0.8)


def test_efficiency_boundaries_belong_to_the_linear_part():
    # exactly 2 % of the timeout: not "< 2 %", so 1 − 0.4·0.02 = 0.992
    assert efficiency(200, 10000) == pytest.approx(0.992)
    # just under 2 %: suspicious → 0.1
    assert efficiency(199.9, 10000) == 0.1
    assert efficiency(0, 10000) == 0.1
    # exactly the timeout: not "> 100 %", so 1 − 0.4 = 0.6
    assert efficiency(10000, 10000) == pytest.approx(0.6)
    # past it: 0
    assert efficiency(10000.001, 10000) == 0.0
    assert efficiency(50_000, 10000) == 0.0


def test_cts_hand_computed():
    # 0.45·1 + 0.30·1 + 0.15·1 + 0.10·0.96 = 0.996
    assert cts(1, 1, 1, 1000, 10000) == pytest.approx(0.996)
    # 0.45·0.5 + 0.30·0.8 + 0.15·1 + 0.10·(1 − 0.4·0.3) = 0.225 + 0.24 + 0.15 + 0.088 = 0.703
    assert cts(0.5, 0.8, 1.0, 3000, 10000) == pytest.approx(0.703)
    # suspiciously fast but perfect: 0.9 + 0.10·0.1 = 0.91
    assert cts(1, 1, 1, 10, 10000) == pytest.approx(0.91)
    # nothing and late: 0
    assert cts(0, 0, 0, 20000, 10000) == 0.0


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"compilation": 1.5}, "compilation"),
        ({"correctness": -0.1}, "correctness"),
        ({"completeness": math.nan}, "completeness"),
        ({"time_ms": -1.0}, "time_ms"),
        ({"timeout_ms": 0.0}, "timeout_ms"),
        ({"timeout_ms": -5.0}, "timeout_ms"),
        ({"time_ms": math.inf}, "time_ms"),
        ({"compilation": "high"}, "compilation"),
    ],
)
def test_cts_rejects_bad_inputs_naming_the_field(kwargs, field):
    args = {"compilation": 1.0, "correctness": 1.0, "completeness": 1.0, "time_ms": 100.0, "timeout_ms": 1000.0}
    args.update(kwargs)
    with pytest.raises(InputError) as info:
        cts(**args)
    assert info.value.field == field
    assert field in info.value.message


@given(unit, unit, unit, st.floats(min_value=0, max_value=1e7), st.floats(min_value=1e-3, max_value=1e7))
def test_cts_always_in_unit_interval(compilation, correctness, completeness, time_ms, timeout_ms):
    value = cts(compilation, correctness, completeness, time_ms, timeout_ms)
    assert 0.0 <= value <= 1.0


@given(st.floats(min_value=0, max_value=1e6), st.floats(min_value=1e-3, max_value=1e6))
def test_efficiency_in_its_three_bands(time_ms, timeout_ms):
    value = efficiency(time_ms, timeout_ms)
    ratio = time_ms / timeout_ms
    if ratio < 0.02:
        assert value == 0.1
    elif ratio > 1.0:
        assert value == 0.0
    else:
        assert 0.6 - 1e-12 <= value <= 0.992 + 1e-12


def test_gated_cts_pays_the_seed_formula_for_a_full_translation_that_holds():
    # every step translated, decided, held and compiled: exactly the seed's CTS
    assert gated_cts(4, 4, 4, 4, 4, 1000, 10000) == pytest.approx(cts(1, 1, 1, 1000, 10000)) == pytest.approx(0.996)


def test_gated_cts_pays_nothing_for_artifacts_that_decide_nothing():
    # a vacuous miner: every step translated and compiled, none decided, answered fast: the seed paid it
    # 0.45 + 0.15 + 0.10·efficiency (plus its agreement on the steps nobody verified)
    assert cts(1, 0, 1, 1000, 10000) == pytest.approx(0.696)
    assert gated_cts(4, 4, 0, 0, 0, 1000, 10000) == 0.0
    # deciding without holding earns nothing either: every verdict disagrees with the reference
    assert gated_cts(4, 4, 3, 0, 0, 1000, 10000) == 0.0


def test_gated_cts_hand_computed_for_a_partial_translation():
    # 6 steps, 4 translated, 3 decided, 2 held, both compiled, ratio 0.1 (efficiency 0.96):
    # 0.45·2/6 + 0.30·2/3 + 0.15·2/6 + 0.10·0.96·2/6 = 0.15 + 0.2 + 0.05 + 0.032 = 0.432
    assert gated_cts(6, 4, 3, 2, 2, 1000, 10000) == pytest.approx(0.432)
    # leaving the undecidable steps untranslated gains nothing: Compilation is over the task's steps
    assert gated_cts(6, 3, 3, 2, 2, 1000, 10000) == gated_cts(6, 4, 3, 2, 2, 1000, 10000)


@pytest.mark.parametrize(("args", "field"), [
    ((0, 0, 0, 0, 0), "steps"),
    ((4, 5, 0, 0, 0), "translated"),
    ((4, 2, 3, 0, 0), "decided"),
    ((4, 4, 2, 3, 0), "held"),
    ((4, 4, 2, 2, 3), "compiled_held"),
])
def test_gated_cts_refuses_inconsistent_counts_naming_the_field(args, field):
    with pytest.raises(InputError) as info:
        gated_cts(*args, 1000, 10000)
    assert info.value.field == field

"""Fixed-point text for printed numbers: a value that rounds to zero never prints as a negative zero."""

import pytest

from reasonforge.forecast.numbers import fixed


@pytest.mark.parametrize(("value", "digits", "text"), [
    (-1e-17, 4, "0.0000"), (-0.0, 4, "0.0000"), (-0.00004, 4, "0.0000"), (-0.00006, 4, "-0.0001"),
    (0.12345678, 2, "0.12"), (-0.5, 1, "-0.5"), (1.0, 3, "1.000"),
])
def test_fixed_prints_no_negative_zero(value, digits, text):
    assert fixed(value, digits) == text


def test_fixed_with_a_sign_and_a_missing_value():
    assert fixed(-1e-12, 3, sign=True) == "+0.000"
    assert fixed(-0.25, 2, sign=True) == "-0.25" and fixed(0.25, 2, sign=True) == "+0.25"
    assert fixed(None) == "-" and fixed(None, missing="–") == "–"

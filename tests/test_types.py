"""The typed views of verdict details: ErrorKind and the Spec accessors on StepVerdict / CheckOutcome."""

import json

import pytest

from reasonforge import registry, types
from reasonforge.types import CheckOutcome, ErrorKind, Spec, StepStatus, StepVerdict


def verdict(**details):
    return StepVerdict(step_id=1, verified=False, status=StepStatus.FAILED, details=details)


def test_error_kind_serialises_as_its_plain_string():
    sv = verdict(error_kind=ErrorKind.SYNTAX, relations=[{"error_kind": ErrorKind.ARITHMETIC}])
    plain = verdict(error_kind="syntax", relations=[{"error_kind": "arithmetic"}])
    assert sv.model_dump_json() == plain.model_dump_json()
    assert json.dumps(sv.model_dump()) == json.dumps(plain.model_dump())
    assert ErrorKind.SYNTAX == "syntax" and f"{ErrorKind.TOO_LARGE}" == "too_large"


def test_error_kind_values_are_unique_snake_case():
    values = [kind.value for kind in ErrorKind]
    assert len(values) == len(set(values))
    assert all(v.replace("_", "").isalpha() and v == v.lower() for v in values)


@pytest.mark.parametrize("model", [verdict, lambda **d: CheckOutcome(status=StepStatus.ERROR, details=d)])
def test_error_kind_accessor(model):
    assert model(error_kind="timeout").error_kind is ErrorKind.TIMEOUT
    assert model(error_kind=ErrorKind.COMPILE).error_kind is ErrorKind.COMPILE
    assert model().error_kind is None
    assert model(error_kind="a_kind_from_elsewhere").error_kind is None
    assert model(error_kind=["not", "a", "kind"]).error_kind is None


def test_checker_and_translator_spec_accessors():
    sv = verdict(spec={"name": "sympy-relations", "version": "1.1", "args": {"sympy": "1.14.0"}},
                 translator={"name": "math-rules", "version": "1.1", "args": {}})
    assert sv.checker_spec == Spec(name="sympy-relations", version="1.1", args={"sympy": "1.14.0"})
    assert sv.translator_spec == Spec(name="math-rules", version="1.1")
    assert verdict().checker_spec is None and verdict().translator_spec is None
    assert verdict(spec={"version": "1"}).checker_spec is None  # not a spec: no name
    assert verdict(spec="sympy").checker_spec is None


def test_accessors_are_not_fields():
    sv = verdict(error_kind="syntax", spec={"name": "n", "version": "v"})
    assert set(sv.model_dump()) == {"step_id", "verified", "status", "error_message", "formal_representation",
                                    "details"}
    assert "checker_spec" not in StepVerdict.model_json_schema()["properties"]


def test_spec_is_still_importable_from_the_registry():
    assert registry.Spec is types.Spec

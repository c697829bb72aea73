"""The typed fields that decide a verdict (error kind, evidence, specs) and the domain's artifact languages."""

import json
from enum import Enum

import pytest
from pydantic import ValidationError

from reasonforge import registry, types
from reasonforge.types import (
    DOMAIN_LANGUAGES,
    ArtifactLanguage,
    CheckOutcome,
    Domain,
    ErrorKind,
    Evidence,
    EvidenceKind,
    Formaliser,
    Spec,
    StepStatus,
    StepVerdict,
    Supplier,
)


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


@pytest.mark.parametrize("model", [
    lambda **f: StepVerdict(step_id=1, verified=False, status=StepStatus.FAILED, **f),
    lambda **f: CheckOutcome(status=StepStatus.ERROR, **f),
])
def test_the_error_kind_is_a_typed_field(model):
    assert model(error_kind="timeout").error_kind is ErrorKind.TIMEOUT
    assert model(error_kind=ErrorKind.COMPILE).error_kind is ErrorKind.COMPILE
    assert model().error_kind is None
    for bad in ("a_kind_from_elsewhere", ["not", "a", "kind"]):
        with pytest.raises(ValidationError):
            model(error_kind=bad)
    # a key in the diagnostics decides nothing
    assert model(details={"error_kind": "timeout"}).error_kind is None


def test_what_decides_a_step_is_typed_and_the_details_are_diagnostics():
    fields = set(StepVerdict.model_fields)
    assert {"error_kind", "evidence", "checker_spec", "translator_spec", "local_status", "invalidated_by"} <= fields
    sv = StepVerdict(step_id=1, verified=False, status=StepStatus.FAILED,
                     checker_spec=Spec(name="sympy-relations", version="1.1", args={"sympy": "1.14.0"}),
                     details={"spec": {"name": "forged", "version": "0"}})
    assert sv.checker_spec == Spec(name="sympy-relations", version="1.1", args={"sympy": "1.14.0"})
    assert sv.translator_spec is None
    back = StepVerdict.model_validate_json(sv.model_dump_json())
    assert back == sv and back.checker_spec.name == "sympy-relations"


def test_evidence_is_full_only_for_a_full_kind_not_supplied_by_the_author_and_without_assumptions():
    claim = Evidence(kind=EvidenceKind.CLAIM, aligned_claim="c", formaliser=Formaliser.OFFLINE_READER)
    assert claim.full and claim.supplied_by is Supplier.PROOF
    assert not claim.model_copy(update={"supplied_by": Supplier.AUTHOR}).full
    assert not claim.model_copy(update={"assumptions": ["All mammals are warm-blooded."]}).full
    for kind in (EvidenceKind.CONDITIONAL, EvidenceKind.RELATIONS, EvidenceKind.AUTHOR_TESTS):
        assert not claim.model_copy(update={"kind": kind}).full
    assert claim.model_copy(update={"kind": EvidenceKind.EXAMPLES, "supplied_by": Supplier.QUESTION}).full


def test_every_domain_accepts_its_own_languages_only():
    assert DOMAIN_LANGUAGES[Domain.LOGIC] == {ArtifactLanguage.FOL, ArtifactLanguage.PROPOSITIONAL,
                                              ArtifactLanguage.SMTLIB}
    assert DOMAIN_LANGUAGES[Domain.MATHEMATICS] == {ArtifactLanguage.SYMPY, ArtifactLanguage.COQ,
                                                    ArtifactLanguage.LEAN4}
    assert DOMAIN_LANGUAGES[Domain.CODE] == {ArtifactLanguage.PYTHON}
    languages = [lang for accepted in DOMAIN_LANGUAGES.values() for lang in accepted]
    assert sorted(languages) == sorted(ArtifactLanguage)  # each language has exactly one domain


def test_spec_is_still_importable_from_the_registry():
    assert registry.Spec is types.Spec


def test_every_kind_prints_as_its_value():
    # print(verdict.overall) and f"{step.status}" show what the JSON says (PARTIAL), never Overall.PARTIAL
    kinds = [k for k in vars(types).values() if isinstance(k, type) and issubclass(k, Enum) and k.__module__ ==
             types.__name__]
    assert types.Overall in kinds and types.StepStatus in kinds
    for kind in kinds:
        for member in kind:
            assert (str(member), f"{member}", f"{member:>0}") == (member.value,) * 3, member

"""What a person is shown of one verdict: whether anything the reader trusts vouches for it (`attestation`), each
step beside its text, evidence, checker and failure, the step DAG laid out for drawing, and the hashes that tie the
page to the task, the verdict and the certificate.

The HTML page and the PDF report read the same `VerdictView`, so they cannot disagree about a step or about
whether the verdict is attested."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from hashlib import sha256
from typing import Any

from reasonforge.certificate import VerificationCertificate
from reasonforge.certificate.binding import check_against_verdict
from reasonforge.chain import StepGraph, digest_of, overall_of, task_hash
from reasonforge.errors import InputError
from reasonforge.report.attestation import Attestation, Standing, attest
from reasonforge.report.methodology import TOOL_NAMES, Paragraph, methodology, tools_ran
from reasonforge.report.text import TextPart, text_parts
from reasonforge.types import (
    Assurance,
    EvidenceKind,
    Formaliser,
    Overall,
    ProvedBy,
    RelationProof,
    Spec,
    StepStatus,
    StepVerdict,
    Supplier,
    VerificationVerdict,
    VerifyRequest,
)

__all__ = ["Attestation", "Certified", "DagLayout", "OtherFailure", "StepView", "VerdictView", "build_view",
           "certified_from"]

MAX_SHOWN = 20_000
"""Characters of one artifact, message or test output shown; the rest is cut with a note (the JSON has it all)."""

# What each assurance means to a reader who has not read the code: one sentence each.
ASSURANCE_TEXT: dict[Assurance, str] = {
    Assurance.PROVEN: "every step's claim was proven from the question's givens and the steps it rests on",
    Assurance.CONDITIONAL: "every step's claim was proven, but some only from premises the steps state that are "
                           "neither given, derived nor contradicted (the assumptions listed)",
    Assurance.CORROBORATED: "every step was proven or, for a word problem, its quantities agree with independent "
                            "formalisations of the question",
    Assurance.ARITHMETIC: "every step was checked, but some only on the arithmetic inside their text, not on what "
                          "the text says it means",
    Assurance.SELF_TESTED: "every step was checked, but some code only against its author's own tests",
    Assurance.UNPROVEN: "nothing was refuted, but not every claim could be proven",
    Assurance.REFUTED: "a step was refuted by its checker",
}


# What each kind of evidence is, who formalised the claim and whose material it is, in a reader's words (the
# verdict JSON keeps the enum values).
EVIDENCE_TEXT: dict[EvidenceKind, str] = {
    EvidenceKind.CLAIM: "the step's whole claim, proven from the question's givens and the steps it uses",
    EvidenceKind.CONDITIONAL: "the step's claim, proven from premises it states that nothing gives, derives or "
                              "contradicts",
    EvidenceKind.RELATIONS: "every relation the step's text states, checked exactly (not the prose around them)",
    EvidenceKind.THEOREM: "a theorem whose statement matches the step's text, compiled",
    EvidenceKind.EXAMPLES: "examples and claims the implementation's author did not write",
    EvidenceKind.AUTHOR_TESTS: "only the author's own tests and examples",
    EvidenceKind.CORROBORATED: "the relations, with their quantities matching independent formalisations of the "
                               "question",
}
FORMALISER_TEXT: dict[Formaliser, str] = {
    Formaliser.OFFLINE_READER: "read from the step's text by the rules",
    Formaliser.ARTIFACT: "the step's formal artifact, matched to the rules' reading of its text",
    Formaliser.QUESTION_MODEL: "a model's formalisation of the question alone (it never saw the reasoning)",
    Formaliser.EXAMPLE_WRITER: "examples a model wrote from the texts (it never saw the implementation)",
}
SUPPLIER_TEXT: dict[Supplier, str] = {
    Supplier.PROOF: "proven by the checker",
    Supplier.QUESTION: "the question's own examples",
    Supplier.INDEPENDENT: "written independently of the reasoning",
    Supplier.AUTHOR: "the reasoning's author's own",
}


@dataclass(frozen=True)
class FailingTest:
    """One failing test or property, as the checker reported it."""

    test: str
    outcome: str
    message: str


@dataclass(frozen=True)
class OtherFailure:
    """A test that also failed in a step's run but was written in another step (its artifact includes the code and
    tests of the steps it uses): shown under that step, named here."""

    test: str
    step_id: int


@dataclass(frozen=True)
class StepView:
    """One step: its text and place in the DAG beside what the checker made of it."""

    step_id: int
    content: str
    dependencies: tuple[int, ...]
    status: StepStatus
    message: str
    aligned_claim: str
    evidence_kind: str  # the enum values, as the verdict JSON has them
    formaliser: str
    supplied_by: str
    evidence_text: str  # the same in a reader's words
    evidence_by: str
    assumptions: tuple[str, ...]  # premises the step was proven from that nobody gave
    evidence_note: str
    language: str
    artifact: str
    checker: str  # the checker's display name (`Spec.display_name`), the same everywhere
    checker_tools: tuple[str, ...]  # the tools that ran for this step, with their versions
    checker_settings: str
    translator: str
    elapsed_ms: float | None
    failing_tests: tuple[FailingTest, ...]  # this step's own tests and properties
    other_failures: tuple[OtherFailure, ...]  # tests of the steps it uses that failed in its run too
    counterexample: str
    invalidated_by: tuple[int, ...]  # the failed step(s) it depends on
    local_status: str
    content_parts: tuple[TextPart, ...] = ()
    proved_by: tuple[str, ...] = ()  # mathematics at standard: per relation, which checker proved it (Coq or SymPy)


@dataclass(frozen=True)
class DagLayout:
    """Step positions for drawing the DAG left to right: column = longest path from a step with no dependency."""

    columns: int
    rows: int
    position: dict[int, tuple[int, int]]
    edges: tuple[tuple[int, int], ...]  # (dependency, dependant)
    cascade: frozenset[tuple[int, int]]  # edges along which a failure invalidated a dependant


@dataclass(frozen=True)
class Certified:
    """The certificate behind a verdict, as far as the page shows it."""

    certificate_id: str
    url: str | None = None
    chain_id: int | None = None
    registry_address: str | None = None
    tx_hash: str | None = None
    block_number: int | None = None
    validators: str = ""
    attesters: tuple[str, ...] = ()
    issued_at: str = ""
    insecure_development_key: bool = False


def certified_from(cert: VerificationCertificate, page_base_url: str | None = None) -> Certified:
    """What the page and the report show of `cert`; its page link is built here, never taken from the file."""
    base = page_base_url.rstrip("/") if page_base_url else None
    return Certified(
        certificate_id=cert.certificate_id,
        url=f"{base}/verify/{cert.certificate_id}" if base else None,
        chain_id=cert.chain_id, registry_address=cert.registry_address, tx_hash=cert.tx_hash,
        block_number=cert.block_number,
        validators=f"{cert.validator_count} validator(s) signed; threshold {cert.validator_threshold}",
        attesters=tuple(a.public_key for a in cert.attestations),
        issued_at=datetime.fromtimestamp(cert.timestamp, UTC).strftime("%Y-%m-%d %H:%M:%S UTC"),
        insecure_development_key=cert.verification_key.insecure_development_key,
    )


@dataclass
class VerdictView:
    """Everything the page and the report show, derived once from the request and its verdict."""

    request: VerifyRequest
    verdict: VerificationVerdict
    steps: list[StepView]
    layout: DagLayout
    assurance_text: str
    generated_at: str
    attestation: Attestation
    certified: Certified | None = None
    custody: list[tuple[str, str]] = field(default_factory=list)
    methodology: list[Paragraph] = field(default_factory=list)  # how this verdict was checked, from its steps

    @property
    def overall(self) -> Overall:
        """VERIFIED, PARTIAL or FAILED."""
        return self.verdict.overall

    @property
    def overall_label(self) -> str:
        """The overall verdict as a header prints it: "VERIFIED (unattested)" unless something vouches for it."""
        return self.attestation.label(self.verdict.overall.value)

    def step(self, step_id: int) -> StepView:
        """The view of step `step_id`."""
        return next(s for s in self.steps if s.step_id == step_id)


def _cut(text: str) -> str:
    if len(text) <= MAX_SHOWN:
        return text
    return text[:MAX_SHOWN] + f"\n… ({len(text) - MAX_SHOWN:,} more characters in the verdict JSON)"


def _settings(spec: Spec | None) -> str:
    """The spec's other arguments (its settings, for replaying the check); tool versions are shown as the tools
    that ran (`tools_ran`)."""
    if spec is None:
        return ""
    return ", ".join(f"{k} {v}" for k, v in sorted(spec.args.items())
                     if isinstance(v, (str, int, float)) and k not in TOOL_NAMES)


def _records(raw: Any) -> list[Mapping[str, Any]]:
    """The dicts of a details list (anything else in a verdict read from a file is ignored, not guessed at)."""
    return [r for r in raw if isinstance(r, Mapping)] if isinstance(raw, list) else []


_SECTION = re.compile(r"^# --- (?:from )?step (\d+)\s*$")
_EXAMPLE_TEST = re.compile(r"^test_step(\d+)_example_\d+$")


def _test_owner(artifact: str, test: str, step_id: int) -> int:
    """The step a test was written in: a test made from step K's examples (`test_stepK_example_N`), or one defined
    in the artifact's `# --- from step K` section, is step K's; anything else is the step's own."""
    name = re.sub(r"\[.*\]$", "", test.rsplit("::", 1)[-1])
    example = _EXAMPLE_TEST.match(name)
    if example:
        return int(example.group(1))
    owner = step_id
    for line in artifact.splitlines():
        section = _SECTION.match(line)
        if section:
            owner = int(section.group(1))
        elif re.match(rf"^\s*(?:async\s+)?def\s+{re.escape(name)}\s*\(", line):
            return owner
    return step_id


def _failing_tests(details: Mapping[str, Any], artifact: str,
                   step_id: int) -> tuple[tuple[FailingTest, ...], tuple[OtherFailure, ...]]:
    """(the step's own failing tests and properties, those of the steps it uses that failed in its run too)."""
    seen: set[tuple[str, str]] = set()
    own: list[FailingTest] = []
    others: dict[str, OtherFailure] = {}
    for record in [*_records(details.get("failing_tests")), *_records(details.get("property_violations"))]:
        key = (str(record.get("test", "")), str(record.get("message", "")))
        if key in seen:
            continue
        seen.add(key)
        owner = _test_owner(artifact, key[0], step_id)
        if owner != step_id:
            others.setdefault(key[0], OtherFailure(key[0], owner))
            continue
        own.append(FailingTest(key[0], str(record.get("outcome", "failed")), _cut(key[1])))
    return tuple(own), tuple(others.values())


def _counterexample(details: Mapping[str, Any]) -> str:
    raw = details.get("counterexample")
    if raw:
        return _cut(raw if isinstance(raw, str) else json.dumps(raw, indent=1, sort_keys=True, default=str))
    false = [r for r in _records(details.get("relations")) if r.get("verdict") == "failed"]
    return _cut("\n".join(f"line {r.get('line')}: {r.get('relation')} is false" for r in false))


def _step_view(content: str, dependencies: tuple[int, ...], sv: StepVerdict) -> StepView:
    d = sv.details
    evidence = sv.evidence
    elapsed = d.get("elapsed_ms")
    tools = tools_ran(sv)
    own, others = _failing_tests(d, sv.formal_representation, sv.step_id)
    by = ""
    if evidence is not None:
        by = "; ".join((FORMALISER_TEXT.get(evidence.formaliser, evidence.formaliser.value),
                        SUPPLIER_TEXT.get(evidence.supplied_by, evidence.supplied_by.value)))
    translator = sv.translator_spec.display_name if sv.translator_spec is not None else (
        "supplied with the request" if d.get("language") else "")
    return StepView(
        step_id=sv.step_id,
        content=_cut(content),
        content_parts=text_parts(_cut(content)),
        dependencies=dependencies,
        status=sv.status,
        message=_cut(sv.error_message or ""),
        aligned_claim=_cut(evidence.aligned_claim if evidence is not None else ""),
        evidence_kind=evidence.kind.value if evidence is not None else "",
        formaliser=evidence.formaliser.value if evidence is not None else "",
        supplied_by=evidence.supplied_by.value if evidence is not None else "",
        evidence_text=EVIDENCE_TEXT.get(evidence.kind, evidence.kind.value) if evidence is not None else "",
        evidence_by=by,
        assumptions=tuple(evidence.assumptions) if evidence is not None else (),
        evidence_note=_cut(evidence.note or "" if evidence is not None else ""),
        language=str(d.get("language", "")),
        artifact=_cut(sv.formal_representation),
        checker=sv.checker_spec.display_name if sv.checker_spec is not None else "",
        checker_tools=tools,
        checker_settings=_settings(sv.checker_spec),
        translator=translator,
        elapsed_ms=float(elapsed) if isinstance(elapsed, (int, float)) else None,
        failing_tests=own,
        other_failures=others,
        counterexample=_counterexample(d),
        invalidated_by=tuple(sv.invalidated_by),
        local_status=sv.local_status.value if sv.local_status is not None else "",
        proved_by=tuple(_proved_by(p) for p in evidence.proofs) if evidence is not None else (),
    )


def _proved_by(proof: RelationProof) -> str:
    """One relation and the checker that proved it: a Coq lemma (and the tactic that closed it) or SymPy."""
    if proof.proved_by is ProvedBy.COQ:
        sympy = f"SymPy too ({proof.sympy})" if proof.sympy else "SymPy left it undecided"
        return _cut(f"{proof.relation}: Coq, {proof.lemma or 'a lemma'} by {proof.tactic or 'its proof script'}; {sympy}")
    return _cut(f"{proof.relation}: SymPy ({proof.sympy or 'checked'})")


def layout(graph: StepGraph, statuses: Mapping[int, StepStatus]) -> DagLayout:
    """Columns by longest path from a root, rows in chain order within a column; cascade edges marked."""
    column: dict[int, int] = {}
    for sid in graph.order:
        column[sid] = 1 + max((column[d] for d in graph.dependencies[sid]), default=-1)
    rows: dict[int, int] = {}
    position: dict[int, tuple[int, int]] = {}
    for sid in graph.step_ids:
        c = column[sid]
        position[sid] = (c, rows.get(c, 0))
        rows[c] = rows.get(c, 0) + 1
    edges = tuple((dep, sid) for sid in graph.step_ids for dep in graph.dependencies[sid])
    broken = {sid for sid, status in statuses.items() if status in (StepStatus.FAILED, StepStatus.INVALIDATED)}
    cascade = frozenset((a, b) for a, b in edges if a in broken and statuses.get(b) is StepStatus.INVALIDATED)
    return DagLayout(columns=max(column.values()) + 1, rows=max(rows.values()), position=position, edges=edges,
                     cascade=cascade)


def build_view(request: VerifyRequest, verdict: VerificationVerdict, *,
               certificate: VerificationCertificate | None = None, page_base_url: str | None = None,
               generated_at: datetime | None = None, trusted_keys: frozenset[str] = frozenset(),
               recomputed: VerificationVerdict | None = None, verification_key: str | None = None) -> VerdictView:
    """The view of `verdict` for `request` (and the certificate issued for it); InputError when the three do not
    belong together (task hash, verdict digest).

    Its attestation (`attestation.attest`) reads `trusted_keys` (the Ed25519 keys whose signatures, on the verdict
    or on its certificate, this reader accepts), `recomputed` (the verdict the reader computed from `request` just
    now) and `verification_key` (to check the certificate as `cert verify` does). A recomputed verdict that
    matches is the one shown: then everything on the page was computed here, messages included."""
    expected = task_hash(request)
    if verdict.task_hash != expected:
        raise InputError(
            f"the verdict is for task {verdict.task_hash[:16] or '(none named)'}…, but this request hashes to "
            f"{expected[:16]}…: give the "
            "request the verdict was computed from", field="request")
    # What the page and the report say must be what the verdict proved: its summary is what its steps give, and its
    # digest (which a certificate signs) is recomputed from its content, never taken from the field it carries.
    by_id = {sv.step_id: sv for sv in verdict.step_verdicts}
    if verdict.overall is not overall_of(by_id):
        raise InputError(f"the verdict says {verdict.overall.value}, but its steps give {overall_of(by_id).value}: it "
                         "was edited after verification", field="verdict")
    if verdict.verdict_digest != digest_of(verdict):
        raise InputError("the verdict's verdict_digest does not match its content (steps, evidence, artifacts, "
                         "checkers, level or answer were changed after verification, or it has none): give the "
                         "verdict `reasonforge verify --json` printed", field="verdict")
    if certificate is not None:
        reasons = check_against_verdict(certificate, verdict)
        if reasons:
            raise InputError(f"certificate {certificate.certificate_id[:18]}… does not certify this verdict: "
                             f"{'; '.join(reasons)}", field="certificate")
    attestation = attest(verdict, trusted_keys=trusted_keys, recomputed=recomputed, certificate=certificate,
                         verification_key=verification_key)
    if attestation.standing is Standing.RECOMPUTED and recomputed is not None:
        verdict = recomputed
        by_id = {sv.step_id: sv for sv in verdict.step_verdicts}
    certified = certified_from(certificate, page_base_url) if certificate is not None else None
    graph = StepGraph(request.reasoning_chain)
    missing = [sid for sid in graph.step_ids if sid not in by_id]
    if missing:
        raise InputError(f"the verdict has no result for step(s) {', '.join(map(str, missing))} of the request: give "
                         "the request the verdict was computed from", field="request")
    steps = [_step_view(step.content, graph.dependencies[step.step_id], by_id[step.step_id])
             for step in request.reasoning_chain]
    when = (generated_at or datetime.now(UTC)).strftime("%Y-%m-%d %H:%M:%S UTC")
    assurance = verdict.assurance
    custody = [("task hash", verdict.task_hash), ("verdict digest", verdict.verdict_digest),
               ("verdict hash (unsigned)", verdict.verdict_hash)]
    # The same sha256 of each artifact that the verdict digest covers: the whole artifact, not what is shown.
    custody += [(f"step {sid} artifact sha256", sha256(by_id[sid].formal_representation.encode()).hexdigest())
                for sid in graph.step_ids if by_id[sid].formal_representation]
    if verdict.signature is not None:
        custody.append(("verdict signed by key", verdict.signature.public_key))
    if certified is not None:
        custody.append(("certificate id", certified.certificate_id))
        if certified.tx_hash:
            custody.append(("registry transaction", certified.tx_hash))
    return VerdictView(
        request=request, verdict=verdict, steps=steps,
        layout=layout(graph, {s.step_id: s.status for s in steps}),
        assurance_text=ASSURANCE_TEXT.get(assurance, "") if assurance is not None else "",
        generated_at=when, attestation=attestation, certified=certified,
        custody=[(k, v) for k, v in custody if v],
        methodology=methodology(verdict, [by_id[sid] for sid in graph.step_ids]),
    )

"""Certificates: the JSON, an off-chain check of its proof, and the human-readable page."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response

from reasonforge.certificate import (
    CheckResult,
    VerificationCertificate,
    check_certificate,
)
from reasonforge.errors import ReasonForgeError
from reasonforge.service.errors import NotFoundError, ServiceError
from reasonforge.service.jobs.certify import verification_key_path
from reasonforge.service.jobs.tables import CertificateRow
from reasonforge.service.pages import PAGE_HEADERS, certificate_page, not_found_page
from reasonforge.service.routes.deps import Reader, State
from reasonforge.service.routes.errors import ERROR_RESPONSES
from reasonforge.service.routes.state import AppState

router = APIRouter(tags=["certificates"])

CertId = Annotated[
    str,
    Path(
        pattern=r"^0x[0-9a-f]{64}$",
        description="The certificate id (0x + 64 hex digits) from a task.",
    ),
]


class CertificateKeyMissing(ServiceError):
    """The server no longer holds the verification key the certificate was issued under."""

    code = "verification_key_missing"
    status_code = 409


def load_certificate(state: AppState, cert_id: str) -> VerificationCertificate:
    """A certificate this service issued; NotFoundError otherwise."""
    with state.jobs.sessionmaker() as session:
        row = session.get(CertificateRow, cert_id)
        if row is None:
            raise NotFoundError(
                f"no certificate {cert_id} on this service", field="cert_id"
            )
        return VerificationCertificate.model_validate_json(row.certificate_json)


def check_stored(state: AppState, cert: VerificationCertificate) -> CheckResult:
    """Groth16 proof(s), id and attestations checked against this server's verification key."""
    path = verification_key_path(state.settings, cert.verification_key.circuit)
    if not path.is_file():
        raise CertificateKeyMissing(
            f"the verification key of circuit {cert.verification_key.circuit!r} is not on this server any more; "
            "check the certificate offline with `reasonforge cert verify --vk KEY.json`",
            field="cert_id",
        )
    return check_certificate(cert, path.read_text())


@router.get(
    "/v1/certificates/{cert_id}",
    response_model=VerificationCertificate,
    responses=ERROR_RESPONSES,
    summary="Get a certificate",
)
def get_certificate(
    cert_id: CertId,
    _principal: Reader,
    state: State,
) -> VerificationCertificate:
    """The certificate JSON (public by design: it reveals counts and hashes, not the reasoning)."""
    return load_certificate(state, cert_id)


@router.post(
    "/v1/certificates/{cert_id}/verify",
    response_model=CheckResult,
    responses=ERROR_RESPONSES,
    summary="Check a certificate's ZK proof off-chain",
)
def verify_certificate(
    cert_id: CertId,
    _principal: Reader,
    state: State,
) -> CheckResult:
    """Re-check the certificate now: Groth16 proof(s), claims vs public inputs, id, attestations."""
    return check_stored(state, load_certificate(state, cert_id))


@router.get(
    "/verify/{cert_id}",
    response_class=HTMLResponse,
    summary="Certificate page (HTML)",
    tags=["pages"],
    responses={
        404: {"description": "No such certificate: an HTML page, or the JSON error body when only JSON is "
                             "accepted.", "content": {"text/html": {}, "application/json": {
                                 "schema": {"$ref": "#/components/schemas/ErrorBody"}}}},
    },
)
def certificate_html(cert_id: str, request: Request, state: State) -> Response:
    """A public page anyone holding the certificate URL can read; it re-checks the proof on view."""
    accept = request.headers.get("accept", "")
    wants_json = "application/json" in accept and "text/html" not in accept
    try:
        cert = load_certificate(state, cert_id)
    except NotFoundError as exc:
        if wants_json:
            return JSONResponse(exc.body(), status_code=404)
        return HTMLResponse(
            not_found_page(cert_id), status_code=404, headers=PAGE_HEADERS
        )
    check, problem = None, None
    try:
        check = check_stored(state, cert)
    except ReasonForgeError as exc:
        problem = exc.message
    return HTMLResponse(certificate_page(cert, check, problem), headers=PAGE_HEADERS)

"""Whether a page or report may vouch for a verdict: only when something its reader trusts authenticated it.

A verdict file proves nothing about itself: its `verdict_digest` follows a public recipe, so whoever edits the
verdict recomputes the digest too. So a verdict is attested only by one of these, checked by the reader:

- RECOMPUTED: the reader computed it from its request, on the spot, and got the same verdict digest
  (`reasonforge report --recheck`; `reasonforge verify --html` shows the verdict it has just computed);
- SIGNED: it carries a valid Ed25519 signature by a key the reader trusts (`report --trust KEY` or
  REASONFORGE_TRUSTED_VERDICT_KEYS; a service trusts its own key on the pages it serves);
- CERTIFIED: a certificate that `cert verify` finds valid certifies it, and a validator key the reader trusts
  attested that certificate (a valid certificate alone is not enough: anyone can issue one, with validators of
  their own, for a verdict they edited).

Anything else is UNATTESTED, with every reason, and the page and the report say so in their header."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from reasonforge.certificate.check import check_certificate
from reasonforge.certificate.schema import VerificationCertificate
from reasonforge.certificate.verdict_signature import SignatureState, signature_state
from reasonforge.chain import digest_of
from reasonforge.types import VerificationVerdict

__all__ = ["Attestation", "Standing", "attest"]


class Standing(StrEnum):
    """What vouches for a verdict, or that nothing does."""

    RECOMPUTED = "recomputed"
    SIGNED = "signed"
    CERTIFIED = "certified"
    UNATTESTED = "unattested"


@dataclass(frozen=True)
class Attestation:
    """What vouches for the verdict shown (`detail` says who or what), or why nothing does."""

    standing: Standing
    detail: str

    @property
    def attested(self) -> bool:
        """True unless UNATTESTED."""
        return self.standing is not Standing.UNATTESTED

    @property
    def headline(self) -> str:
        """The one line every page's header carries."""
        if self.attested:
            return f"Attested: {self.detail}."
        return ("UNATTESTED: nothing this reader trusts vouches for this verdict, so what it claims is shown as its "
                f"file says, unconfirmed ({self.detail}).")

    def label(self, overall: str) -> str:
        """`overall` as a header may print it: qualified whenever the verdict is unattested."""
        return overall if self.attested else f"{overall} (unattested)"


def _short(key: str) -> str:
    return f"{key[:16]}…"


def attest(verdict: VerificationVerdict, *, trusted_keys: frozenset[str] = frozenset(),
           recomputed: VerificationVerdict | None = None, certificate: VerificationCertificate | None = None,
           verification_key: str | None = None) -> Attestation:
    """The attestation of `verdict` (whose digest the caller has already checked against its content).

    `recomputed`: the verdict the reader computed from the same request just now; when it differs, the verdict is
    unattested whatever else vouches for it (the reader has seen it contradicted). `verification_key`: the JSON of
    the verification key `cert verify` checks `certificate`'s proofs with; without it a certificate cannot count."""
    if recomputed is not None:
        if digest_of(recomputed) == verdict.verdict_digest:
            return Attestation(Standing.RECOMPUTED, "computed from its request by this reader when this was written, "
                               f"with the same verdict digest ({recomputed.overall.value})")
        return Attestation(Standing.UNATTESTED, (
            f"computed again from its request by this reader it is {recomputed.overall.value}, "
            f"{recomputed.verified_steps} of {recomputed.total_steps} steps verified, with verdict digest "
            f"{_short(digest_of(recomputed))}, not this verdict"))
    reasons: list[str] = []
    state = signature_state(verdict)
    signature = verdict.signature
    if state is SignatureState.VALID and signature is not None:
        if signature.public_key in trusted_keys:
            return Attestation(Standing.SIGNED, f"signed by trusted key {signature.public_key}")
        reasons.append(f"it is signed by key {signature.public_key}, which this reader does not trust (trust a "
                       "service's key with --trust or REASONFORGE_TRUSTED_VERDICT_KEYS)")
    elif state is SignatureState.INVALID:
        reasons.append("its signature does not sign it: it was changed after it was signed")
    else:
        reasons.append("it carries no signature")
    if certificate is not None:
        cert_id = _short(certificate.certificate_id)
        if verification_key is None:
            reasons.append(f"certificate {cert_id} could not be checked here (no verification key for its circuit)")
        elif (invalid := _checked(certificate, verification_key, verdict)) is None:
            reasons.append(f"certificate {cert_id} could not be checked here (the certificate extra is not "
                           "installed: pip install 'reasonforge[certificate]')")
        else:
            attesters = {a.public_key for a in certificate.attestations} & trusted_keys
            if invalid:
                reasons.append(f"certificate {cert_id} is not valid: {'; '.join(invalid)}")
            elif attesters:
                return Attestation(Standing.CERTIFIED, f"certificate {certificate.certificate_id} is valid and "
                                   f"attested by trusted validator key {min(attesters)}")
            else:
                reasons.append(f"certificate {cert_id} is valid but attested by no validator key this reader trusts")
    else:
        reasons.append("no certificate covers it")
    reasons.append("it was not recomputed from its request here (--recheck)")
    return Attestation(Standing.UNATTESTED, "; ".join(reasons))


def _checked(certificate: VerificationCertificate, verification_key: str, verdict: VerificationVerdict
             ) -> list[str] | None:
    """Why the certificate is not valid for the verdict ([] when it is), or None where its proof and hashes cannot
    be checked: the certificate extra (Groth16, Poseidon) is not installed."""
    try:
        return check_certificate(certificate, verification_key, verdict=verdict).reasons
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] in ("groth16py", "light_poseidon_python"):
            return None
        raise

"""Score certificates: Brier / log / market skill over matched reveals, signed by the validators.

The body holds everything a verifier needs besides the question set: the registry's batch records, every
submitted opening, the scored forecasts, every exclusion with its reason, the question-set and resolution
digests and the scores. `verify_score` recomputes all of it from the openings and the items.

certificate_id = keccak256(abi.encode(DOMAIN, chainId, registry, Score, roots)) with Score = (forecaster,
scope, resolutionDigest, bodyDigest, scored, excluded, unrevealed, brierPpm, logLossPpm, marketSkillPpm),
exactly as ForecastRegistry.scoreCertificateId computes it; bodyDigest = sha256(canonical JSON of the body).
Validators sign the id with secp256k1 keys derived from their seeds (certificate.ecdsa), so the registry
checks them with ecrecover: EdDSA-Poseidon on Baby Jubjub would cost far more gas in Solidity, and the
Groth16 route is not needed for a score the chain only has to authenticate.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from eth_abi import encode
from eth_utils import keccak, to_checksum_address
from pydantic import BaseModel, Field

from reasonforge.certificate import ecdsa
from reasonforge.certificate.canonical import sha256_hex
from reasonforge.certificate.forecast_records import UNDEFINED_PPM, BatchRecord, OnChainScore
from reasonforge.certificate.validators import ValidatorSet
from reasonforge.forecast.commit.batch import Opening, question_set_digest, resolution_digest
from reasonforge.forecast.commit.match import Counted, Excluded, MatchResult, match_reveals
from reasonforge.forecast.commit.tree import PPM
from reasonforge.forecast.dataset import ForecastItem
from reasonforge.forecast.metrics import point_metrics

CERT_VERSION = 1
DOMAIN = keccak(text="ReasonForge/ForecastScore/v1")
SCORE_TUPLE = "(address,bytes32,bytes32,bytes32,uint32,uint32,uint32,int64,int64,int64)"


class IncompleteReveal(ValueError):
    """A score over a reveal that leaves committed leaves unopened cannot be certified."""

    def __init__(self, unrevealed: int) -> None:
        self.unrevealed = unrevealed
        super().__init__(f"{unrevealed} committed forecast(s) were never revealed; a withheld forecast could be "
                         "the other side of a hedge, so only a complete reveal is certified: reveal every batch "
                         "the forecaster committed for this question set (all its openings in one reveal file)")


class Scores(BaseModel):
    """Point scores over the matched forecasts (None where undefined)."""

    n_scored: int
    brier: float | None
    brier_reward: float | None
    log_loss: float | None
    log_reward: float | None
    market_brier: float | None
    market_skill: float | None = Field(description="1 − Brier(forecaster)/Brier(market), forecast.metrics")


class ScoreBody(BaseModel):
    """What the certificate's body digest covers."""

    version: int = CERT_VERSION
    chain_id: int
    registry: str
    forecaster: str
    scope: str = Field(description="question-set digest (ids and cutoffs); the batches' on-chain scope")
    resolution_digest: str
    batches: list[BatchRecord]
    reveals: list[Opening]
    scored: list[Counted]
    excluded: list[Excluded]
    n_unrevealed: int
    n_excluded_opened: int
    complete: bool
    scores: Scores


class ValidatorSignature(BaseModel):
    """A validator's secp256k1 signature over the certificate id."""

    validator: str
    signature: str


class ScoreCertificate(BaseModel):
    """A signed score certificate."""

    body: ScoreBody
    body_digest: str
    certificate_id: str
    signatures: list[ValidatorSignature]


class ScoreCheck(BaseModel):
    """verify_score's answer: ok, or every problem found."""

    ok: bool
    certificate_id: str
    signed_by: list[str]
    problems: list[str]


def compute_scores(scored: Sequence[Counted], items: Sequence[ForecastItem]) -> Scores:
    """Brier, log and market skill (forecast.metrics.point_metrics) on the committed probabilities."""
    if not scored:
        return Scores(n_scored=0, brier=None, brier_reward=None, log_loss=None, log_reward=None, market_brier=None,
                      market_skill=None)
    by_id = {item.id: item for item in items}
    p = np.array([c.probability_ppm / PPM for c in scored])
    outcome = np.array([by_id[c.item_id].outcome for c in scored], dtype=np.float64)
    market = np.array([by_id[c.item_id].market_price for c in scored])
    m = point_metrics(p, outcome, market)

    def finite(name: str) -> float | None:
        return m[name] if math.isfinite(m[name]) else None

    return Scores(n_scored=len(scored), brier=finite("brier"), brier_reward=finite("brier_reward"),
                  log_loss=finite("log_loss"), log_reward=finite("log_reward"), market_brier=finite("market_brier"),
                  market_skill=finite("market_skill"))


def _ppm(value: float | None) -> int:
    return UNDEFINED_PPM if value is None else round(value * PPM)


def on_chain_score(body: ScoreBody, body_digest: str) -> OnChainScore:
    """The registry's Score struct for a body."""
    return OnChainScore(forecaster=body.forecaster, scope=body.scope, resolution_digest=body.resolution_digest,
                        body_digest=body_digest, scored=len(body.scored), excluded=body.n_excluded_opened,
                        unrevealed=body.n_unrevealed, brier_ppm=_ppm(body.scores.brier),
                        log_loss_ppm=_ppm(body.scores.log_loss), market_skill_ppm=_ppm(body.scores.market_skill))


def certificate_id(chain_id: int, registry: str, score: OnChainScore, roots: Sequence[str]) -> str:
    """keccak256(abi.encode(DOMAIN, chainId, registry, score, roots)) as 0x hex (ForecastRegistry's formula)."""
    encoded = encode(["bytes32", "uint256", "address", SCORE_TUPLE, "bytes32[]"],
                     [DOMAIN, chain_id, to_checksum_address(registry), score.as_tuple(),
                      [bytes.fromhex(r[2:]) for r in roots]])
    return "0x" + keccak(encoded).hex()


def body_digest(body: ScoreBody) -> str:
    """sha256 (0x hex) of the body's canonical JSON."""
    return "0x" + sha256_hex(body.model_dump(mode="json"))


def build_body(match: MatchResult, openings: Sequence[Opening], items: Sequence[ForecastItem],
               batches: Sequence[BatchRecord], chain_id: int, registry: str) -> ScoreBody:
    """The certificate body for a match (scores computed here)."""
    return ScoreBody(chain_id=chain_id, registry=to_checksum_address(registry),
                     forecaster=to_checksum_address(match.forecaster), scope=match.scope,
                     resolution_digest=resolution_digest(items), batches=list(batches), reveals=list(openings),
                     scored=match.scored, excluded=match.excluded, n_unrevealed=match.n_unrevealed,
                     n_excluded_opened=match.n_excluded_opened, complete=match.complete,
                     scores=compute_scores(match.scored, items))


def sign_body(body: ScoreBody, validators: ValidatorSet, signers: int | None = None) -> ScoreCertificate:
    """Sign with the first `signers` validators by address (default: all); signatures sorted by signer.

    Raises IncompleteReveal when a committed leaf is unrevealed: the withheld leaf could be the other side
    of a hedge, so only a complete reveal is certified (the registry refuses the rest as well).
    """
    if not body.complete or body.n_unrevealed:
        raise IncompleteReveal(body.n_unrevealed)
    digest = body_digest(body)
    cert_id = certificate_id(body.chain_id, body.registry, on_chain_score(body, digest), [b.root for b in body.batches])
    keys = sorted((ecdsa.signing_key(v) for v in validators.validators), key=lambda k: int(ecdsa.address_of(k), 16))
    keys = keys[: len(keys) if signers is None else signers]
    signatures = [ValidatorSignature(validator=ecdsa.address_of(k), signature=ecdsa.sign_digest(k, bytes.fromhex(cert_id[2:])))
                  for k in keys]
    return ScoreCertificate(body=body, body_digest=digest, certificate_id=cert_id, signatures=signatures)


def validator_addresses(validators: ValidatorSet) -> list[str]:
    """The validators' secp256k1 addresses (what a ForecastRegistry is deployed to trust)."""
    return [ecdsa.address_of(ecdsa.signing_key(v)) for v in validators.validators]


def verify_score(cert: ScoreCertificate, items: Sequence[ForecastItem], trusted: Sequence[str],
                 threshold: int) -> ScoreCheck:
    """Recompute the match, every score, both digests and the id from the openings; check the signatures."""
    problems: list[str] = []
    body = cert.body
    if question_set_digest(items) != body.scope:
        # Recomputing the match against other items would only list every difference that follows.
        return ScoreCheck(ok=False, certificate_id=cert.certificate_id, signed_by=[], problems=[
            "the question set given is not the one the certificate scores (question-set digest differs)"])
    if resolution_digest(items) != body.resolution_digest:
        problems.append("the outcomes / market prices given are not the ones scored (resolution digest differs)")
    batches = {b.root: b for b in body.batches}
    redo = match_reveals(body.reveals, items, batches, [b.root for b in body.batches], body.forecaster, body.scope)
    again = build_body(redo, body.reveals, items, body.batches, body.chain_id, body.registry)
    for name in ("scored", "excluded", "n_unrevealed", "n_excluded_opened", "complete", "scores"):
        if getattr(again, name) != getattr(body, name):
            problems.append(f"'{name}' does not follow from the reveals (recomputed: {getattr(again, name)!r:.200})")
    digest = body_digest(body)
    if digest != cert.body_digest:
        problems.append("body_digest is not the sha256 of the body")
    cert_id = certificate_id(body.chain_id, body.registry, on_chain_score(body, digest), list(batches))
    if cert_id != cert.certificate_id:
        problems.append("certificate_id does not match the body")
    trusted_set = {to_checksum_address(a) for a in trusted}
    signed: list[str] = []
    for n, sig in enumerate(cert.signatures):
        signer = ecdsa.recover(bytes.fromhex(cert_id[2:]), sig.signature)
        if signer is None or signer != to_checksum_address(sig.validator):
            problems.append(f"signature {n} ({sig.validator}) does not sign this certificate id")
        elif signer not in trusted_set:
            problems.append(f"signature {n} is by {signer}, not a trusted validator")
        elif signer in signed:
            problems.append(f"signature {n}: validator {signer} signed twice (counted once)")
        else:
            signed.append(signer)
    if body.n_unrevealed or not body.complete:
        problems.append(f"{body.n_unrevealed} committed forecast(s) unrevealed: an incomplete reveal is not "
                        "certifiable (a withheld forecast could hedge a revealed one)")
    if len(signed) < threshold:
        problems.append(f"{len(signed)} valid validator signatures, below the threshold of {threshold}")
    return ScoreCheck(ok=not problems, certificate_id=cert_id, signed_by=signed, problems=problems)

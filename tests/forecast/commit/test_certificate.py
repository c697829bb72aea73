"""Score certificates: verified offline and on chain; refused below threshold, altered, hiding a batch or a hedge."""

from __future__ import annotations

import pytest

from reasonforge.certificate import ecdsa
from reasonforge.certificate import forecast_registry as fr
from reasonforge.certificate.validators import generate
from reasonforge.forecast.commit import (
    IncompleteReveal,
    ScoreCertificate,
    build_body,
    commit_rows,
    match_on_chain,
    question_set_digest,
    register_batch,
    register_certificate,
    reveal,
    sign_body,
    validator_addresses,
    verify_score,
)
from reasonforge.forecast.commit.batch import PredictionRow
from reasonforge.forecast.commit.certificate import ValidatorSignature, body_digest, certificate_id, on_chain_score
from reasonforge.forecast.metrics import point_metrics

PROBS = {"q0": 0.2, "q1": 0.7, "q2": 0.4, "q3": 0.9, "q4": 0.1, "q5": 0.65, "past": 0.95}


def _body(w3, compiled, registry, items, batch, openings):
    match, batches = match_on_chain(w3, compiled, registry.address, openings, items, question_set_digest(items))
    return build_body(match, openings, items, batches, w3.eth.chain_id, registry.address)


@pytest.fixture
def scored(w3, compiled, registry, items):
    """A registered batch (one forecast late), fully revealed, and the unsigned body."""
    batch = commit_rows([PredictionRow(id=k, probability=v) for k, v in PROBS.items()], items)
    register_batch(w3, compiled, registry.address, batch)
    return _body(w3, compiled, registry, items, batch, reveal(batch))


@pytest.fixture
def hedged(w3, compiled, registry, items):
    """The hedge: q0 committed both ways in two batches, only the side that scores better opened."""
    rows = [PredictionRow(id=k, probability=v) for k, v in PROBS.items() if k != "q0"]
    batch = commit_rows([*rows, PredictionRow(id="q0", probability=0.01)], items)  # q0's outcome is 0
    register_batch(w3, compiled, registry.address, batch)
    other_side = commit_rows([PredictionRow(id="q0", probability=0.99)], items)
    register_batch(w3, compiled, registry.address, other_side)  # committed, never revealed
    return _body(w3, compiled, registry, items, batch, reveal(batch))


def test_scores_come_from_the_committed_probabilities(scored, items):
    by_id = {i.id: i for i in items}
    timely = [k for k in PROBS if k != "past"]
    expected = point_metrics([PROBS[k] for k in timely], [by_id[k].outcome for k in timely],
                             [by_id[k].market_price for k in timely])
    s = scored.scores
    assert s.n_scored == 6 and s.brier == pytest.approx(expected["brier"])
    assert s.market_skill == pytest.approx(expected["market_skill"])
    assert s.log_loss == pytest.approx(expected["log_loss"])
    assert {e.reason for e in scored.excluded} == {"late"} and scored.complete


def test_certificate_verifies_offline_and_registers_on_chain(w3, compiled, registry, vset, scored, items):
    cert = sign_body(scored, vset)
    check = verify_score(cert, items, validator_addresses(vset), vset.threshold)
    assert check.ok, check.problems
    assert fr.score_certificate_id(w3, compiled, registry.address, on_chain_score(scored, cert.body_digest),
                                   [b.root for b in scored.batches]) == cert.certificate_id
    register_certificate(w3, compiled, cert)
    stored = fr.score_of(w3, compiled, registry.address, cert.certificate_id)
    assert stored == on_chain_score(cert.body, cert.body_digest)
    assert stored.scored == 6 and stored.excluded == 1 and stored.unrevealed == 0
    assert fr.registered_scores(w3, compiled, registry.address) == [(cert.certificate_id, stored)]
    with pytest.raises(fr.RegistryError, match="ScoreAlreadyRegistered"):
        register_certificate(w3, compiled, cert)


def test_one_signature_below_threshold_is_refused(w3, compiled, vset, scored, items):
    cert = sign_body(scored, vset, signers=vset.threshold - 1)
    check = verify_score(cert, items, validator_addresses(vset), vset.threshold)
    assert not check.ok and any("below the threshold" in p for p in check.problems)
    with pytest.raises(fr.RegistryError, match="BelowThreshold"):
        register_certificate(w3, compiled, cert)
    with pytest.raises(fr.RegistryError, match="BelowThreshold"):
        register_certificate(w3, compiled, cert.model_copy(update={"signatures": []}))


def test_a_signature_counted_twice_is_refused(w3, compiled, vset, scored, items):
    cert = sign_body(scored, vset, signers=vset.threshold - 1)
    doubled = cert.model_copy(update={"signatures": [*cert.signatures, cert.signatures[-1]]})
    assert not verify_score(doubled, items, validator_addresses(vset), vset.threshold).ok
    with pytest.raises(fr.RegistryError, match="SignersNotIncreasing"):
        register_certificate(w3, compiled, doubled)


def test_signatures_of_untrusted_validators_are_refused(w3, compiled, vset, scored, items):
    cert = sign_body(scored, generate(5, threshold=3))
    check = verify_score(cert, items, validator_addresses(vset), vset.threshold)
    assert any("not a trusted validator" in p for p in check.problems)
    with pytest.raises(fr.RegistryError, match="UnknownValidator"):
        register_certificate(w3, compiled, cert)


def test_an_altered_score_is_refused(w3, compiled, vset, scored, items):
    cert = sign_body(scored, vset)
    better = scored.scores.model_copy(update={"brier": 0.01})
    forged = cert.model_copy(update={"body": scored.model_copy(update={"scores": better})})
    forged = forged.model_copy(update={"body_digest": body_digest(forged.body)})
    check = verify_score(forged, items, validator_addresses(vset), vset.threshold)
    assert any("'scores' does not follow" in p for p in check.problems)
    assert any("certificate_id does not match" in p for p in check.problems)
    with pytest.raises(fr.RegistryError, match="UnknownValidator"):  # the signatures recover to strangers
        register_certificate(w3, compiled, forged)


def test_an_altered_outcome_is_refused_offline(vset, scored, items):
    cert = sign_body(scored, vset)
    flipped = [i.model_copy(update={"outcome": 1 - i.outcome}) if i.id == "q0" else i for i in items]
    check = verify_score(cert, flipped, validator_addresses(vset), vset.threshold)
    assert any("resolution digest differs" in p for p in check.problems)


def test_another_question_set_is_one_problem_not_a_list_of_recomputed_reprs(vset, scored, items):
    check = verify_score(sign_body(scored, vset), items[:-1], validator_addresses(vset), vset.threshold)
    assert not check.ok
    only = "the question set given is not the one the certificate scores (question-set digest differs)"
    assert check.problems == [only]


def test_a_hedge_left_unrevealed_is_not_certified(w3, compiled, vset, hedged, items):
    assert not hedged.complete and hedged.n_unrevealed == 1
    assert [e.reason for e in hedged.excluded if e.reason == "unrevealed"] == ["unrevealed"]
    with pytest.raises(IncompleteReveal, match="1 committed forecast"):
        sign_body(hedged, vset)
    # Validators who sign it anyway (bypassing sign_body) are caught offline and on chain.
    forged = _sign_unchecked(hedged, vset)
    check = verify_score(forged, items, validator_addresses(vset), vset.threshold)
    assert any("incomplete reveal is not certifiable" in p for p in check.problems)
    with pytest.raises(fr.RegistryError, match="RevealIncomplete"):
        register_certificate(w3, compiled, forged)


def test_a_certificate_hiding_the_hedge_batch_is_refused_on_chain(w3, compiled, vset, hedged):
    hidden = hedged.model_copy(update={"batches": hedged.batches[:1], "n_unrevealed": 0, "complete": True,
                                       "excluded": [e for e in hedged.excluded if e.reason != "unrevealed"]})
    with pytest.raises(fr.RegistryError, match="RootsIncomplete"):
        register_certificate(w3, compiled, sign_body(hidden, vset))


def test_a_certificate_not_accounting_for_every_leaf_is_refused_on_chain(w3, compiled, vset, hedged):
    dropped = hedged.model_copy(update={"n_unrevealed": 0, "complete": True})  # even if validators signed it
    with pytest.raises(fr.RegistryError, match="LeavesNotAccounted"):
        register_certificate(w3, compiled, sign_body(dropped, vset))


def _sign_unchecked(body, vset):
    """What colluding validators could produce: valid signatures over an incomplete body."""
    digest = body_digest(body)
    cert_id = certificate_id(body.chain_id, body.registry, on_chain_score(body, digest),
                             [b.root for b in body.batches])
    keys = sorted((ecdsa.signing_key(v) for v in vset.validators), key=lambda k: int(ecdsa.address_of(k), 16))
    sigs = [ValidatorSignature(validator=ecdsa.address_of(k), signature=ecdsa.sign_digest(k, bytes.fromhex(cert_id[2:])))
            for k in keys]
    return ScoreCertificate(body=body, body_digest=digest, certificate_id=cert_id, signatures=sigs)


def test_a_certificate_cannot_be_replayed_on_another_registry(w3, compiled, vset, scored):
    other = fr.deploy(w3, compiled, validator_addresses(vset), vset.threshold)
    moved = scored.model_copy(update={"registry": other.address})
    assert certificate_id(moved.chain_id, moved.registry, on_chain_score(moved, body_digest(moved)),
                          [b.root for b in moved.batches]) != sign_body(scored, vset).certificate_id
    with pytest.raises(fr.RegistryError, match="RootsIncomplete"):  # the roots live on the first registry
        register_certificate(w3, compiled, sign_body(scored, vset).model_copy(update={"body": moved}))

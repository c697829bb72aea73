"""The registry side of commit–reveal: register a batch, read the records a match needs, register a certificate."""

from __future__ import annotations

from collections.abc import Sequence

from web3 import Web3

from reasonforge.certificate import forecast_registry as fr
from reasonforge.errors import InputError
from reasonforge.forecast.commit.batch import Batch, Opening, Registration
from reasonforge.forecast.commit.certificate import ScoreCertificate, on_chain_score
from reasonforge.forecast.commit.match import MatchResult, match_reveals
from reasonforge.forecast.dataset import ForecastItem


def register_batch(w3: Web3, compiled: fr.CompiledForecastRegistry, address: str, batch: Batch,
                   sender: str | None = None) -> fr.CommitReceipt:
    """commit(root, count, scope) for a batch (one transaction), recorded in the batch's `registration`."""
    c = batch.commitment
    receipt = fr.commit(w3, compiled, address, c.root, c.count, c.scope, sender)
    batch.registration = Registration(chain_id=w3.eth.chain_id, registry=Web3.to_checksum_address(address),
                                      tx_hash=receipt.tx_hash, block_number=receipt.block_number,
                                      timestamp=receipt.batch.timestamp, gas_used=receipt.gas_used)
    return receipt


def records_for(w3: Web3, compiled: fr.CompiledForecastRegistry, address: str, openings: Sequence[Opening],
                scope: str, forecaster: str | None = None) -> tuple[str, list[str], dict[str, fr.BatchRecord]]:
    """(forecaster, its roots for the scope in commit order, the record of every root named or listed)."""
    records: dict[str, fr.BatchRecord] = {}
    for root in dict.fromkeys(o.root for o in openings):
        record = fr.batch_of(w3, compiled, address, root)
        if record is not None:
            records[root] = record
    if forecaster is None:
        # The forecaster is who committed the first registered root the reveals name.
        first = next((records[o.root] for o in openings if o.root in records), None)
        if first is None:
            raise InputError("no reveal names a root registered on this registry; register the batch with "
                             "`reasonforge forecast register` first, or check --address", field="reveals")
        forecaster = first.committer
    roots = fr.roots_of(w3, compiled, address, forecaster, scope)
    for root in roots:
        if root not in records:
            record = fr.batch_of(w3, compiled, address, root)
            assert record is not None  # rootsOf lists registered roots only
            records[root] = record
    return Web3.to_checksum_address(forecaster), roots, records


def match_on_chain(w3: Web3, compiled: fr.CompiledForecastRegistry, address: str, openings: Sequence[Opening],
                   items: Sequence[ForecastItem], scope: str,
                   forecaster: str | None = None) -> tuple[MatchResult, list[fr.BatchRecord]]:
    """Match reveals against what the registry recorded (timestamps are the chain's, never the files')."""
    who, roots, records = records_for(w3, compiled, address, openings, scope, forecaster)
    match = match_reveals(openings, items, records, roots, who, scope)
    return match, [records[r] for r in roots]


def register_certificate(w3: Web3, compiled: fr.CompiledForecastRegistry, cert: ScoreCertificate,
                         sender: str | None = None) -> tuple[str, int]:
    """registerScore on the certificate's registry; the contract re-derives the id and checks the signatures."""
    body = cert.body
    return fr.register_score(w3, compiled, body.registry, on_chain_score(body, cert.body_digest),
                             [b.root for b in body.batches], [s.signature for s in cert.signatures], sender)

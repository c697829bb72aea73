"""`reasonforge forecast commit | register | reveal | score-reveals | register-score | verify-score | deploy-registry`.

Registered on the forecast app by `add_commands`. Bad input exits 2 with one line (InputError); a
certificate that fails verification exits 1.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from pydantic import ValidationError
from rich.console import Console

from reasonforge.boundary.files import json_document
from reasonforge.errors import InputError
from reasonforge.forecast.numbers import fixed

RpcOpt = Annotated[str, typer.Option("--rpc", help="JSON-RPC URL of the EVM node (e.g. `reasonforge cert devnode`).")]
RegistryOpt = Annotated[str, typer.Option("--registry", help="ForecastRegistry address (from `forecast deploy-registry`).")]
DataOpt = Annotated[Path | None, typer.Option("--data", help="The question set: JSONL of ForecastBench or ForecastItem rows (default: the packaged ForecastBench slice).")]
HomeOpt = Annotated[Path | None, typer.Option("--home", help="Data dir holding certificate/validators.json (default $REASONFORGE_HOME or ~/.reasonforge).")]
SenderOpt = Annotated[str | None, typer.Option("--sender", help="Node account sending the transaction (default: the node's first).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]

err = Console(stderr=True)


def _items(data: Path | None):
    from reasonforge.forecast.dataset import load_dataset

    items = load_dataset(data).items
    if not items:
        raise InputError("the question set is empty; pass --data with a JSONL of items", field="data")
    return items


def _write(path: Path, text: str, flag: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}; choose a writable {flag}",
                         field=flag.lstrip("-")) from None


def _chain(rpc: str, home: Path | None):
    from reasonforge.certificate import forecast_registry as fr
    from reasonforge.certificate.common import certificate_dir, data_home

    if not rpc.startswith(("http://", "https://")):
        raise InputError(f"--rpc must be an http:// or https:// URL, got {rpc!r}", field="rpc")
    try:
        w3 = fr.connect(rpc)
    except fr.RegistryError as exc:
        raise InputError(f"{exc.message}; start one with `reasonforge cert devnode` or fix --rpc", field="rpc") from None
    compiled = fr.compile_forecast_registry(certificate_dir(home or data_home()) / "contracts" / "forecast")
    return w3, compiled


def _address(value: str, flag: str = "--registry") -> str:
    from web3 import Web3

    if not Web3.is_address(value):
        raise InputError(f"{flag} must be a 0x-prefixed 20-byte address, got {value!r}", field=flag.lstrip("-"))
    return Web3.to_checksum_address(value)


def _registry_call(fn, *args, **kwargs):
    """Run a registry call; a refusal becomes an InputError naming the contract's reason."""
    from reasonforge.certificate.forecast_registry import RegistryError

    try:
        return fn(*args, **kwargs)
    except RegistryError as exc:
        raise InputError(exc.message, field="registry") from None


def _validators(home: Path | None):
    from reasonforge.certificate.common import certificate_dir, data_home
    from reasonforge.certificate.params import FULL
    from reasonforge.certificate.validators import load_or_create

    return load_or_create(certificate_dir(home or data_home()) / "validators.json", FULL)[0]


def _read_cert(path: Path):
    from reasonforge.forecast.commit.certificate import ScoreCertificate

    if not path.exists():
        raise InputError(f"certificate file '{path}' does not exist; write one with "
                         "`reasonforge forecast score-reveals --certify`", field="certificate")
    try:
        return ScoreCertificate.model_validate_json(json_document(path, what="certificate", field="certificate"))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "file"
        raise InputError(f"{path}: not a score certificate ({where}: {first['msg']})", field="certificate") from None


def commit_cmd(predictions: Annotated[Path, typer.Argument(help="Predictions JSONL: {id, probability | reply, reasoning?} rows.")],
               out: Annotated[Path, typer.Option("--out", help="Private batch file (salts: keep it secret until the cutoffs).")],
               data: DataOpt = None, as_json: JsonOpt = False) -> None:
    """Commit forecasts (with reasoning and a fresh salt each) to one Poseidon Merkle root."""
    from rich.markup import escape

    from reasonforge.forecast.commit.batch import COMMAND, commit_rows
    from reasonforge.forecast.predictions import read_predictions_file

    loaded = read_predictions_file(predictions, binary=COMMAND)
    for note in loaded.notes:
        err.print(f"[yellow]note:[/] {escape(note)}", highlight=False, soft_wrap=True)
    batch = commit_rows(loaded.rows, _items(data), source=str(predictions))
    _write(out, batch.model_dump_json(indent=1), "--out")
    c = batch.commitment
    if as_json:
        sys.stdout.write(c.model_dump_json() + "\n")
    else:
        print(f"root {c.root} over {c.count} forecasts (scope {c.scope}); private batch in {out}")


def register_cmd(batch_file: Annotated[Path, typer.Argument(help="Batch file from `forecast commit` (updated with the registration).")],
                 rpc: RpcOpt, registry: RegistryOpt, sender: SenderOpt = None, home: HomeOpt = None,
                 as_json: JsonOpt = False) -> None:
    """Register a batch root on the ForecastRegistry: one transaction; the block timestamp is the commit time."""
    from reasonforge.forecast.commit.batch import read_batch, reveal
    from reasonforge.forecast.commit.onchain import register_batch

    batch = read_batch(batch_file)
    reveal(batch)  # refuses a batch edited after commit before anything goes on chain
    w3, compiled = _chain(rpc, home)
    receipt = _registry_call(register_batch, w3, compiled, _address(registry), batch,
                             _address(sender, "--sender") if sender else None)
    _write(batch_file, batch.model_dump_json(indent=1), "BATCH")
    if as_json:
        sys.stdout.write(receipt.model_dump_json() + "\n")
    else:
        per = receipt.gas_used / batch.commitment.count
        print(f"registered {receipt.batch.root} at block {receipt.block_number} (timestamp {receipt.batch.timestamp}), "
              f"gas {receipt.gas_used} ({per:.1f} per forecast)")


def reveal_cmd(batch_file: Annotated[Path, typer.Argument(help="Private batch file from `forecast commit`.")],
               out: Annotated[Path, typer.Option("--out", help="Reveal JSONL: one opening per forecast.")],
               data: DataOpt = None,
               early: Annotated[bool, typer.Option("--before-cutoff", help="Reveal although some cutoffs have not passed (anyone can then copy those forecasts before they close).")] = False) -> None:
    """Publish the openings (forecast, reasoning, salt, Merkle path, root) of a batch, once its cutoffs have passed."""
    from datetime import UTC, datetime

    from reasonforge.forecast.commit.batch import before_cutoff, read_batch, reveal

    batch = read_batch(batch_file)
    openings = reveal(batch)  # refuses a batch edited after commit
    # Refused rather than warned: an opening cannot be taken back, and a forecast opened before its
    # cutoff can be copied by anyone who still has time to commit it.
    pending = [] if early else before_cutoff(batch, _items(data), datetime.now(UTC))
    if pending:
        last = max(item.cutoff for item in pending)
        raise InputError(f"{len(pending)} of the batch's {len(batch.forecasts)} forecasts are of items whose cutoff "
                         f"has not passed (the first, '{pending[0].id}', closes at {_when(pending[0].cutoff)}; the "
                         f"last at {_when(last)}); a reveal now lets anyone copy them before they close. Reveal after "
                         f"{_when(last)}, or pass --before-cutoff to reveal anyway", field="batch")
    _write(out, "".join(o.model_dump_json() + "\n" for o in openings), "--out")
    if early:
        err.print("[yellow]warning:[/] revealed with --before-cutoff: forecasts of items whose cutoff has not "
                  "passed can now be copied", highlight=False, soft_wrap=True)
    print(f"{len(openings)} openings of {openings[0].root} in {out}")


def _when(instant) -> str:
    return instant.isoformat().replace("+00:00", "Z")


def score_reveals_cmd(reveals: Annotated[Path, typer.Argument(help="Reveal JSONL (one or more batches, concatenated).")],
                      rpc: RpcOpt, registry: RegistryOpt, data: DataOpt = None,
                      forecaster: Annotated[str | None, typer.Option("--forecaster", help="Committer address (default: who committed the first registered root).")] = None,
                      certify: Annotated[Path | None, typer.Option("--certify", help="Write a score certificate signed by the local validators here.")] = None,
                      home: HomeOpt = None, as_json: JsonOpt = False) -> None:
    """Score only matched reveals (registered root, before the cutoff, one forecast per item); list the rest with reasons."""
    from reasonforge.forecast.commit.batch import question_set_digest, read_openings
    from reasonforge.forecast.commit.certificate import IncompleteReveal, build_body, sign_body
    from reasonforge.forecast.commit.onchain import match_on_chain

    openings = read_openings(reveals)
    items = _items(data)
    w3, compiled = _chain(rpc, home)
    address = _address(registry)
    match, batches = match_on_chain(w3, compiled, address, openings, items, question_set_digest(items),
                                    _address(forecaster, "--forecaster") if forecaster else None)
    body = build_body(match, openings, items, batches, w3.eth.chain_id, address)
    cert = None
    if certify is not None and body.complete:
        cert = sign_body(body, _validators(home))
        _write(certify, cert.model_dump_json(indent=1), "--certify")
    if as_json:
        sys.stdout.write(json.dumps({"scores": body.scores.model_dump(), "complete": body.complete,
                                     "certifiable": body.complete,
                                     "excluded": [e.model_dump(mode="json") for e in body.excluded],
                                     "roots": [b.root for b in batches]}) + "\n")
    else:
        s = body.scores
        print(f"scored {s.n_scored} of {match.n_committed} committed forecasts; Brier {_num(s.brier)}, "
              f"log loss {_num(s.log_loss)}, market skill {_num(s.market_skill)}; complete: {body.complete}"
              + ("" if body.complete else f" ({match.n_unrevealed} unrevealed: not certifiable)"))
        print_exclusions(body.excluded)
    if certify is not None and cert is None:
        # The scores are shown, but nothing is signed: a withheld leaf could hedge a revealed one.
        raise InputError(str(IncompleteReveal(body.n_unrevealed)), field="reveals")
    if cert is not None and not as_json:
        print(f"certificate {cert.certificate_id} in {certify}")


SHOWN_PER_REASON = 5
"""Exclusions printed per reason; `--json` lists every one (a question set has hundreds of unforecast items)."""


def _num(value: float | None) -> str:
    return fixed(value, missing="—")


def print_exclusions(excluded: list) -> None:
    """A count per reason, then the first few of each with its detail."""
    by_reason: dict[str, list] = {}
    for e in excluded:
        by_reason.setdefault(getattr(e.reason, "value", str(e.reason)), []).append(e)
    if by_reason:
        print("excluded: " + ", ".join(f"{reason} {len(rows)}" for reason, rows in by_reason.items()))
    for reason, rows in by_reason.items():
        for e in rows[:SHOWN_PER_REASON]:
            named = e.item_id is not None and e.item_id not in e.detail
            print(f"  [{reason}] " + (f"{e.item_id}: " if named else "") + e.detail)
        if len(rows) > SHOWN_PER_REASON:
            print(f"  [{reason}] … {len(rows) - SHOWN_PER_REASON} more (--json lists all)")


def register_score_cmd(cert_file: Annotated[Path, typer.Argument(help="Score certificate JSON.")],
                       rpc: RpcOpt, sender: SenderOpt = None, home: HomeOpt = None) -> None:
    """Register a score certificate on its registry (which checks roots, leaf accounting and signatures)."""
    from reasonforge.forecast.commit.onchain import register_certificate

    cert = _read_cert(cert_file)
    w3, compiled = _chain(rpc, home)
    tx, gas = _registry_call(register_certificate, w3, compiled, cert, _address(sender, "--sender") if sender else None)
    print(f"registered score certificate {cert.certificate_id}: tx {tx}, gas {gas}")


def verify_score_cmd(cert_file: Annotated[Path, typer.Argument(help="Score certificate JSON.")], data: DataOpt = None,
                     home: HomeOpt = None,
                     rpc: Annotated[str | None, typer.Option("--rpc", help="Also check on chain: batch records, the validator set, the registered score.")] = None,
                     as_json: JsonOpt = False) -> None:
    """Recompute every score from the reveals, check signatures and threshold; with --rpc, against the registry too."""
    from reasonforge.certificate import forecast_registry as fr
    from reasonforge.forecast.commit.batch import question_set_digest
    from reasonforge.forecast.commit.certificate import on_chain_score, validator_addresses, verify_score

    cert = _read_cert(cert_file)
    items = _items(data)
    if question_set_digest(items) != cert.body.scope:
        # Not a finding about the certificate: nothing can be recomputed against another question set.
        given = f"--data {data}" if data is not None else "the packaged ForecastBench slice (no --data given)"
        raise InputError(f"the certificate scores another question set than {given}; pass the question set it was "
                         "scored on: --data FILE, the file given to `forecast score-reveals`", field="data")
    if rpc is None:
        vset = _validators(home)
        trusted, threshold = validator_addresses(vset), vset.threshold
    else:
        w3, compiled = _chain(rpc, home)
        trusted, threshold = fr.validators_of(w3, compiled, cert.body.registry)
    check = verify_score(cert, items, trusted, threshold)
    if rpc is not None:
        for b in cert.body.batches:
            if fr.batch_of(w3, compiled, cert.body.registry, b.root) != b:
                check.problems.append(f"batch {b.root} is not recorded on the registry as the certificate says")
        stored = fr.score_of(w3, compiled, cert.body.registry, cert.certificate_id)
        if stored != on_chain_score(cert.body, cert.body_digest):
            check.problems.append("the certificate is not registered on the registry (or registered with other scores)")
        check.ok = not check.problems
    if as_json:
        sys.stdout.write(check.model_dump_json() + "\n")
    elif check.ok:
        s = cert.body.scores
        print(f"valid: {cert.certificate_id}: {s.n_scored} forecasts scored (Brier {_num(s.brier)}, market skill "
              f"{_num(s.market_skill)}), {len(cert.body.excluded)} exclusions, signed by {len(check.signed_by)} of "
              f"{len(trusted)} validators (threshold {threshold})" + ("; registered on chain" if rpc else ""))
    else:
        for problem in check.problems:
            print(f"invalid: {problem}")
    raise typer.Exit(0 if check.ok else 1)


def deploy_registry_cmd(rpc: RpcOpt, home: HomeOpt = None, sender: SenderOpt = None, as_json: JsonOpt = False) -> None:
    """Deploy a ForecastRegistry trusting the local validator set (its secp256k1 addresses and threshold)."""
    from reasonforge.certificate import forecast_registry as fr
    from reasonforge.forecast.commit.certificate import validator_addresses

    vset = _validators(home)
    w3, compiled = _chain(rpc, home)
    deployment = _registry_call(fr.deploy, w3, compiled, validator_addresses(vset), vset.threshold,
                                _address(sender, "--sender") if sender else None)
    if as_json:
        sys.stdout.write(deployment.model_dump_json() + "\n")
    else:
        print(f"ForecastRegistry at {deployment.address} (chain {deployment.chain_id}), trusting "
              f"{len(deployment.validators)} validators, threshold {deployment.threshold}; gas {deployment.deploy_gas}")


def add_commands(app: typer.Typer) -> None:
    """Register the commit–reveal commands on the forecast app."""
    app.command("commit")(commit_cmd)
    app.command("register")(register_cmd)
    app.command("reveal")(reveal_cmd)
    app.command("score-reveals")(score_reveals_cmd)
    app.command("register-score")(register_score_cmd)
    app.command("verify-score")(verify_score_cmd)
    app.command("deploy-registry")(deploy_registry_cmd)

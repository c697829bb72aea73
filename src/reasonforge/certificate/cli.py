"""`reasonforge cert …`: issue, verify, register, show certificates; run a loopback dev node."""

from __future__ import annotations

import json
import os
import sys
import time
from enum import Enum
from pathlib import Path
from typing import Annotated, TypeVar

import typer
from pydantic import BaseModel, ValidationError
from rich.console import Console
from rich.table import Table

from reasonforge.boundary.files import json_document
from reasonforge.certificate.common import CertificateError, certificate_dir, data_home
from reasonforge.certificate.params import FULL, SMALL
from reasonforge.certificate.schema import CommitmentOpening, VerificationCertificate
from reasonforge.cli_errors import ReasonForgeTyper, validation_message
from reasonforge.errors import InputError
from reasonforge.types import VerificationVerdict, VerifyRequest

app = ReasonForgeTyper(
    help="Verification certificates: Groth16 proofs of attested verdicts, EVM registry.", no_args_is_help=True
)
err = Console(stderr=True)


class Circuit(str, Enum):
    full = "full"
    small = "small"


# What each document this app reads is, and where one comes from: a file of another kind is named as what it is.
_DOCUMENTS: dict[type[BaseModel], tuple[str, str]] = {
    VerificationCertificate: ("a certificate", "`reasonforge cert issue VERDICT.json` makes one from a verdict"),
    CommitmentOpening: ("a certificate's private opening",
                        "`reasonforge cert issue` writes it beside the certificate, as CERT.opening.json"),
    VerificationVerdict: ("a verdict", "`reasonforge verify --json` prints one"),
    VerifyRequest: ("a verification request", "`reasonforge verify FILE` checks it"),
}

_Doc = TypeVar("_Doc", VerificationCertificate, CommitmentOpening, VerificationVerdict)


def _load(path: Path, model: type[_Doc], what: str) -> _Doc:
    """`path` read as `model`, or a CertificateError saying what is wrong with it; a file that is another of the
    documents this app reads (a verdict given as a certificate) is named as what it is."""
    text = _read(path, what)
    try:
        return model.model_validate_json(text)
    except ValidationError as exc:
        wanted, source = _DOCUMENTS[model]
        for other, (name, _) in _DOCUMENTS.items():
            if other is not model and _fits(other, text):
                raise CertificateError(f"{path} is {name}, not {wanted}; {source}") from None
        raise CertificateError(f"{path}: not {wanted}: {validation_message(exc)}") from None


def _fits(model: type[BaseModel], text: str) -> bool:
    try:
        model.model_validate_json(text)
    except ValidationError:
        return False
    return True


def _read(path: Path, what: str) -> str:
    """A JSON file's text once it is bounded (size, depth, numbers), UTF-8, and has no repeated key (pydantic's
    decoder would keep the last one); otherwise a CertificateError saying why and where."""
    if not path.exists() and not path.is_symlink():
        raise CertificateError(f"{path}: no such {what} file")
    try:
        return json_document(path, what=what, field=what)
    except InputError as exc:
        raise CertificateError(exc.message) from None


def _load_cert(path: Path) -> VerificationCertificate:
    """Parse a certificate file or raise a user-facing error."""
    return _load(path, VerificationCertificate, "certificate")


def _load_opening(path: Path) -> CommitmentOpening:
    """Parse an opening file or raise a user-facing error."""
    return _load(path, CommitmentOpening, "opening")


def _load_verdict(path: Path) -> VerificationVerdict:
    """Parse a verdict file or raise a user-facing error."""
    return _load(path, VerificationVerdict, "verdict")


def _bound_claims(cert: VerificationCertificate) -> str:
    """What the certificate's proof and signatures bind, in one line."""
    checkers = ", ".join(f"{s.name} {s.version}" for s in cert.checker_specs) or "none recorded"
    return (f"{cert.domain}, {cert.proof_level} level, assurance {cert.assurance}; checkers: {checkers}; "
            f"verdict digest {cert.verdict_digest}")


def _vk_for(cert: VerificationCertificate, vk: Path | None) -> str:
    """The verification key JSON: --vk, else the one cached for the certificate's circuit."""
    path = vk or certificate_dir(data_home()) / "keys" / cert.verification_key.circuit / "verification_key.json"
    if not path.exists():
        raise CertificateError(f"no verification key at {path}: pass --vk or run `reasonforge cert issue` once")
    return _read(path, "verification key")


def _check_writable(path: Path) -> None:
    """Fail before the minutes of proving when the certificate could not be written afterwards."""
    if path.is_dir():
        raise CertificateError(f"{path} is a directory; give --out a file name such as certificate.json")
    parent = path.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
        raise CertificateError(f"cannot write {path}: {parent} is not a writable directory; choose another --out")
    if path.exists() and not os.access(path, os.W_OK):
        raise CertificateError(f"cannot write {path}: the file is read-only; choose another --out")


@app.command("issue")
def issue_cmd(
    verdict_file: Annotated[Path, typer.Argument(metavar="VERDICT.json",
                                                 help="VerificationVerdict JSON from `reasonforge verify --json`.")],
    out: Annotated[Path, typer.Option("--out", help="Where to write the certificate.")] = Path("certificate.json"),
    as_json: Annotated[bool, typer.Option("--json", help="Print the certificate JSON.")] = False,
    circuit: Annotated[
        Circuit, typer.Option("--circuit", help="Circuit instance (small: reduced, for tests).")
    ] = Circuit.full,
    timestamp: Annotated[int | None, typer.Option("--timestamp", help="Unix time to attest (default: now).")] = None,
    verify_base: Annotated[
        str | None,
        typer.Option(
            "--verify-base",
            envvar="REASONFORGE_VERIFY_BASE",
            help="Public URL prefix where certificates can be checked; verify_url = PREFIX/<certificate_id>.",
        ),
    ] = None,
) -> None:
    """Sign the verdict with the local validator keys, prove it and write the certificate."""
    verdict = _load_verdict(verdict_file)
    _check_writable(out)
    _check_writable(out.with_suffix(".opening.json"))
    from reasonforge.certificate.issue import issue  # heavy (groth16py): load on use

    params = FULL if circuit is Circuit.full else SMALL
    started = time.monotonic()
    cert, opening = issue(
        verdict, home=data_home(), params=params, timestamp=timestamp, progress=err.print, verify_base=verify_base
    )
    opening_path = out.with_suffix(".opening.json")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(cert.model_dump_json(indent=2))
        opening_path.write_text(opening.model_dump_json(indent=2))
    except OSError as exc:
        # the proof is already paid for: print it rather than lose it
        print(cert.model_dump_json())
        err.print(f"error: cannot write {exc.filename or out}: {exc.strerror or exc}; the certificate is on "
                  "standard output, and its private opening was not saved")
        raise typer.Exit(2) from exc
    if as_json:
        print(cert.model_dump_json())
    else:
        err.print(
            f"certificate {cert.certificate_id} for {cert.verified_steps}/{cert.total_steps} steps "
            f"({cert.overall_verdict}), {len(cert.zk_proof)} proof(s), {time.monotonic() - started:.1f}s -> {out}\n"
            f"private opening (step verdicts + salts; keep it, do not publish) -> {opening_path}"
        )


@app.command("verify")
def verify_cmd(
    cert_file: Annotated[Path, typer.Argument(metavar="CERT.json", help="Certificate JSON.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print {valid, reasons} as JSON.")] = False,
    vk: Annotated[Path | None, typer.Option("--vk", help="verification_key.json to check against.")] = None,
    opening: Annotated[Path | None, typer.Option("--opening", help="Also check the private opening.")] = None,
    verdict: Annotated[
        Path | None,
        typer.Option("--verdict", help="Also check that this verdict JSON is the one certified (its digest)."),
    ] = None,
) -> None:
    """Offline check: certificate id, bound fields (level, domain, checkers, digest) vs the proof, Groth16 proof(s),
    attestations."""
    from reasonforge.certificate.check import (
        check_certificate,  # heavy (groth16py): load on use
    )

    cert = _load_cert(cert_file)
    opened = _load_opening(opening) if opening else None
    checked = _load_verdict(verdict) if verdict else None
    result = check_certificate(cert, _vk_for(cert, vk), opening=opened, verdict=checked)
    if as_json:
        print(result.model_dump_json())
    for reason in result.reasons:
        err.print(f"invalid: {reason}")
    if result.valid and not as_json:
        print(f"valid: {cert.certificate_id} ({cert.verified_steps}/{cert.total_steps} steps, {cert.overall_verdict})")
        print(f"bound: {_bound_claims(cert)}", end="\n" if checked is None else "; the verdict JSON matches\n")
    raise typer.Exit(0 if result.valid else 1)


@app.command("register")
def register_cmd(
    cert_file: Annotated[Path, typer.Argument(metavar="CERT.json",
                                              help="Certificate JSON (updated in place with the registration).")],
    rpc: Annotated[str, typer.Option("--rpc", help="JSON-RPC URL of the EVM node.")],
    registry_address: Annotated[
        str | None, typer.Option("--registry", help="Registry address (default: deploy one).")
    ] = None,
    vk: Annotated[Path | None, typer.Option("--vk", help="verification_key.json of the circuit.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the registration as JSON.")] = False,
) -> None:
    """Register the certificate on an EVM registry (deploying verifier + registry when none is given)."""
    from reasonforge.certificate import registry, solidity

    cert = _load_cert(cert_file)
    vk_json = _vk_for(cert, vk)
    build = certificate_dir(data_home()) / "contracts" / cert.verification_key.sha256[:16]
    build.mkdir(parents=True, exist_ok=True)
    (build / "verification_key.json").write_text(vk_json)
    compiled = solidity.compile_contracts(build / "verification_key.json", build)
    w3 = registry.connect(rpc)
    if registry_address is None:
        deployment = registry.deploy(w3, compiled, int(cert.validator_commitment, 16))
        registry_address = deployment.registry
        err.print(f"deployed verifier {deployment.verifier} and registry {deployment.registry}")
    reg = registry.register(w3, compiled, registry_address, cert)
    verified = registry.is_verified(w3, compiled, registry_address, cert.task_hash)
    at_level = registry.is_verified_at(w3, compiled, registry_address, cert.task_hash, cert.proof_level)
    cert = cert.model_copy(update=reg.model_dump(exclude={"gas_used"}))
    cert_file.write_text(cert.model_dump_json(indent=2))
    if as_json:
        print(json.dumps({**reg.model_dump(), "is_verified": verified, "is_verified_at_level": at_level}))
    else:
        err.print(
            f"registered in block {reg.block_number}, tx {reg.tx_hash}, gas {reg.gas_used}; isVerified = {verified}, "
            f"isVerifiedAt({cert.proof_level}) = {at_level}"
        )


@app.command("show")
def show_cmd(cert_file: Annotated[Path, typer.Argument(metavar="CERT.json", help="Certificate JSON.")]) -> None:
    """Print a certificate's public claims."""
    cert = _load_cert(cert_file)
    table = Table(title=f"certificate {cert.certificate_id}")
    table.add_column("field")
    table.add_column("value")
    for name in (
        "task_hash",
        "domain",
        "proof_level",
        "overall_verdict",
        "assurance",
        "verified_steps",
        "total_steps",
        "timestamp",
        "validator_count",
        "validator_threshold",
        "stake_threshold",
        "validator_commitment",
        "verdict_digest",
        "checkers_digest",
    ):
        table.add_row(name, str(getattr(cert, name)))
    # the registration's fields stay empty until `cert register` fills them: one row says so
    registration = ("chain_id", "registry_address", "tx_hash", "block_number")
    if all(getattr(cert, name) is None for name in registration):
        table.add_row("registration", "none (`reasonforge cert register` records one)")
    for name in registration:
        if getattr(cert, name) is not None:
            table.add_row(name, str(getattr(cert, name)))
    if cert.verify_url is not None:
        table.add_row("verify_url", cert.verify_url)
    table.add_row("proofs", f"{len(cert.zk_proof)} × Groth16 ({cert.verification_key.circuit})")
    table.add_row("checkers", ", ".join(f"{s.name} {s.version}" for s in cert.checker_specs) or "none recorded")
    Console().print(table)


@app.command("devnode")
def devnode_cmd(
    port: Annotated[int, typer.Option("--port", min=0, max=65535, help="TCP port (0: any free one).")] = 8545,
) -> None:
    """Run an in-process EVM (eth-tester + py-evm) on 127.0.0.1 for local registration."""
    from reasonforge.certificate import devnode

    server, url = devnode.start(port=port)
    err.print(f"dev EVM node at {url} (Ctrl-C to stop)")
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        devnode.stop(server)
        sys.exit(0)

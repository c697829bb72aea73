"""The human-readable pages: the landing page (`GET /`), the certificate page (`GET /verify/{cert_id}`) and a
running job's page (`GET /verdicts/{task_id}` until its verdict is in); every value is HTML-escaped."""

from __future__ import annotations

from datetime import UTC, datetime
from html import escape

from reasonforge.certificate import CheckResult, VerificationCertificate
from reasonforge.chain import StepGraph
from reasonforge.service.jobs.progress import JobProgress
from reasonforge.types import JobStatus, VerifyRequest

PAGE_HEADERS = {
    # Nothing on the page needs scripts, frames or remote content.
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}

_STYLE = """
body{font-family:system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b}
h1{font-size:1.4rem} table{border-collapse:collapse;width:100%} td,th{text-align:left;padding:.35rem .5rem;
border-bottom:1px solid #ddd;vertical-align:top} th{width:14rem;color:#555;font-weight:600}
code{font-size:.85rem;word-break:break-all} .ok{color:#106b21} .bad{color:#a11} .warn{background:#fff4d6;
padding:.6rem;border:1px solid #e5c46b} .VERIFIED{color:#106b21} .PARTIAL{color:#8a6100} .FAILED{color:#a11}
.muted{color:#666} table.steps th{width:5rem} td.state{width:8rem;white-space:nowrap}
.state.checked{color:#106b21} .state.checking{color:#1d4f91;font-weight:600} .state.waiting{color:#888}
td.steptext{font-family:ui-monospace,"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:.85rem;white-space:pre-wrap}
progress{width:100%;height:.9rem}
"""


def _row(label: str, value: str, *, code: bool = False) -> str:
    text = escape(value)
    return f"<tr><th>{escape(label)}</th><td>{f'<code>{text}</code>' if code else text}</td></tr>"


def document(title: str, body: str) -> str:
    """A whole page around `body` (already escaped) in the pages' style."""
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        '<meta name=viewport content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{_STYLE}</style></head><body>{body}</body></html>"
    )


_LINKS = (
    ("/docs", "API reference", "every operation, its request and response schemas, try it in the browser"),
    ("/redoc", "API reference (ReDoc)", "the same, as one readable document"),
    ("/openapi.json", "OpenAPI document", "the machine-readable contract the SDKs and the contract test use"),
    ("/healthz", "Health", "the store, the queue and whether certificate keys are ready"),
    ("/metrics", "Metrics", "Prometheus text: request latencies by route, jobs by status, checker latency"),
    ("/dashboard", "Dashboard", "volume, success rate, first failing steps, checker latency, miners (an admin key)"),
)


_VERDICT_PAGES = "/verdicts/{task_id}: one verdict step by step (your API key, or an admin key, as the password)"


def landing_page(*, queue: str, certificate_keys: str) -> str:
    """What this server is and where its documentation, health, metrics and pages are."""
    links = "".join(
        f'<tr><th><a href="{escape(href)}">{escape(name)}</a></th><td>{escape(what)}</td></tr>'
        for href, name, what in _LINKS
    )
    example = (
        "curl -s -X POST $BASE/v1/verify -H 'Authorization: Bearer rf_…' -H 'Content-Type: application/json' \\\n"
        "  -d '{\"domain\": \"mathematics\", \"proof_level\": \"quick\", \"generate_certificate\": false,\n"
        "       \"reasoning_chain\": [{\"step_id\": 1, \"content\": \"Let x = 2\"},\n"
        "                           {\"step_id\": 2, \"content\": \"So x + 1 = 3\"}]}'\n"
        "curl -s \"$BASE/v1/verify/TASK_ID?wait=30\" -H 'Authorization: Bearer rf_…'"
    )
    body = (
        "<h1>ReasonForge verification API</h1>"
        "<p>Send a reasoning chain; each step's claim is checked by a real tool (SymPy, Coq, Lean 4, tests in a "
        "sandbox, an SMT solver), and the verdict says VERIFIED, PARTIAL or FAILED, where the first failing step is, "
        "and why. Every <code>/v1</code> call needs an API key (<code>reasonforge keys create</code> on the "
        "server).</p>"
        f"<table>{links}"
        f"{_row('Verdict pages', _VERDICT_PAGES)}"
        f"{_row('Compliance reports', '/v1/verify/{task_id}/report.pdf?template=plain|eu_ai_act|fda|sec')}"
        f"{_row('Certificate pages', '/verify/{certificate_id}: a certificate, re-checked when viewed')}"
        f"{_row('Queue', queue)}{_row('Certificate keys', certificate_keys)}</table>"
        f"<h2>First verification</h2><pre><code>{escape(example)}</code></pre>"
    )
    return document("ReasonForge verification API", body)


def certificate_page(
    cert: VerificationCertificate,
    check: CheckResult | None,
    check_error: str | None = None,
) -> str:
    """The certificate's claims, its key, its attestations and the result of checking it just now."""
    when = datetime.fromtimestamp(cert.timestamp, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    verdict = escape(cert.overall_verdict)
    verdict_class = (
        verdict if cert.overall_verdict in ("VERIFIED", "PARTIAL", "FAILED") else ""
    )
    if check is None:
        status = f"<p class=bad>Could not check this certificate now: {escape(check_error or 'unknown error')}</p>"
    elif check.valid:
        status = (
            "<p class=ok>&#10003; Checked just now: the Groth16 proof, certificate id and attestations are valid, "
            "and the domain, proof level, assurance, checkers and verdict digest shown are the ones the validators "
            "signed.</p>"
        )
    else:
        items = "".join(f"<li>{escape(reason)}</li>" for reason in check.reasons)
        status = f"<p class=bad>&#10007; This certificate does not check:</p><ul>{items}</ul>"
    warning = ""
    if cert.verification_key.insecure_development_key:
        warning = (
            "<p class=warn>Proved with development keys from a single-party setup: whoever ran that setup "
            "could forge proofs. Production certificates use keys from a multi-party ceremony.</p>"
        )
    rows = [
        _row("Certificate id", cert.certificate_id, code=True),
        _row("Steps verified", f"{cert.verified_steps} of {cert.total_steps}"),
        _row("Domain / proof level", f"{cert.domain} / {cert.proof_level}"),
        _row("Assurance", cert.assurance),
        _row("Issued", when),
        _row(
            "Validators",
            f"{cert.validator_count} signed (threshold {cert.validator_threshold})",
        ),
        _row("Validator commitment", cert.validator_commitment, code=True),
        _row("Task hash", cert.task_hash, code=True),
        _row("Verdict digest (signed)", cert.verdict_digest, code=True),
        _row("Checkers digest (signed)", cert.checkers_digest, code=True),
        _row("Verdict hash (the plan's, unsigned)", cert.verdict_hash, code=True),
        _row(
            "Circuit",
            f"{cert.verification_key.circuit} ({len(cert.zk_proof)} proof segment(s))",
        ),
        _row("Verification key sha256", cert.verification_key.sha256, code=True),
        _row(
            "Checkers",
            ", ".join(f"{s.name} {s.version}" for s in cert.checker_specs) or "-",
        ),
    ]
    if cert.registry_address:
        rows.append(
            _row(
                "Registered on chain",
                f"{cert.chain_id}: {cert.registry_address} (tx {cert.tx_hash})",
                code=True,
            )
        )
    body = (
        f"<h1>Verification certificate: <span class={verdict_class}>{verdict}</span></h1>{status}{warning}"
        f"<table>{''.join(rows)}</table>"
        "<p>Check it yourself: download the JSON from <code>GET /v1/certificates/{id}</code> and run "
        "<code>reasonforge cert verify certificate.json</code>.</p>"
    )
    return document(f"Certificate {cert.certificate_id}", body)


def not_found_page(cert_id: str) -> str:
    """A 404 page naming the id that was asked for."""
    return document(
        "Certificate not found",
        f"<h1>No such certificate</h1><p>This service has issued no certificate <code>{escape(cert_id)}</code>.</p>",
    )


_PHASES = {
    JobStatus.QUEUED.value: "Waiting in the queue for a worker.",
    JobStatus.TRANSLATING.value: "Translating the steps into formal artifacts.",
    JobStatus.VERIFYING.value: "Checking the steps.",
}
_SHOWN_CHARS = 160  # of a step's first line: the page is a progress report, the verdict page shows it all


def job_page(task_id: str, status: str, request: VerifyRequest, progress: JobProgress | None, *,
             error: str | None = None, running_for_s: float | None = None) -> str:
    """A job without a verdict: its phase and, step by step in checking order, which steps are checked, which one
    is being checked now and which wait (from the progress the job records while it runs)."""
    order = StepGraph(request.reasoning_chain).order
    texts = {step.step_id: step.content for step in request.reasoning_chain}
    checking = progress.position if progress is not None and status == JobStatus.VERIFYING.value else 0
    phase = _PHASES.get(status, "")
    if checking and progress is not None:
        phase = f"Checking step {progress.step_id} ({progress.position} of {progress.total})."
        which = progress.message.rpartition(", ")[2]  # "translation 2 of 3" of an ensemble's checks
        if which.startswith("translation "):
            phase += f" <span class=muted>({escape(which)})</span>"
    elif phase:
        phase = escape(phase)
    if running_for_s is not None and status in _PHASES and status != JobStatus.QUEUED.value:
        phase += f" <span class=muted>Running for {running_for_s:.0f} s.</span>"
    rows = []
    for position, sid in enumerate(order, start=1):
        state = "checked" if position < checking else "checking now" if position == checking else "waiting"
        lines = texts[sid].strip().splitlines() or [""]
        text = lines[0][:_SHOWN_CHARS] + (" …" if len(lines) > 1 or len(lines[0]) > _SHOWN_CHARS else "")
        rows.append(f'<tr class="step" data-step="{sid}" data-state="{state.split()[0]}"><th>Step {sid}</th>'
                    f'<td class="state {state.split()[0]}">{state}</td><td class="steptext">{escape(text)}</td></tr>')
    bar = (f'<p><progress id="progress" max="{len(order)}" value="{max(checking - 1, 0)}"></progress></p>'
           if status in _PHASES else "")
    body = (f"<h1>Task <code>{escape(task_id)}</code>: {escape(status)}</h1>"
            f'<p id="phase">{phase}</p>{bar}'
            + (f"<p class=bad>Error: {escape(error)}</p>" if error else "")
            + f'<table class="steps" id="steps">{"".join(rows)}</table>'
            + ("<p class=muted>This page reloads every 5 seconds until the verdict is in.</p>"
               if status in _PHASES else ""))
    return document(f"Task {task_id}: {status}", body)

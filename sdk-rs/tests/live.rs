//! The client against a live `reasonforge serve`, started here on a free loopback port.
//!
//! One server serves every check: it takes seconds to start, and a statics-held server would never be stopped
//! (statics are not dropped). So this is its own harness: it starts the server, runs each check catching its
//! panic, and drops the server at the end whatever happened. `cargo test --test live -- NAME` runs only the
//! checks whose name contains NAME.

mod service;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::thread;
use std::time::{Duration, Instant};

use reasonforge::{
    Assurance, Client, Domain, Error, JobStatus, ProofLevel, ReasoningRequest, ReasoningStep, StepStatus, Verdict,
    VerifyRequest,
};
use serde_json::{json, Value};

use service::Service;

struct Live {
    service: Service,
    rf: Client,
}

fn pythagoras() -> VerifyRequest {
    VerifyRequest::from_texts(
        Domain::Mathematics,
        ["Let x = 3 and y = 4", "By Pythagorean theorem, x² + y² = z²", "So z² = 9 + 16 = 25", "Therefore z = 5"],
    )
    .original_query("Find the hypotenuse of a right triangle with legs 3 and 4")
    .claimed_answer("z = 5")
}

fn quick(request: VerifyRequest) -> VerifyRequest {
    request.proof_level(ProofLevel::Quick).generate_certificate(false)
}

/// A chain from the repository's examples/, as the CLI would send it.
fn example(name: &str) -> VerifyRequest {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let doc: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let steps = doc["reasoning_chain"].as_array().expect("a reasoning_chain").iter().map(|step| {
        let id = step["step_id"].as_u64().expect("a step_id") as u32;
        let mut out = ReasoningStep::new(id, step["content"].as_str().expect("content"));
        if let Some(conclusion) = step["claimed_conclusion"].as_str() {
            out = out.claimed_conclusion(conclusion);
        }
        out
    });
    let domain: Domain = serde_json::from_value(doc["domain"].clone()).expect("a domain");
    let mut request = VerifyRequest::new(domain, steps);
    if let Some(query) = doc["original_query"].as_str() {
        request = request.original_query(query);
    }
    if let Some(answer) = doc["claimed_answer"].as_str() {
        request = request.claimed_answer(answer);
    }
    if !doc["proof_level"].is_null() {
        request = request.proof_level(serde_json::from_value(doc["proof_level"].clone()).expect("a proof level"));
    }
    request.generate_certificate(false)
}

fn statuses(job: &reasonforge::VerifyResponse) -> Vec<StepStatus> {
    job.steps.as_ref().expect("steps").iter().map(|s| s.status).collect()
}

fn is_hex_digest(value: Option<&str>) -> bool {
    value.map_or(false, |v| v.len() == 64 && v.bytes().all(|b| b.is_ascii_hexdigit()))
}

fn health_needs_no_key(live: &Live) {
    let anonymous = Client::builder(&live.service.base_url).build().expect("a client");
    let health = anonymous.health().expect("healthz");
    assert_eq!((health.status.as_str(), health.queue.as_str()), ("ok", "inprocess"));
}

fn verify_a_maths_chain(live: &Live) {
    let job = live.rf.verify(&quick(pythagoras())).expect("a verdict");
    assert_eq!(job.status, JobStatus::Complete);
    assert_eq!(job.verdict, Some(Verdict::Verified));
    assert_eq!((job.steps_verified, job.steps_total), (Some(4), Some(4)));
    assert_eq!(job.failure_points.as_deref(), Some(&[][..]));
    assert!(job.first_failure().is_none());
    assert_eq!(job.certificate_url, None);
    assert_eq!(statuses(&job), vec![StepStatus::Verified; 4]);
    let steps = job.steps.as_ref().expect("steps");
    assert!(steps.iter().all(|s| s.verified));
    let checker = steps[0].checker.as_deref().unwrap_or("");
    assert!(checker.starts_with("sympy-relations "), "{checker}");
    assert!(is_hex_digest(job.verdict_digest.as_deref()), "{:?}", job.verdict_digest);
    assert!(job.assurance.is_some());
    // The plan's quick price with no certificate.
    assert!((job.cost_credits.expect("a cost") - 0.18).abs() < 1e-9, "{:?}", job.cost_credits);
}

fn verify_the_whale_example(live: &Live) {
    let job = live.rf.verify(&example("whale.json")).expect("a verdict");
    assert_eq!(job.verdict, Some(Verdict::Verified), "{job:?}");
    assert_eq!(job.assurance, Some(Assurance::Proven));
    assert_eq!(statuses(&job), vec![StepStatus::Verified]);
}

fn a_refuted_first_step_fails_the_chain(live: &Live) {
    let request = quick(VerifyRequest::from_texts(Domain::Mathematics, ["3 × 12 = 38.", "So 38 - 9 = 29."]));
    let job = live.rf.verify(&request).expect("a verdict");
    assert_eq!(job.verdict, Some(Verdict::Failed), "{job:?}");
    assert_eq!(job.assurance, Some(Assurance::Refuted));
    assert_eq!(job.steps_verified, Some(0));
    let failure = job.first_failure().expect("the failing step");
    assert_eq!(failure.step_id, 1);
    assert_eq!(failure.cascade_impact, vec![2]);
    assert!(failure.error.contains("36"), "{}", failure.error);
    assert_eq!(statuses(&job), vec![StepStatus::Failed, StepStatus::Invalidated]);
}

fn a_slip_in_the_example_is_located(live: &Live) {
    let job = live.rf.verify(&example("arithmetic-slip.json")).expect("a verdict");
    assert_eq!(job.verdict, Some(Verdict::Partial), "{job:?}");
    let failure = job.first_failure().expect("the failing step");
    assert_eq!((failure.step_id, failure.cascade_impact.as_slice()), (3, &[4][..]));
    assert!(failure.error.contains("51"), "{}", failure.error);
    assert_eq!(
        statuses(&job),
        vec![StepStatus::Verified, StepStatus::Verified, StepStatus::Failed, StepStatus::Invalidated]
    );
    let step = job.step(3).expect("step 3");
    assert!(step.message.as_deref().unwrap_or("").contains("51"), "{step:?}");
}

fn verify_text_and_a_provider_response(live: &Live) {
    let question = "x = 3, y = 4: what is x + y?";
    let request = ReasoningRequest::new(Domain::Mathematics)
        .original_query(question)
        .proof_level(ProofLevel::Quick)
        .generate_certificate(false);
    let text = live
        .rf
        .verify_text("Step 1: Let x = 3 and y = 4.\nStep 2: So x + y = 7.\n#### 7", &request)
        .expect("a verdict");
    assert_eq!(text.verdict, Some(Verdict::Verified), "{text:?}");
    assert_eq!(text.steps_total, Some(2));
    let completion = json!({
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant",
            "reasoning_content": "Let x = 3 and y = 4.\n\nSo x + y = 8.", "content": "The answer is 8."}}],
    });
    let wrong = live.rf.verify_response(&completion, &request).expect("a verdict");
    assert_ne!(wrong.verdict, Some(Verdict::Verified));
    assert_eq!(wrong.first_failure().map(|f| f.step_id), Some(2));
    let empty = json!({"object": "chat.completion", "choices": []});
    match live.rf.verify_response(&empty, &ReasoningRequest::new(Domain::Logic)) {
        Err(Error::InvalidRequest(api)) => assert!(api.message.contains("no choices"), "{api}"),
        other => panic!("expected InvalidRequest, got {other:?}"),
    }
    match live.rf.verify_text("  ", &request) {
        Err(Error::Input { field, .. }) => assert_eq!(field, "reasoning"),
        other => panic!("expected an input error, got {other:?}"),
    }
}

fn submit_get_wait_and_idempotency(live: &Live) {
    let request = quick(example("arithmetic-slip.json"));
    let queued = live.rf.submit_with_key(&request, "rs-idem-1").expect("queued");
    let again = live.rf.submit_with_key(&request, "rs-idem-1").expect("replayed");
    assert_eq!(again.task_id, queued.task_id);
    match live.rf.submit_with_key(&quick(pythagoras()), "rs-idem-1") {
        Err(Error::Conflict(api)) => assert_eq!(api.status, 409),
        other => panic!("expected Conflict, got {other:?}"),
    }
    let done = live.rf.wait(&queued.task_id, Duration::from_secs(120)).expect("a verdict");
    assert_eq!(done.verdict, Some(Verdict::Partial));
    assert_eq!(live.rf.get(&queued.task_id).expect("the same job"), done);
}

fn wait_long_polls_and_times_out(live: &Live) {
    // A formal proof takes seconds: long enough to see the server hold a poll, and a short wait run out.
    let formal = pythagoras().proof_level(ProofLevel::Formal).generate_certificate(false);
    let job = live.rf.submit(&formal).expect("queued");
    let started = Instant::now();
    let held = live.rf.poll(&job.task_id, Duration::from_secs(2)).expect("a status");
    assert!(
        held.status.is_terminal() || started.elapsed() >= Duration::from_millis(1900),
        "answered {:?} after {:?}: the server did not hold the poll",
        held.status,
        started.elapsed()
    );
    let other = live.rf.submit(&formal).expect("queued");
    match live.rf.wait(&other.task_id, Duration::from_millis(50)) {
        Err(Error::Timeout { task_id, last_status, .. }) => {
            assert_eq!(task_id, other.task_id);
            assert!(!last_status.is_terminal());
        }
        other => panic!("expected a timeout, got {other:?}"),
    }
    for task_id in [&job.task_id, &other.task_id] {
        let done = live.rf.wait(task_id, Duration::from_secs(240)).expect("a verdict");
        assert_eq!(done.status, JobStatus::Complete, "{done:?}");
        assert_eq!(done.verdict, Some(Verdict::Verified), "{done:?}");
    }
}

fn batch_and_list(live: &Live) {
    let requests = [quick(pythagoras()), quick(example("arithmetic-slip.json")).reference_answer("53")];
    let results = live.rf.verify_many(&requests).expect("verdicts");
    let verdicts: Vec<_> = results.iter().map(|r| r.verdict).collect();
    assert_eq!(verdicts, vec![Some(Verdict::Verified), Some(Verdict::Partial)]);
    assert_eq!(results[1].answer_matches_reference, Some(true));
    let first = live.rf.list_tasks(1, None, None).expect("a page");
    assert_eq!(first.tasks.len(), 1);
    let cursor = first.next_cursor.clone().expect("a next page");
    let rest = live.rf.list_tasks(100, Some(JobStatus::Complete), Some(&cursor)).expect("a page");
    let ids: Vec<&str> = first.tasks.iter().chain(&rest.tasks).map(|t| t.task_id.as_str()).collect();
    for result in &results {
        assert!(ids.contains(&result.task_id.as_str()), "{} not listed", result.task_id);
    }
    let bad = [quick(pythagoras()), VerifyRequest::new(Domain::Logic, Vec::new())];
    match live.rf.submit_many(&bad) {
        Err(Error::Input { field, .. }) => assert_eq!(field, "requests[1].reasoning_chain"),
        other => panic!("expected an input error, got {other:?}"),
    }
    assert!(matches!(live.rf.submit_many(&[]), Err(Error::Input { .. })));
    assert!(matches!(live.rf.list_tasks(0, None, None), Err(Error::Input { .. })));
}

fn typed_errors(live: &Live) {
    match live.rf.get("0123456789abcdef0123456789abcdef") {
        Err(Error::NotFound(api)) => {
            assert_eq!((api.status, api.code.as_str(), api.field.as_deref()), (404, "not_found", Some("task_id")));
        }
        other => panic!("expected NotFound, got {other:?}"),
    }
    let missing = format!("0x{}", "0".repeat(64));
    assert!(matches!(live.rf.certificate(&missing), Err(Error::NotFound(_))));
    assert!(matches!(live.rf.verify_certificate(&missing), Err(Error::NotFound(_))));

    let anonymous = Client::builder(&live.service.base_url).build().expect("a client");
    match anonymous.submit(&quick(pythagoras())) {
        Err(Error::Authentication(api)) => assert_eq!(api.status, 401),
        other => panic!("expected Authentication, got {other:?}"),
    }
    let unknown = Client::new(&live.service.base_url, "rf_unknown_0123456789abcdef").expect("a client");
    match unknown.get("0123456789abcdef0123456789abcdef") {
        Err(err @ Error::Authentication(_)) => assert_eq!(err.status(), Some(401)),
        other => panic!("expected Authentication, got {other:?}"),
    }
    let free = Client::new(&live.service.base_url, &live.service.create_key("sdk-rs-free", &["--tier", "free"]))
        .expect("a client");
    match free.submit(&pythagoras().proof_level(ProofLevel::Formal)) {
        Err(Error::PaymentRequired(api)) => assert_eq!(api.status, 402),
        other => panic!("expected PaymentRequired, got {other:?}"),
    }

    // Malformed: a dependency on a step the chain does not have. The server says which and where.
    let steps = vec![ReasoningStep::new(1, "Let x = 3."), ReasoningStep::new(2, "So x + 1 = 4.").dependencies([7])];
    match live.rf.submit(&VerifyRequest::new(Domain::Mathematics, steps)) {
        Err(err @ Error::InvalidRequest(_)) => {
            let api = err.api().expect("the server's error");
            assert_eq!((api.status, api.code.as_str()), (422, "validation_error"));
            assert_eq!(err.field(), Some("reasoning_chain[1].dependencies"));
            assert!(api.message.contains("unknown step 7"), "{api}");
            assert!(err.to_string().starts_with("HTTP 422 validation_error: "), "{err}");
        }
        other => panic!("expected InvalidRequest, got {other:?}"),
    }
    match live.rf.certificate("not-a-certificate-id") {
        Err(Error::InvalidRequest(api)) => assert_eq!(api.field.as_deref(), Some("cert_id")),
        other => panic!("expected InvalidRequest, got {other:?}"),
    }
    assert!(matches!(live.rf.get("../stats"), Err(Error::Input { .. })));
}

fn stats_are_typed(live: &Live) {
    live.rf.verify(&quick(VerifyRequest::from_texts(Domain::Mathematics, ["2 + 2 = 4"]))).expect("a verdict");
    let stats = live.rf.stats().expect("stats");
    assert!(stats.jobs.get("complete").copied().unwrap_or(0) >= 1, "{stats:?}");
    assert!(stats.steps_total >= stats.steps_verified);
    assert_eq!(stats.queue, "inprocess");
}

/// A certificate is issued, fetched and re-checked by the server. It runs beside the other checks: a fresh server
/// builds the circuit's keys first (about a minute) unless REASONFORGE_TEST_CERTIFICATE_KEYS gave them.
fn a_certificate_is_issued_and_checked(rf: &Client, base_url: &str) {
    let request = VerifyRequest::from_texts(Domain::Mathematics, ["Let x = 3 and y = 4", "So x + y = 7"])
        .proof_level(ProofLevel::Quick)
        .generate_certificate(true);
    let job = rf.submit(&request).expect("queued");
    let done = rf.wait(&job.task_id, Duration::from_secs(480)).expect("a verdict");
    assert_eq!(done.verdict, Some(Verdict::Verified), "{done:?}");
    let cert_id = done.certificate_id.clone().expect("a certificate id");
    let url = done.certificate_url.clone().expect("a certificate url");
    assert_eq!(url, format!("{base_url}/verify/{cert_id}"));
    let cert = rf.certificate(&cert_id).expect("the certificate");
    assert_eq!(cert.certificate_id, cert_id);
    assert_eq!((cert.overall_verdict, cert.proof_level, cert.domain), (Verdict::Verified, ProofLevel::Quick, Domain::Mathematics));
    assert_eq!((cert.verified_steps, cert.total_steps), (2, 2));
    assert_eq!(cert.assurance, done.assurance);
    assert_eq!(cert.verify_url.as_deref(), Some(url.as_str()));
    assert_eq!(cert.document["certificate_id"], json!(cert_id));
    let check = rf.verify_certificate(&cert_id).expect("a check");
    assert!(check.valid && check.reasons.is_empty(), "{check:?}");
}

type Check = (&'static str, fn(&Live));

const CHECKS: &[Check] = &[
    ("health_needs_no_key", health_needs_no_key),
    ("verify_a_maths_chain", verify_a_maths_chain),
    ("verify_the_whale_example", verify_the_whale_example),
    ("a_refuted_first_step_fails_the_chain", a_refuted_first_step_fails_the_chain),
    ("a_slip_in_the_example_is_located", a_slip_in_the_example_is_located),
    ("verify_text_and_a_provider_response", verify_text_and_a_provider_response),
    ("submit_get_wait_and_idempotency", submit_get_wait_and_idempotency),
    ("wait_long_polls_and_times_out", wait_long_polls_and_times_out),
    ("batch_and_list", batch_and_list),
    ("typed_errors", typed_errors),
    ("stats_are_typed", stats_are_typed),
];
const CERTIFICATE_CHECK: &str = "a_certificate_is_issued_and_checked";

fn run(filters: &[String]) -> bool {
    let wanted = |name: &str| filters.is_empty() || filters.iter().any(|f| name.contains(f.as_str()));
    let selected: Vec<&Check> = CHECKS.iter().filter(|(name, _)| wanted(name)).collect();
    if selected.is_empty() && !wanted(CERTIFICATE_CHECK) {
        // A filter meant for other test targets (`cargo test NAME` passes it to all): no server needed.
        println!("live: 0 checks match {filters:?}");
        return true;
    }
    let service = match Service::start() {
        Ok(service) => service,
        Err(why) => {
            eprintln!("cannot start the service: {why}");
            return false;
        }
    };
    let key = service.create_key("sdk-rs", &["--tier", "enterprise"]);
    let rf = Client::builder(&service.base_url).api_key(key).build().expect("a client");
    let live = Live { service, rf };

    let certificate = if wanted(CERTIFICATE_CHECK) {
        let (rf, base_url) = (live.rf.clone(), live.service.base_url.clone());
        Some(thread::spawn(move || a_certificate_is_issued_and_checked(&rf, &base_url)))
    } else {
        None
    };
    let mut failed = Vec::new();
    let mut passed = 0;
    for (name, check) in selected {
        let started = Instant::now();
        let outcome = catch_unwind(AssertUnwindSafe(|| check(&live)));
        let took = started.elapsed().as_secs_f64();
        match outcome {
            Ok(()) => {
                passed += 1;
                println!("check {name} ... ok ({took:.1}s)");
            }
            Err(_) => {
                failed.push(*name);
                println!("check {name} ... FAILED ({took:.1}s)");
            }
        }
    }
    if let Some(handle) = certificate {
        match handle.join() {
            Ok(()) => {
                passed += 1;
                println!("check {CERTIFICATE_CHECK} ... ok");
            }
            Err(_) => {
                failed.push(CERTIFICATE_CHECK);
                println!("check {CERTIFICATE_CHECK} ... FAILED");
            }
        }
    }
    if !failed.is_empty() {
        println!("\nthe server's log ends:\n{}", live.service.log_tail());
    }
    let names = if failed.is_empty() { String::new() } else { format!(": {}", failed.join(", ")) };
    println!("\nlive: {passed} passed; {} failed{names}", failed.len());
    failed.is_empty()
}

fn main() {
    // Flags are the standard harness's (--nocapture, --quiet, ...): this harness always prints, so they are ignored.
    let filters: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    // `run` returns before exiting, so the server is dropped (stopped) first: `exit` would skip that.
    let ok = run(&filters);
    std::process::exit(if ok { 0 } else { 1 });
}

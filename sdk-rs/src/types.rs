//! Requests and answers of the API, in its own snake_case wire format. The fields a decision rests on (the overall
//! verdict, each step's status, the assurance, where the chain failed) are typed; the rest of a certificate is kept
//! as the JSON document it was issued as.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use crate::error::{Error, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Domain {
    Mathematics,
    Code,
    Logic,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProofLevel {
    Quick,
    Standard,
    Formal,
}

/// Who proves a formal-level step (`auto`: whichever the server has).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Prover {
    Auto,
    Coq,
    Lean4,
}

/// Who translates a chain sent without translations (unset: the server's default).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Translator {
    Rules,
    Model,
    Ensemble,
}

/// The formal language of a supplied translation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    Sympy,
    Coq,
    Lean4,
    Python,
    Smtlib,
    Fol,
    Propositional,
}

/// Which part of a model's response becomes the chain: its reasoning, its answer, or auto (the reasoning when
/// there is one).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    Auto,
    Reasoning,
    Answer,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum JobStatus {
    Queued,
    Translating,
    Verifying,
    Complete,
    Failed,
    Cancelled,
}

impl JobStatus {
    /// Whether the job has ended: complete, failed or cancelled.
    pub fn is_terminal(self) -> bool {
        matches!(self, JobStatus::Complete | JobStatus::Failed | JobStatus::Cancelled)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            JobStatus::Queued => "queued",
            JobStatus::Translating => "translating",
            JobStatus::Verifying => "verifying",
            JobStatus::Complete => "complete",
            JobStatus::Failed => "failed",
            JobStatus::Cancelled => "cancelled",
        }
    }
}

/// The overall verdict: every step verified, some, or none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Verdict {
    Verified,
    Partial,
    Failed,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Verified => "VERIFIED",
            Verdict::Partial => "PARTIAL",
            Verdict::Failed => "FAILED",
        }
    }
}

/// What kind of evidence the verdict rests on, strongest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Assurance {
    /// Every claim proven.
    Proven,
    /// Some claims proven only from premises nobody gave (see each step's `assumptions`).
    Conditional,
    /// Some word-problem steps rest on independent formalisations of the question.
    Corroborated,
    /// Some steps checked only on the arithmetic in their prose.
    Arithmetic,
    /// Some code tested only against its author's own tests.
    SelfTested,
    Unproven,
    Refuted,
}

impl Assurance {
    pub fn as_str(self) -> &'static str {
        match self {
            Assurance::Proven => "proven",
            Assurance::Conditional => "conditional",
            Assurance::Corroborated => "corroborated",
            Assurance::Arithmetic => "arithmetic",
            Assurance::SelfTested => "self_tested",
            Assurance::Unproven => "unproven",
            Assurance::Refuted => "refuted",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StepStatus {
    Verified,
    /// The step's own claim is false or does not follow.
    Failed,
    /// The step depends on a failed one.
    Invalidated,
    Error,
    /// No checker could read the step's claim.
    Unsupported,
}

impl StepStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            StepStatus::Verified => "verified",
            StepStatus::Failed => "failed",
            StepStatus::Invalidated => "invalidated",
            StepStatus::Error => "error",
            StepStatus::Unsupported => "unsupported",
        }
    }
}

/// The wire names, as the API and the other SDKs print them.
macro_rules! display_as_str {
    ($($kind:ty),*) => {
        $(impl fmt::Display for $kind {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        })*
    };
}

display_as_str!(JobStatus, Verdict, Assurance, StepStatus);

/// One step of the reasoning to verify. Without `dependencies` it depends on the step before it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReasoningStep {
    pub step_id: u32,
    pub content: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claimed_conclusion: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dependencies: Option<Vec<u32>>,
}

impl ReasoningStep {
    pub fn new(step_id: u32, content: impl Into<String>) -> Self {
        ReasoningStep { step_id, content: content.into(), claimed_conclusion: None, dependencies: None }
    }

    pub fn claimed_conclusion(mut self, conclusion: impl Into<String>) -> Self {
        self.claimed_conclusion = Some(conclusion.into());
        self
    }

    pub fn dependencies(mut self, step_ids: impl IntoIterator<Item = u32>) -> Self {
        self.dependencies = Some(step_ids.into_iter().collect());
        self
    }
}

/// A formal artifact for one step, checked as given instead of translated by the server.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StepTranslation {
    pub step_id: u32,
    pub formal_representation: String,
    pub language: Language,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub original_content: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dependencies: Option<Vec<u32>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub translation_confidence: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compilation_check: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
}

impl StepTranslation {
    pub fn new(step_id: u32, language: Language, formal_representation: impl Into<String>) -> Self {
        StepTranslation {
            step_id,
            formal_representation: formal_representation.into(),
            language,
            original_content: None,
            dependencies: None,
            translation_confidence: None,
            compilation_check: None,
            notes: None,
        }
    }
}

/// What both kinds of submission may say besides the reasoning itself; unset fields take the server's defaults.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Options {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub original_query: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claimed_answer: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proof_level: Option<ProofLevel>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub callback_url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generate_certificate: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prover: Option<Prover>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub translator: Option<Translator>,
    /// With a model: independent translations of the chain (1 to 8), each checked on its own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub samples: Option<u32>,
    /// Translations that must prove a step, none refuting it, for it to be verified (1 to 9).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agree: Option<u32>,
    /// A reference (gold) answer compared with the chain's final value, reported beside the verdict.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reference_answer: Option<String>,
}

impl Options {
    fn check(&self) -> Result<()> {
        for (field, value, most) in [("samples", self.samples, 8), ("agree", self.agree, 9)] {
            if let Some(n) = value {
                if n < 1 || n > most {
                    return Err(Error::input(field, format!("must be from 1 to {most}, not {n}")));
                }
            }
        }
        Ok(())
    }
}

/// The setters both request types share, so a request reads as one expression.
macro_rules! option_setters {
    ($kind:ty) => {
        impl $kind {
            /// The question the reasoning answers.
            pub fn original_query(mut self, query: impl Into<String>) -> Self {
                self.options.original_query = Some(query.into());
                self
            }

            /// The final answer the reasoning claims.
            pub fn claimed_answer(mut self, answer: impl Into<String>) -> Self {
                self.options.claimed_answer = Some(answer.into());
                self
            }

            pub fn proof_level(mut self, level: ProofLevel) -> Self {
                self.options.proof_level = Some(level);
                self
            }

            /// Where the server POSTs the verdict when the job ends.
            pub fn callback_url(mut self, url: impl Into<String>) -> Self {
                self.options.callback_url = Some(url.into());
                self
            }

            /// Whether to issue a certificate for the verdict (the server's default: yes).
            pub fn generate_certificate(mut self, yes: bool) -> Self {
                self.options.generate_certificate = Some(yes);
                self
            }

            pub fn prover(mut self, prover: Prover) -> Self {
                self.options.prover = Some(prover);
                self
            }

            pub fn translator(mut self, translator: Translator) -> Self {
                self.options.translator = Some(translator);
                self
            }

            pub fn samples(mut self, samples: u32) -> Self {
                self.options.samples = Some(samples);
                self
            }

            pub fn agree(mut self, agree: u32) -> Self {
                self.options.agree = Some(agree);
                self
            }

            pub fn reference_answer(mut self, answer: impl Into<String>) -> Self {
                self.options.reference_answer = Some(answer.into());
                self
            }
        }
    };
}

/// The body of `POST /v1/verify`: a reasoning chain already split into steps.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VerifyRequest {
    pub reasoning_chain: Vec<ReasoningStep>,
    pub domain: Domain,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub translations: Option<Vec<StepTranslation>>,
    #[serde(flatten)]
    pub options: Options,
}

impl VerifyRequest {
    /// A request from steps given in full.
    pub fn new(domain: Domain, steps: impl IntoIterator<Item = ReasoningStep>) -> Self {
        VerifyRequest {
            reasoning_chain: steps.into_iter().collect(),
            domain,
            translations: None,
            options: Options::default(),
        }
    }

    /// A request from the steps' text alone, numbered from 1, each depending on the one before.
    pub fn from_texts<S: Into<String>>(domain: Domain, steps: impl IntoIterator<Item = S>) -> Self {
        let steps = steps.into_iter().zip(1..).map(|(content, id)| ReasoningStep::new(id, content));
        VerifyRequest::new(domain, steps)
    }

    pub fn translations(mut self, translations: impl IntoIterator<Item = StepTranslation>) -> Self {
        self.translations = Some(translations.into_iter().collect());
        self
    }

    pub(crate) fn check(&self) -> Result<()> {
        if self.reasoning_chain.is_empty() {
            return Err(Error::input("reasoning_chain", "give at least one step"));
        }
        self.options.check()
    }
}

option_setters!(VerifyRequest);

/// What goes with reasoning sent as a model wrote it (`POST /v1/verify/reasoning`); the server splits it into steps.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReasoningRequest {
    pub domain: Domain,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<Source>,
    #[serde(flatten)]
    pub options: Options,
}

impl ReasoningRequest {
    pub fn new(domain: Domain) -> Self {
        ReasoningRequest { domain, source: None, options: Options::default() }
    }

    pub fn source(mut self, source: Source) -> Self {
        self.source = Some(source);
        self
    }

    pub(crate) fn check(&self) -> Result<()> {
        self.options.check()
    }
}

option_setters!(ReasoningRequest);

/// A list the server may send as null: read as empty.
fn null_as_empty<'de, D, T>(deserializer: D) -> std::result::Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Ok(Option::<Vec<T>>::deserialize(deserializer)?.unwrap_or_default())
}

/// Where the chain failed: the first step whose own check failed, and the steps that fall with it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FailureDetail {
    pub step_id: i64,
    pub original_content: String,
    pub error: String,
    #[serde(default)]
    pub suggested_fix: Option<String>,
    /// The steps invalidated because they depend on this one.
    #[serde(default, deserialize_with = "null_as_empty")]
    pub cascade_impact: Vec<i64>,
}

/// One step's outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepResult {
    pub step_id: i64,
    pub status: StepStatus,
    pub verified: bool,
    /// The checker that judged the step, as `name version`.
    #[serde(default)]
    pub checker: Option<String>,
    /// Why the step is not verified.
    #[serde(default)]
    pub message: Option<String>,
    /// For a verified step, the formal claim proven.
    #[serde(default)]
    pub aligned_claim: Option<String>,
    /// For a verified step, what kind of evidence it rests on.
    #[serde(default)]
    pub evidence: Option<String>,
    /// Premises the step was proven from that nothing gives, derives or contradicts.
    #[serde(default, deserialize_with = "null_as_empty")]
    pub assumptions: Vec<String>,
}

/// The chain's final value against the request's reference answer (beside the verdict, never part of it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReferenceCheck {
    pub reference: String,
    #[serde(default)]
    pub matches: Option<bool>,
    /// `reader` or `math-verify`.
    #[serde(default)]
    pub compared_by: Option<String>,
    pub message: String,
}

/// A verification job as the API reports it; the verdict fields are set once it is complete.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VerifyResponse {
    pub task_id: String,
    pub status: JobStatus,
    #[serde(default)]
    pub verdict: Option<Verdict>,
    #[serde(default)]
    pub steps_verified: Option<u32>,
    #[serde(default)]
    pub steps_total: Option<u32>,
    #[serde(default)]
    pub failure_points: Option<Vec<FailureDetail>>,
    #[serde(default)]
    pub certificate_id: Option<String>,
    #[serde(default)]
    pub certificate_url: Option<String>,
    #[serde(default)]
    pub verification_time_ms: Option<u64>,
    #[serde(default)]
    pub cost_credits: Option<f64>,
    #[serde(default)]
    pub assurance: Option<Assurance>,
    /// Every step's result in chain order, once there is a verdict.
    #[serde(default)]
    pub steps: Option<Vec<StepResult>>,
    /// What a certificate of this verdict signs (sha256 hex).
    #[serde(default)]
    pub verdict_digest: Option<String>,
    /// What an unfinished job is waiting for (e.g. certificate keys being built).
    #[serde(default)]
    pub status_detail: Option<String>,
    /// Whether the final value is the reference answer (None: none given, or not compared).
    #[serde(default)]
    pub answer_matches_reference: Option<bool>,
    #[serde(default)]
    pub reference_check: Option<ReferenceCheck>,
}

impl VerifyResponse {
    /// The first failure: the step where the chain went wrong.
    pub fn first_failure(&self) -> Option<&FailureDetail> {
        self.failure_points.as_ref().and_then(|points| points.first())
    }

    /// The result of one step, by its id.
    pub fn step(&self, step_id: i64) -> Option<&StepResult> {
        self.steps.as_ref().and_then(|steps| steps.iter().find(|s| s.step_id == step_id))
    }

    pub(crate) fn checked(self, what: &str) -> Result<Self> {
        if self.task_id.is_empty() {
            return Err(Error::decode(what, "task_id is empty"));
        }
        Ok(self)
    }
}

/// A page of this key's tasks, newest first (`GET /v1/verify`), or the tasks a batch queued.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskPage {
    pub tasks: Vec<VerifyResponse>,
    /// Pass as the cursor of the next page; None on the last.
    #[serde(default)]
    pub next_cursor: Option<String>,
}

/// A certificate as issued. The typed fields are read from `document`, which is kept exactly as the server sent
/// it: the certificate id is the hash of that document, so it must not be re-serialised from a struct.
#[derive(Debug, Clone, PartialEq)]
pub struct Certificate {
    pub certificate_id: String,
    pub domain: Domain,
    pub proof_level: ProofLevel,
    pub overall_verdict: Verdict,
    pub assurance: Option<Assurance>,
    pub total_steps: u32,
    pub verified_steps: u32,
    pub verdict_digest: Option<String>,
    /// The public page that re-checks the certificate on view.
    pub verify_url: Option<String>,
    pub document: Value,
}

#[derive(Deserialize)]
struct CertificateFields {
    certificate_id: String,
    domain: Domain,
    proof_level: ProofLevel,
    overall_verdict: Verdict,
    #[serde(default)]
    assurance: Option<Assurance>,
    total_steps: u32,
    verified_steps: u32,
    #[serde(default)]
    verdict_digest: Option<String>,
    #[serde(default)]
    verify_url: Option<String>,
}

impl Certificate {
    pub(crate) fn from_document(document: Value, what: &str) -> Result<Self> {
        let fields = CertificateFields::deserialize(&document).map_err(|e| Error::decode(what, e))?;
        Ok(Certificate {
            certificate_id: fields.certificate_id,
            domain: fields.domain,
            proof_level: fields.proof_level,
            overall_verdict: fields.overall_verdict,
            assurance: fields.assurance,
            total_steps: fields.total_steps,
            verified_steps: fields.verified_steps,
            verdict_digest: fields.verdict_digest,
            verify_url: fields.verify_url,
            document,
        })
    }
}

/// The server's re-check of a certificate: `valid` only when `reasons` is empty.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CertificateCheck {
    pub valid: bool,
    pub reasons: Vec<String>,
}

/// `GET /healthz`: the process is up and its store answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Health {
    pub status: String,
    pub database: String,
    /// `inprocess` (embedded) or the scaled-out queue.
    pub queue: String,
    /// `ready`, `building keys`, `not built`, `failed` or `unavailable`.
    pub certificate_keys: String,
}

/// `GET /v1/stats`: totals over every job in the service's store.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    pub jobs: BTreeMap<String, u64>,
    pub verdicts: BTreeMap<String, u64>,
    pub steps_total: u64,
    pub steps_verified: u64,
    pub certificates_issued: u64,
    #[serde(default)]
    pub mean_verification_time_ms: Option<f64>,
    pub queue: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_request_is_sent_in_the_api_format_without_unset_fields() {
        let request = VerifyRequest::from_texts(Domain::Mathematics, ["x = 3", "so x + 1 = 4"])
            .original_query("what is x + 1?")
            .proof_level(ProofLevel::Quick)
            .generate_certificate(false);
        let body = serde_json::to_value(&request).expect("serialisable");
        assert_eq!(
            body,
            json!({
                "reasoning_chain": [{"step_id": 1, "content": "x = 3"}, {"step_id": 2, "content": "so x + 1 = 4"}],
                "domain": "mathematics",
                "original_query": "what is x + 1?",
                "proof_level": "quick",
                "generate_certificate": false,
            })
        );
        let steps = vec![ReasoningStep::new(7, "a").claimed_conclusion("b").dependencies([3, 5])];
        let full = VerifyRequest::new(Domain::Code, steps)
            .translations([StepTranslation::new(7, Language::Lean4, "theorem t : True := trivial")])
            .prover(Prover::Lean4)
            .translator(Translator::Ensemble)
            .samples(3)
            .agree(2)
            .reference_answer("b")
            .claimed_answer("b")
            .callback_url("http://127.0.0.1:9/hook");
        let body = serde_json::to_value(&full).expect("serialisable");
        assert_eq!(body["reasoning_chain"][0], json!({"step_id": 7, "content": "a", "claimed_conclusion": "b", "dependencies": [3, 5]}));
        assert_eq!(body["translations"][0]["language"], "lean4");
        assert_eq!((&body["prover"], &body["translator"], &body["samples"]), (&json!("lean4"), &json!("ensemble"), &json!(3)));
        let text = serde_json::to_value(ReasoningRequest::new(Domain::Logic).source(Source::Answer)).expect("serialisable");
        assert_eq!(text, json!({"domain": "logic", "source": "answer"}));
    }

    #[test]
    fn requests_the_server_would_refuse_are_refused_here() {
        let empty = VerifyRequest::new(Domain::Logic, Vec::new());
        assert_eq!(empty.check().unwrap_err().field(), Some("reasoning_chain"));
        let many = VerifyRequest::from_texts(Domain::Logic, ["p"]).samples(9);
        assert_eq!(many.check().unwrap_err().field(), Some("samples"));
        assert_eq!(ReasoningRequest::new(Domain::Logic).agree(0).check().unwrap_err().field(), Some("agree"));
        assert!(ReasoningRequest::new(Domain::Logic).agree(9).samples(8).check().is_ok());
    }

    #[test]
    fn a_verdict_decodes_into_typed_fields() {
        let body = json!({
            "task_id": "a1", "status": "complete", "verdict": "FAILED", "steps_verified": 0, "steps_total": 2,
            "failure_points": [{"step_id": 1, "original_content": "3 × 12 = 38.", "error": "3*12 = 38 is false",
                                "suggested_fix": null, "cascade_impact": [2]}],
            "certificate_id": null, "certificate_url": null, "verification_time_ms": 8, "cost_credits": 0.14,
            "assurance": "refuted",
            "steps": [
                {"step_id": 1, "status": "failed", "verified": false, "checker": "sympy-relations 1.1",
                 "message": "3*12 = 38 is false", "aligned_claim": null, "evidence": null, "assumptions": []},
                {"step_id": 2, "status": "invalidated", "verified": false, "checker": null, "message": null,
                 "aligned_claim": "38 - 9 = 29", "evidence": "claim", "assumptions": null}],
            "verdict_digest": "b6", "status_detail": null, "answer_matches_reference": null,
            "reference_check": null, "a_field_from_a_newer_server": {"x": 1}
        });
        let job: VerifyResponse = serde_json::from_value(body).expect("a valid verdict");
        assert_eq!(job.verdict, Some(Verdict::Failed));
        assert_eq!(job.assurance, Some(Assurance::Refuted));
        let failure = job.first_failure().expect("a failure point");
        assert_eq!((failure.step_id, failure.cascade_impact.as_slice()), (1, &[2][..]));
        assert_eq!(job.step(2).map(|s| s.status), Some(StepStatus::Invalidated));
        assert!(job.step(2).map(|s| s.assumptions.is_empty()).unwrap_or(false));
        let queued: VerifyResponse = serde_json::from_value(json!({"task_id": "q", "status": "queued"})).expect("valid");
        assert_eq!((queued.verdict, queued.steps), (None, None));
        assert!(!queued.status.is_terminal() && JobStatus::Cancelled.is_terminal());
    }

    #[test]
    fn answers_that_are_not_verdicts_do_not_decode() {
        for body in [
            json!({"task_id": "a", "status": "sleeping"}),
            json!({"task_id": "a", "status": "complete", "verdict": "MAYBE"}),
            json!({"task_id": "a", "status": "complete", "assurance": "hopeful"}),
            json!({"task_id": "a", "status": "complete", "steps": [{"step_id": 1, "status": "verified"}]}),
            json!({"task_id": "a", "status": "complete", "steps_total": -1}),
            json!({"status": "complete"}),
            json!([1, 2]),
        ] {
            assert!(serde_json::from_value::<VerifyResponse>(body.clone()).is_err(), "{body} decoded");
        }
        let empty_id: VerifyResponse = serde_json::from_value(json!({"task_id": "", "status": "queued"})).expect("parses");
        assert!(matches!(empty_id.checked("GET"), Err(Error::Decode { .. })));
    }

    #[test]
    fn printed_names_are_the_wire_names() {
        let names: Vec<(String, Value)> = vec![
            (Verdict::Partial.to_string(), json!(Verdict::Partial)),
            (Assurance::SelfTested.to_string(), json!(Assurance::SelfTested)),
            (StepStatus::Invalidated.to_string(), json!(StepStatus::Invalidated)),
            (JobStatus::Cancelled.to_string(), json!(JobStatus::Cancelled)),
        ];
        for (printed, wire) in names {
            assert_eq!(json!(printed), wire);
        }
    }

    #[test]
    fn a_certificate_keeps_its_document() {
        let document = json!({
            "certificate_id": "0xab", "version": 2, "domain": "mathematics", "proof_level": "quick",
            "total_steps": 2, "verified_steps": 2, "overall_verdict": "VERIFIED", "assurance": "proven",
            "verdict_digest": "4c", "zk_proof": [{"proof": "08"}], "verify_url": "http://h/verify/0xab"
        });
        let cert = Certificate::from_document(document.clone(), "GET").expect("a certificate");
        assert_eq!((cert.overall_verdict, cert.verified_steps, cert.proof_level), (Verdict::Verified, 2, ProofLevel::Quick));
        assert_eq!(cert.document, document);
        let wrong = Certificate::from_document(json!({"certificate_id": "0xab"}), "GET /v1/certificates/0xab");
        let message = wrong.unwrap_err().to_string();
        assert!(message.starts_with("GET /v1/certificates/0xab: the server's answer is not"), "{message}");
    }
}

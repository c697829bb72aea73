#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
#![warn(missing_debug_implementations)]

mod client;
mod error;
mod types;

pub use client::{Client, ClientBuilder, DEFAULT_BASE_URL, SDK_VERSION};
pub use error::{ApiError, Error, Result};
pub use types::{
    Assurance, Certificate, CertificateCheck, Domain, FailureDetail, Health, JobStatus, Language, Options,
    ProofLevel, Prover, ReasoningRequest, ReasoningStep, ReferenceCheck, Source, Stats, StepResult, StepStatus,
    StepTranslation, TaskPage, Translator, Verdict, VerifyRequest, VerifyResponse,
};

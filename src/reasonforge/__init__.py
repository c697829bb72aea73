"""ReasonForge: machine-checked verdicts on AI reasoning."""

from reasonforge.types import (
    ArtifactLanguage,
    Domain,
    FailureReport,
    Overall,
    ProofLevel,
    ReasoningStep,
    StepStatus,
    StepTranslation,
    StepVerdict,
    VerificationVerdict,
    VerifyRequest,
)

__all__ = [
    "ArtifactLanguage",
    "Domain",
    "FailureReport",
    "Overall",
    "ProofLevel",
    "ReasoningStep",
    "StepStatus",
    "StepTranslation",
    "StepVerdict",
    "VerificationVerdict",
    "VerifyRequest",
    "verify_chain",
]


def __getattr__(name: str):
    # Imported lazily so `import reasonforge` stays light (solvers load on first verification).
    if name == "verify_chain":
        from reasonforge.verify.pipeline import verify_chain

        return verify_chain
    raise AttributeError(name)

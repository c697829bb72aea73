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
    "AsyncReasonForge",
    "Domain",
    "FailureReport",
    "Overall",
    "ProofLevel",
    "ReasonForge",
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
        from reasonforge.pipeline.run import verify_chain

        return verify_chain
    if name in ("ReasonForge", "AsyncReasonForge"):
        # The API client pulls in httpx; only callers of the SDK pay for it.
        from reasonforge import sdk

        return getattr(sdk, name)
    raise AttributeError(name)

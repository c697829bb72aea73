"""Wire models between validators and miners: the plan's TranslationTask and VerificationResult.

Both travel as JSON over signed HTTP (see `transport.py`). Sizes are bounded by `ChainLimits`
(DESIGN §3.1) so a hostile peer cannot make the other side parse or store more than a request's
worth of text. Hashes use the project's canonical JSON (sorted keys, compact separators, UTF-8),
so anyone can recompute them from the JSON alone.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from reasonforge.certificate.canonical import sha256_hex
from reasonforge.types import (
    ChainLimits,
    Domain,
    ProofLevel,
    ReasoningStep,
    StepTranslation,
    VerifyRequest,
)

LIMITS = ChainLimits()
"""The request limits every wire model enforces (≤ 64 steps, ≤ 64 KiB per text, ≤ 1 MiB per artifact)."""

MAX_TASK_ID_CHARS = 128
MINER_FIELDS: tuple[str, ...] = (
    "translations",
    "compilation_status",
    "full_proof_artifact",
    "translation_time_ms",
    "submission_hash",
)
"""The fields a miner fills; everything else is the validator's and is covered by `task_hash`."""

CompilationStatus = Literal["COMPILED", "PARTIAL", "FAILED"]


def _check_text(value: str | None, what: str, limit: int = LIMITS.max_step_bytes) -> None:
    """Raise a ValueError naming `what` when `value` is longer than `limit` UTF-8 bytes."""
    if value is not None and len(value.encode("utf-8")) > limit:
        raise ValueError(f"{what} is longer than {limit} bytes; shorten it or split the chain")


class TranslationTask(BaseModel):
    """A reasoning chain the validator sends for translation; the miner fills the translation fields."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    # Set by the validator.
    task_id: str = Field(min_length=1, max_length=MAX_TASK_ID_CHARS)
    original_query: str = ""
    reasoning_chain: list[ReasoningStep] = Field(min_length=1, max_length=LIMITS.max_steps)
    domain: Domain
    difficulty: int = Field(ge=1, le=10)
    proof_level: ProofLevel = ProofLevel.STANDARD
    timeout_seconds: int = Field(default=300, ge=1, le=3600)
    claimed_answer: str = ""

    # Filled by the miner.
    translations: list[StepTranslation] | None = Field(default=None, max_length=LIMITS.max_steps + 1)
    compilation_status: CompilationStatus | None = None
    full_proof_artifact: str | None = None
    translation_time_ms: int | None = Field(default=None, ge=0)
    submission_hash: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")

    required_hash_fields: ClassVar[tuple[str, ...]] = (
        "task_id",
        "original_query",
        "domain",
        "difficulty",
        "proof_level",
    )

    @field_validator("original_query", "claimed_answer")
    @classmethod
    def _bounded_text(cls, value: str, info: Any) -> str:
        _check_text(value, info.field_name)
        return value

    @field_validator("reasoning_chain")
    @classmethod
    def _bounded_steps(cls, steps: list[ReasoningStep]) -> list[ReasoningStep]:
        for step in steps:
            _check_text(step.content, f"step {step.step_id} content")
            _check_text(step.claimed_conclusion, f"step {step.step_id} claimed_conclusion")
            if step.dependencies is not None and len(step.dependencies) > LIMITS.max_steps:
                raise ValueError(f"step {step.step_id} lists more than {LIMITS.max_steps} dependencies")
        return steps

    @field_validator("translations")
    @classmethod
    def _bounded_translations(cls, translations: list[StepTranslation] | None) -> list[StepTranslation] | None:
        for item in translations or []:
            where = f"translation of step {item.step_id}"
            _check_text(item.formal_representation, f"{where} formal_representation")
            _check_text(item.original_content, f"{where} original_content")
            _check_text(item.notes, f"{where} notes")
            if len(item.dependencies) > LIMITS.max_steps:
                raise ValueError(f"{where} lists more than {LIMITS.max_steps} dependencies")
        return translations

    @field_validator("full_proof_artifact")
    @classmethod
    def _bounded_artifact(cls, value: str | None) -> str | None:
        _check_text(value, "full_proof_artifact", LIMITS.max_request_bytes)
        return value

    def task_hash(self) -> str:
        """sha256 of the canonical JSON of the required_hash_fields plus the reasoning chain."""
        dumped = self.model_dump(mode="json", include={*self.required_hash_fields, "reasoning_chain"})
        return sha256_hex(dumped)

    def compute_submission_hash(self) -> str:
        """sha256 binding the task (its task_hash) to everything the miner filled in."""
        return sha256_hex(
            {
                "task_hash": self.task_hash(),
                "translations": (
                    None if self.translations is None else [t.model_dump(mode="json") for t in self.translations]
                ),
                "compilation_status": self.compilation_status,
                "full_proof_artifact": self.full_proof_artifact,
                "translation_time_ms": self.translation_time_ms,
            }
        )

    def has_valid_submission_hash(self) -> bool:
        """Whether submission_hash is set and matches the task and the miner's fields."""
        return self.submission_hash is not None and self.submission_hash == self.compute_submission_hash()

    def for_miner(self) -> TranslationTask:
        """A copy with every miner field cleared: what a validator sends."""
        return self.model_copy(update=dict.fromkeys(MINER_FIELDS))

    def with_submission(
        self,
        translations: list[StepTranslation],
        compilation_status: CompilationStatus,
        translation_time_ms: int,
        full_proof_artifact: str | None = None,
    ) -> TranslationTask:
        """The filled task a miner returns: its fields validated (sizes included) and submission_hash set."""
        filled = TranslationTask.model_validate(
            {
                **self.for_miner().model_dump(),
                "translations": [t.model_dump() for t in translations],
                "compilation_status": compilation_status,
                "full_proof_artifact": full_proof_artifact,
                "translation_time_ms": translation_time_ms,
            }
        )
        return filled.model_copy(update={"submission_hash": filled.compute_submission_hash()})

    def to_verify_request(self) -> VerifyRequest:
        """The verification request for this task, carrying the miner's translations.

        A task with no translations becomes `translations=[]` (every step unsupported), never None:
        None would make the pipeline translate the chain itself and credit the miner with its work.
        """
        return VerifyRequest(
            reasoning_chain=self.reasoning_chain,
            domain=self.domain,
            original_query=self.original_query,
            claimed_answer=self.claimed_answer,
            proof_level=self.proof_level,
            generate_certificate=False,
            translations=list(self.translations or []),
            task_id=self.task_id,
        )


class VerificationResult(BaseModel):
    """What a validator tells a miner about its epoch: the plan's fields, bounded and finite."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    epoch_id: int = Field(ge=0)
    miner_uid: int = Field(ge=0, le=65535)
    tasks_translated: int = Field(ge=0)
    steps_compiled: int = Field(ge=0)
    steps_total: int = Field(ge=0)
    compilation_rate: float = Field(ge=0.0, le=1.0)
    epoch_score: float = Field(ge=0.0)
    rank: int = Field(ge=0, description="1 = best; 0 = not ranked this epoch.")
    tao_earned: float = Field(ge=0.0)

    required_hash_fields: ClassVar[tuple[str, ...]] = ("epoch_id", "miner_uid")

    @model_validator(mode="after")
    def _consistent_counts(self) -> VerificationResult:
        if self.steps_compiled > self.steps_total:
            raise ValueError(f"steps_compiled ({self.steps_compiled}) exceeds steps_total ({self.steps_total})")
        return self

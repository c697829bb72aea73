"""Pydantic models that cross rooms (DESIGN §3). Field names follow the plan exactly."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from reasonforge.boundary.secrets import redact_args


class Domain(StrEnum):
    """What kind of reasoning a chain contains."""

    MATHEMATICS = "mathematics"
    CODE = "code"
    LOGIC = "logic"


class ProofLevel(StrEnum):
    """How strong a guarantee the caller pays for (quick < standard < formal)."""

    QUICK = "quick"
    STANDARD = "standard"
    FORMAL = "formal"


class Overall(StrEnum):
    """Chain-level outcome: every step's claim proven (VERIFIED), some steps verified, or none (`assurance` says
    whether anything was refuted)."""

    VERIFIED = "VERIFIED"
    PARTIAL = "PARTIAL"
    FAILED = "FAILED"


class Assurance(StrEnum):
    """What a chain's verdict rests on, beside `overall` (whose three values keep their meaning): proven,
    proven from premises the steps state but nobody gave (assumptions), corroborated by independent
    formalisations of the question, checked only on the arithmetic inside some steps' text, or some code only
    against its author's own tests, unproven with nothing refuted, or refuted."""

    PROVEN = "proven"  # every step's claim was proven: overall VERIFIED
    # every step checked, but some only as an inference from premises the step states that are neither given,
    # derived nor contradicted (listed in the verdict's `assumptions`): overall PARTIAL
    CONDITIONAL = "conditional"
    # overall VERIFIED too, but some word-problem step's claim about the problem rests on independent
    # formalisations of the question that agree with it (its arithmetic was proven)
    CORROBORATED = "corroborated"
    ARITHMETIC = "arithmetic"  # every step checked, but some only on the relations inside their prose
    SELF_TESTED = "self_tested"  # every step checked, but some code only against its author's own tests
    UNPROVEN = "unproven"  # nothing refuted, but some step could not be proven (unsupported, error)
    REFUTED = "refuted"  # some step's own check failed


class StepStatus(StrEnum):
    """Per-step outcome. Only `failed` invalidates dependants."""

    VERIFIED = "verified"
    FAILED = "failed"
    INVALIDATED = "invalidated"
    ERROR = "error"
    UNSUPPORTED = "unsupported"


class ArtifactLanguage(StrEnum):
    """Formal languages a step can be translated into (DESIGN §3.1)."""

    SYMPY = "sympy"
    COQ = "coq"
    LEAN4 = "lean4"
    PYTHON = "python"
    SMTLIB = "smtlib"
    FOL = "fol"
    PROPOSITIONAL = "propositional"


class TranslatorMode(StrEnum):
    """Who writes the artifacts of a chain sent without translations: the offline rules, a model, or both (each
    checked on its own, agreed on per step)."""

    RULES = "rules"
    MODEL = "model"
    ENSEMBLE = "ensemble"


class Prover(StrEnum):
    """Which proof assistant checks formal mathematics (`auto`: Lean 4 when installed, else Coq)."""

    COQ = "coq"
    LEAN4 = "lean4"
    AUTO = "auto"


class ErrorKind(StrEnum):
    """Why a checker did not verify a step (details `error_kind`); the cascade and the repair loop switch on it.

    A StrEnum, so details hold it as its plain string and verdict JSON is unchanged."""

    # any checker
    UNTRANSLATABLE = "untranslatable"  # no artifact, or nothing checkable in it
    SYNTAX = "syntax"
    TIMEOUT = "timeout"
    MEMORY = "memory"
    TOO_LARGE = "too_large"
    CRASH = "crash"
    CHECKER_UNAVAILABLE = "checker_unavailable"  # the translator's compile check could not run its checker
    # the sympy checker (verify/math)
    ARITHMETIC = "arithmetic"
    CONTRADICTION = "contradiction"
    BINDING = "binding"
    AMBIGUOUS = "ambiguous"
    UNDECIDED = "undecided"
    # the logic checkers (verify/logic): a counterexample, named after the fallacy when it is a classic one
    COUNTEREXAMPLE = "counterexample"
    AFFIRMING_THE_CONSEQUENT = "affirming_the_consequent"
    DENYING_THE_ANTECEDENT = "denying_the_antecedent"
    ILLICIT_CONVERSION = "illicit_conversion"
    UNDISTRIBUTED_MIDDLE = "undistributed_middle"
    VACUOUS = "vacuous"  # contradictory premises (logic reports it as details `vacuous`, Coq as this kind)
    CONTRADICTED_PREMISE = "contradicted_premise"  # a premise the step states contradicts the givens or ancestors
    # the step's conclusion is only assumed: stated with no inference claimed, or one of its own premises restated
    ASSUMED_CONCLUSION = "assumed_conclusion"
    # the proof assistants (verify/coq, verify/lean)
    TOOL_UNAVAILABLE = "tool_unavailable"
    SANDBOX_UNAVAILABLE = "sandbox_unavailable"
    LEX = "lex"
    FORBIDDEN = "forbidden"
    NO_THEOREM = "no_theorem"
    MISSING_THEOREM = "missing_theorem"
    DEPENDENCY = "dependency"
    CONTEXT = "context"
    RESOURCE = "resource"
    COMPILE = "compile"
    HEADER = "header"
    AUDIT = "audit"
    ASSUMPTIONS = "assumptions"
    ALIGNMENT = "alignment"
    REFUSED = "refused"
    NOT_CHECKED = "not_checked"
    # the gate (pipeline/gate.py, with the family's aligner): what ties an artifact to its step
    UNREADABLE_CLAIM = "unreadable_claim"  # the offline reader cannot read what the step claims
    UNALIGNED = "unaligned"  # the artifact's conclusion is not what the step's text claims
    UNGROUNDED_PREMISE = "ungrounded_premise"  # a premise is neither a given, an ancestor's claim, nor entailed
    UNGROUNDED_OPERAND = "ungrounded_operand"  # a word problem's operand is no stated quantity, result or constant
    NO_EVIDENCE = "no_evidence"  # a checker verified its artifact but recorded nothing tying it to the step
    ANSWER_MISMATCH = "answer_mismatch"  # the claimed answer is not what the chain derived
    DISAGREEMENT = "disagreement"  # independent translations of the step: some prove it, others refute it
    TOO_FEW_AGREE = "too_few_agree"  # fewer independent translations prove the step than the ensemble requires


class EvidenceKind(StrEnum):
    """What a verified step's verdict rests on (`Evidence.kind`); the README says what each proves."""

    CLAIM = "claim"  # the step's whole claim, read from its text, proven from the givens and its ancestors
    # the step's claim proven as an inference from premises it states that are neither given, derived nor
    # contradicted (`Evidence.assumptions`): valid, but only as true as those premises
    CONDITIONAL = "conditional"
    RELATIONS = "relations"  # maths: every relation the text asserts, checked exactly; the prose around them is not
    THEOREM = "theorem"  # Coq / Lean 4: a theorem whose statement was aligned with the step's text, compiled
    # code: the implementation satisfies examples and claims its author did not write: the question's, or those a
    # translator wrote from the texts without seeing the implementation
    EXAMPLES = "examples"
    AUTHOR_TESTS = "author_tests"  # code: the only evidence is the author's own: its tests, its step's examples
    # maths word problem: the relations were proven, and what the prose says they are is corroborated: the
    # step's results are quantities of independent formalisations of the question whose answer is the chain's
    CORROBORATED = "corroborated"


class Supplier(StrEnum):
    """Whose material a verified step's evidence is: what VERIFIED may rest on is never the reasoning's author's."""

    PROOF = "proof"  # a checker proved the aligned claim from the givens and the ancestors
    QUESTION = "question"  # examples or claims the question states (code)
    # a formaliser or test writer that saw the question (and the step's prose) but never the chain's artifacts
    INDEPENDENT = "independent"
    AUTHOR = "author"  # the reasoning's author: its own tests, the examples written in its own step


FULL_EVIDENCE = frozenset({EvidenceKind.CLAIM, EvidenceKind.THEOREM, EvidenceKind.EXAMPLES, EvidenceKind.CORROBORATED})
"""Evidence kinds a VERIFIED chain may rest on (with a supplier other than the author); the others (conditional,
relations, author tests) verify their step but leave the chain PARTIAL."""


class Formaliser(StrEnum):
    """Who wrote the formal claim a verdict rests on."""

    OFFLINE_READER = "offline_reader"  # our rule-based reader, from the step's text
    ARTIFACT = "artifact"  # the supplied or model-written artifact, aligned with the reader's claim
    QUESTION_MODEL = "question_model"  # a model's formalisation of the question alone, never shown the chain
    # examples a model wrote from the question and the step's prose, never shown the implementation
    EXAMPLE_WRITER = "example_writer"


DOMAIN_LANGUAGES: dict[Domain, frozenset[ArtifactLanguage]] = {
    Domain.LOGIC: frozenset({ArtifactLanguage.FOL, ArtifactLanguage.PROPOSITIONAL, ArtifactLanguage.SMTLIB}),
    Domain.MATHEMATICS: frozenset({ArtifactLanguage.SYMPY, ArtifactLanguage.COQ, ArtifactLanguage.LEAN4}),
    Domain.CODE: frozenset({ArtifactLanguage.PYTHON}),
}
"""The artifact languages each domain accepts: the domain, never the artifact, picks the checker and the reader
that aligns the step's claim (a `python` artifact cannot carry a logic claim to a judge of its choosing)."""

CONTEXT_STEP_ID = 0
"""A `coq` / `lean4` translation with this step id is the chain's Context: the givens of `original_query`."""

CHAIN_LANGUAGES = frozenset({ArtifactLanguage.COQ, ArtifactLanguage.LEAN4})
"""Languages checked as one workspace per chain (Context, one file per step, a Chain file)."""


class ReasoningStep(BaseModel):
    """One natural-language step of the reasoning to verify."""

    model_config = ConfigDict(extra="forbid")

    # the minimum in the schema only: chain.validate_request refuses 0 (the Context) and below with its own message
    step_id: int = Field(json_schema_extra={"minimum": 1})
    content: str
    claimed_conclusion: str | None = None
    dependencies: list[int] | None = Field(
        default=None, description="Step ids this step relies on; omitted means the previous step."
    )


class StepTranslation(BaseModel):
    """A step translated to a formal artifact (the miner's output for one step)."""

    model_config = ConfigDict(extra="forbid")

    step_id: int
    original_content: str = ""
    formal_representation: str = Field(
        default="", description="The artifact text; empty means the step could not be translated (see notes)."
    )
    language: ArtifactLanguage
    dependencies: list[int] = Field(default_factory=list)
    translation_confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    compilation_check: bool = False
    notes: str | None = None


class VerifyRequest(BaseModel):
    """A reasoning chain submitted for verification (DESIGN §3.1, the plan's API request)."""

    model_config = ConfigDict(extra="forbid")

    # minItems in the schema only: an empty chain is refused by chain.validate_request with its own message
    reasoning_chain: list[ReasoningStep] = Field(json_schema_extra={"minItems": 1})
    domain: Domain
    original_query: str = ""
    claimed_answer: str = ""
    reference_answer: str = Field(default="", max_length=4000, description=(
        "A reference (gold) answer the caller holds; compared with the chain's final value and reported beside "
        "the verdict (`answer_matches_reference`), never part of it. Empty: none."))
    proof_level: ProofLevel = ProofLevel.STANDARD
    callback_url: str | None = None
    generate_certificate: bool = True
    translations: list[StepTranslation] | None = None
    task_id: str | None = Field(default=None, description="Omitted: derived from task_hash, so verdicts are reproducible.")
    prover: Prover = Field(
        default=Prover.AUTO, description="Proof assistant for formal mathematics: coq, lean4 or auto (Lean 4 when installed)."
    )
    translator: TranslatorMode | None = Field(default=None, description=(
        "Who translates a chain sent without translations: rules, model or ensemble; omitted: ensemble when a "
        "model endpoint is configured, else rules."))
    samples: int | None = Field(default=None, ge=1, le=8, description=(
        "With a model: translate the chain this many times independently (each sample at its own temperature and "
        "seed), each translation checked on its own; omitted: 1."))
    agree: int | None = Field(default=None, ge=1, le=9, description=(
        "How many translations (the rules' and the model's samples) must prove a step, none refuting it, for it "
        "to be verified; omitted: 1."))


class ReasoningSource(StrEnum):
    """Which part of a model's response becomes the chain (`auto`: all of it, the reasoning and then the visible
    answer; `reasoning` or `answer`: that side only)."""

    AUTO = "auto"
    REASONING = "reasoning"
    ANSWER = "answer"


class ReasoningSubmission(BaseModel):
    """Reasoning as a model wrote it — plain text, or a provider's raw response (OpenAI Chat Completions or
    Responses, Anthropic with thinking, DeepSeek-R1 `reasoning_content`, `<think>` tags) — with the question it
    answers. It is split into steps (`chain.parse_reasoning_chain`) and verified as a `VerifyRequest`."""

    model_config = ConfigDict(extra="forbid")

    reasoning: str | dict[str, Any] = Field(description="Reasoning text, or a provider's response JSON object.")
    domain: Domain
    original_query: str = ""
    claimed_answer: str | None = Field(default=None, description=(
        "The answer the reasoning claims; omitted: read from the response's final answer (\\boxed{...}, "
        "'#### ...', 'the answer is ...') when it states one."))
    reference_answer: str = Field(default="", max_length=4000, description="As in VerifyRequest.")
    source: ReasoningSource = ReasoningSource.AUTO
    proof_level: ProofLevel = ProofLevel.STANDARD
    prover: Prover = Prover.AUTO
    translator: TranslatorMode | None = None
    samples: int | None = Field(default=None, ge=1, le=8, description="As in VerifyRequest.")
    agree: int | None = Field(default=None, ge=1, le=9, description="As in VerifyRequest.")
    callback_url: str | None = None
    generate_certificate: bool = True


class Spec(BaseModel):
    """Identity of a checker or translator run, recorded in verdict details so it can be replayed.

    A spec never holds a credential, whoever builds it and from whatever it is read: its args are stripped of URL
    userinfo, secret query parameters, bearer tokens and the values of secret-named keys (`boundary.secrets`)."""

    model_config = ConfigDict(frozen=True)

    name: str
    version: str
    args: dict[str, Any] = Field(default_factory=dict)

    @field_validator("args", mode="after")
    @classmethod
    def _without_credentials(cls, args: dict[str, Any]) -> dict[str, Any]:
        redacted: dict[str, Any] = redact_args(args)
        return redacted

    @property
    def display_name(self) -> str:
        """The name people are shown, the same on the verdict page, the PDF, the dashboard and the CLI: the name
        without the project's own namespace, then the version ("fol 1.0.0", "sympy-relations 1.1")."""
        return f"{self.name.removeprefix('reasonforge.')} {self.version}".strip()


class ProvedBy(StrEnum):
    """Which checker proved a relation a verified mathematics step asserts (`RelationProof.proved_by`)."""

    SYMPY = "sympy"  # SymPy's exact check of the relation under the givens and the ancestors' claims
    # a Coq lemma stating the relation from the givens and the ancestors' claims (standard level: the key lemmas)
    COQ = "coq"


class RelationProof(BaseModel):
    """How one relation a verified mathematics step asserts was proven."""

    relation: str = Field(description="The relation, as the step's artifact states it.")
    proved_by: ProvedBy = Field(description=(
        "`coq` when a Coq lemma proved it (SymPy may have too: see `sympy`), else `sympy`."))
    sympy: str | None = Field(default=None, description=(
        "How SymPy decided it (exact, identity, solved, definition, ...); None when SymPy left it undecided and only "
        "the Coq lemma proves it."))
    lemma: str | None = Field(default=None, description="The Coq lemma that proved it, as compiled (`Lemma name : ...`).")
    tactic: str | None = Field(default=None, description="The tactic that closed the Coq lemma's goal.")


class Evidence(BaseModel):
    """What a verified step rests on: the formal claim, who formalised it, whose material it is, what it covers
    and the premises it was proven from that nobody gave (`assumptions`, for conditional evidence)."""

    kind: EvidenceKind
    aligned_claim: str = Field(description="The formal claim compared with the step's text and proven.")
    formaliser: Formaliser
    supplied_by: Supplier = Field(default=Supplier.PROOF, description=(
        "Whose material the evidence is: a checker's proof, the question's examples, an independent writer's, or "
        "the reasoning's author's (never enough for VERIFIED)."))
    assumptions: list[str] = Field(default_factory=list, description=(
        "Premises the step states that are neither given, derived nor contradicted: the claim was proven from "
        "them (kind `conditional`)."))
    note: str | None = None
    proofs: list[RelationProof] = Field(default_factory=list, description=(
        "Mathematics at the standard level: for each relation the step asserts, which checker proved it (a Coq lemma "
        "or SymPy)."))

    @property
    def full(self) -> bool:
        """Does this evidence let its step count toward a VERIFIED chain (a full kind the author did not supply)?"""
        return self.kind in FULL_EVIDENCE and self.supplied_by is not Supplier.AUTHOR and not self.assumptions


class StepVerdict(BaseModel):
    """Verification result for a single reasoning step. What decides it is typed (status, error kind, evidence,
    the specs of the tools that judged it, the cascade's local status); `details` holds diagnostics only."""

    step_id: int
    verified: bool
    status: StepStatus
    error_message: str | None = None
    formal_representation: str = ""
    error_kind: ErrorKind | None = Field(default=None, description="Why the step is not verified, when known.")
    evidence: Evidence | None = Field(default=None, description="What a verified step rests on.")
    checker_spec: Spec | None = Field(default=None, description="The checker that judged the step; None when none ran.")
    translator_spec: Spec | None = Field(default=None, description=(
        "The translator that wrote the artifact; None when it was supplied."))
    local_status: StepStatus | None = Field(default=None, description=(
        "For an invalidated step: its own check's status before the cascade."))
    invalidated_by: list[int] = Field(default_factory=list, description="The failed steps that invalidate this one.")
    details: dict[str, Any] = Field(default_factory=dict, description="Checker diagnostics (counterexamples, timings).")


class StepAssumption(BaseModel):
    """A premise a step states and was proven from, though nothing gave, derived or contradicted it."""

    step_id: int
    premise: str


class FailureReport(BaseModel):
    """Where and why the chain broke: the first failing step and what it takes down with it."""

    failed_step_id: int
    original_reasoning: str
    formal_translation: str
    verification_error: str
    suggested_fix: str | None = None
    cascade_impact: list[int] = Field(default_factory=list)
    last_valid_step: int | None = Field(
        default=None, description="The deepest verified step before the failure in topological order; None if none."
    )
    partial_correctness: float = Field(ge=0.0, le=1.0)
    assumptions: list[StepAssumption] = Field(default_factory=list, description=(
        "Every premise a verified step rests on that is neither given, derived nor contradicted."))


class VerdictSignature(BaseModel):
    """An Ed25519 signature over a whole verdict (every field but this one) by the service that computed it."""

    model_config = ConfigDict(frozen=True)

    public_key: str = Field(pattern=r"^[0-9a-f]{64}$", description="The signer's Ed25519 public key (hex).")
    signature: str = Field(pattern=r"^[0-9a-f]{128}$", description=(
        "Ed25519 signature (hex) over the verdict's signed bytes (recipe in certificate.verdict_signature)."))


class AnswerComparer(StrEnum):
    """Who compared two answers: our reader (exact values, units, percents) or `math-verify` (sets, intervals
    and forms the reader does not read), each on text the reader screened first."""

    READER = "reader"
    MATH_VERIFY = "math-verify"


class ReferenceCheck(BaseModel):
    """The chain's final value against a reference (gold) answer the caller holds: reported beside the verdict,
    never part of it (a right answer proves no step, a wrong one refutes none)."""

    reference: str
    matches: bool | None = Field(description=(
        "True: the chain's final value is the reference; False: it is another value; None: not compared (the "
        "reference or the chain's final value is not read as one value, or the comparison did not finish)."))
    compared_by: AnswerComparer | None = None
    message: str = Field(description="Which values were compared, or why they were not.")


class VerificationVerdict(BaseModel):
    """The core output of the verification pipeline."""

    task_id: str
    overall: Overall
    step_verdicts: list[StepVerdict]
    total_steps: int
    verified_steps: int
    failure_points: list[StepVerdict] = Field(default_factory=list)
    failure_report: FailureReport | None = None
    assurance: Assurance | None = Field(default=None, description=(
        "proven or corroborated (VERIFIED), conditional (proven from premises nobody gave: `assumptions`), "
        "arithmetic (some steps checked only on the arithmetic inside their prose), self_tested (some code only "
        "against its author's own tests), unproven (nothing refuted, something not proven) or refuted (a step "
        "failed)."))
    assumptions: list[StepAssumption] = Field(default_factory=list, description=(
        "Every premise a verified step rests on that is neither given, derived nor contradicted."))
    domain: Domain
    proof_level: ProofLevel
    verification_time_ms: int = 0
    raw_output: str | None = None
    translator_uids: list[int] = Field(default_factory=list)
    task_hash: str = ""
    verdict_hash: str = ""
    claimed_answer: str = Field(default="", description="The answer the request claimed (checked at the last step).")
    answer_matches_reference: bool | None = Field(default=None, description=(
        "Whether the chain's final value is the request's reference answer (None: no reference, or not compared; "
        "`reference_check` says why). Beside the verdict: it changes no step's status."))
    reference_check: ReferenceCheck | None = None
    verdict_digest: str = Field(default="", description=(
        "sha256 of everything the verdict proved (level, domain, claimed answer, per-step status, evidence, "
        "artifact and checker hashes): what a certificate signs; recipe in chain.verdict_digest."))
    signature: VerdictSignature | None = Field(default=None, description=(
        "The computing service's signature over everything else in this verdict; a report or page vouches for "
        "the verdict only when its reader trusts the key (or a certificate or a recheck vouches for it)."))


class CheckLimits(BaseModel):
    """Per-check resource limits; a breach is `error`, never `failed`."""

    timeout_s: float = Field(default=10.0, gt=0)
    memory_mb: int = Field(default=1024, gt=0)


class ChainLimits(BaseModel):
    """Request size limits (DESIGN §3.1)."""

    max_steps: int = 64
    max_step_bytes: int = 64 * 1024
    max_request_bytes: int = 1024 * 1024


class StepContext(BaseModel):
    """Everything a step may be checked against: its own text, the question (its givens) and its ancestors.

    Built by the pipeline for every step; checkers and the soundness gate read it, nothing else may be assumed."""

    step_id: int
    content: str
    claimed_conclusion: str | None = None
    original_query: str = ""
    ancestors: list[ReasoningStep] = Field(default_factory=list, description="Transitive dependencies, topological order.")
    domain: Domain
    proof_level: ProofLevel
    claimed_answer: str = ""
    final: bool = Field(default=False, description="The chain's last step: where claimed_answer is compared.")
    written_examples: str = Field(default="", description=(
        "Code: `>>>` examples a translator wrote from the question and the step's prose alone (never shown the "
        "implementation); the implementation runs against them, and disagreeing leaves the step unsupported."))


class QuestionModel(BaseModel):
    """Independent formalisations of a word problem, written from the question alone (never shown the chain):
    programs, each evaluated exactly, and problem models (equations), each decided by Z3. The answer is the value
    enough problem models force and the programs compute most often."""

    samples: int = Field(description="Formalisations of each kind asked for.")
    required: int = Field(description="How many problem models must force the same answer for it to count.")
    answer: str | None = Field(default=None, description=(
        "The agreed answer, exact; None when too few problem models force one or the programs compute another."))
    agreeing: int = Field(default=0, description="Programs that compute the agreed answer (or the most common one).")
    problem_agreeing: int = Field(default=0, description="Problem models that force the agreed (or most forced) answer.")
    problem_answer: str | None = Field(default=None, description="The answer enough problem models force.")
    program_answer: str | None = Field(default=None, description=(
        "The answer the programs compute most often (strictly more often than any other)."))
    quantities: dict[str, str] = Field(default_factory=dict, description=(
        "Each exact value the agreeing formalisations compute or force, with the name one of them gives it."))
    combinations: list[list[str]] = Field(default_factory=list, description=(
        "Each line of the agreeing formalisations as the values it combines (its literals, its names' values and "
        "the value it gives), sorted: a step's relation is corroborated only when it combines the same values."))
    programs: list[str] = Field(default_factory=list, description="Every program, as written.")
    problem_models: list[str] = Field(default_factory=list, description="Every problem model, as written.")
    rejected: list[str] = Field(default_factory=list, description="Why a formalisation was not used.")
    formaliser: Spec | None = None


class ChainStep(BaseModel):
    """One step as a chain-level checker (Coq, Lean 4) sees it: its artifact, text and place in the DAG."""

    step_id: int
    content: str
    artifact: str
    dependencies: list[int] = Field(default_factory=list, description="Direct dependencies.")
    ancestors: list[int] = Field(default_factory=list, description="Transitive dependencies, topological order.")
    context: StepContext | None = Field(default=None, description="The step's text, givens and ancestors.")


class CheckOutcome(BaseModel):
    """What one checker says about one artifact, before the chain-level cascade: the status, why (error kind),
    what a verified outcome rests on (evidence, set by the family's aligner) and diagnostics (`details`)."""

    status: StepStatus
    message: str | None = None
    error_kind: ErrorKind | None = None
    evidence: Evidence | None = None
    details: dict[str, Any] = Field(default_factory=dict)

    def with_evidence(self, evidence: Evidence) -> CheckOutcome:
        """This outcome resting on `evidence`."""
        return self.model_copy(update={"evidence": evidence})

    def downgraded(self, status: StepStatus, kind: ErrorKind, message: str, **diagnostics: Any) -> CheckOutcome:
        """This outcome turned into `status` for `message`, its evidence dropped; the checker's own status stays
        in the diagnostics (`checker_status`)."""
        details = {**self.details, "checker_status": self.status.value, **diagnostics}
        return CheckOutcome(status=status, message=message, error_kind=kind, details=details)


class JobStatus(StrEnum):
    """Where an API verification job is (the plan's `VerifyResponse.status`, plus `failed` and `cancelled`)."""

    QUEUED = "queued"
    TRANSLATING = "translating"
    VERIFYING = "verifying"
    COMPLETE = "complete"
    FAILED = "failed"
    CANCELLED = "cancelled"


class FailureDetail(BaseModel):
    """One failing step as the API reports it (the plan's `FailureDetail`)."""

    step_id: int
    original_content: str
    error: str
    suggested_fix: str | None = None
    cascade_impact: list[int] = Field(default_factory=list, description="Steps invalidated by this failure.")


class StepResult(BaseModel):
    """One step's outcome as the API reports it: status, the checker that judged it, and what was proven."""

    step_id: int
    status: StepStatus
    verified: bool
    checker: str | None = Field(default=None, description="The checker's `name version`; None when none ran.")
    message: str | None = Field(default=None, description="Why the step is not verified (the checker's message).")
    aligned_claim: str | None = Field(default=None, description="The formal claim proven, for a verified step.")
    evidence: EvidenceKind | None = Field(default=None, description="What a verified step rests on.")
    assumptions: list[str] = Field(default_factory=list, description=(
        "Premises the step was proven from that are neither given, derived nor contradicted."))

    @classmethod
    def of(cls, verdict: StepVerdict) -> StepResult:
        """The API view of one StepVerdict."""
        spec, evidence = verdict.checker_spec, verdict.evidence
        return cls(
            step_id=verdict.step_id,
            status=verdict.status,
            verified=verdict.verified,
            checker=f"{spec.name} {spec.version}" if spec else None,
            message=verdict.error_message,
            aligned_claim=evidence.aligned_claim or None if evidence is not None else None,
            evidence=evidence.kind if evidence is not None else None,
            assumptions=list(evidence.assumptions) if evidence is not None else [],
        )


class VerifyResponse(BaseModel):
    """The API's view of a verification job (the plan's `VerifyResponse`, field for field, plus what is added)."""

    task_id: str
    status: JobStatus
    verdict: Overall | None = None
    steps_verified: int | None = None
    steps_total: int | None = None
    failure_points: list[FailureDetail] | None = None
    certificate_id: str | None = None
    certificate_url: str | None = None
    verification_time_ms: int | None = None
    cost_credits: float | None = None
    assurance: Assurance | None = Field(default=None, description=(
        "Added beside the plan's fields: proven, arithmetic, unproven or refuted (see VerificationVerdict)."))
    steps: list[StepResult] | None = Field(default=None, description=(
        "Added: every step's status, checker, message and aligned claim, in chain order, once there is a verdict."))
    verdict_digest: str | None = Field(default=None, description="Added: what a certificate of this verdict signs.")
    status_detail: str | None = Field(default=None, description=(
        "Added: what a job that is not finished is waiting for (e.g. certificate keys being built)."))
    answer_matches_reference: bool | None = Field(default=None, description=(
        "Added: whether the chain's final value is the request's reference answer (None: none given, or not "
        "compared: `reference_check` says why)."))
    reference_check: ReferenceCheck | None = None


MAX_BATCH_REQUESTS = 100


class BatchSubmission(BaseModel):
    """`POST /v1/verify/batch`: several chains queued at once, each its own task."""

    model_config = ConfigDict(extra="forbid")

    requests: list[VerifyRequest] = Field(min_length=1, max_length=MAX_BATCH_REQUESTS, description=(
        f"1 to {MAX_BATCH_REQUESTS} requests, each checked as `POST /v1/verify` checks one; one bad request refuses "
        "the batch, naming it, and queues none."))


class TaskPage(BaseModel):
    """A page of the caller's tasks, newest first (`GET /v1/verify`), or the tasks a batch queued."""

    tasks: list[VerifyResponse]
    next_cursor: str | None = Field(default=None, description="Pass as `cursor` for the next page; null: the last.")


SCHEMA_MODELS: tuple[type[BaseModel], ...] = (
    VerifyRequest,
    BatchSubmission,
    TaskPage,
    ReasoningSubmission,
    ReasoningStep,
    StepTranslation,
    StepVerdict,
    VerificationVerdict,
    FailureReport,
    FailureDetail,
    StepResult,
    VerifyResponse,
)

// Public shapes of the SDK (camelCase) and of the API wire format (snake_case, as the server sends it).

export type Domain = 'mathematics' | 'code' | 'logic';
export type ProofLevel = 'quick' | 'standard' | 'formal';
export type JobStatus = 'queued' | 'translating' | 'verifying' | 'complete' | 'failed' | 'cancelled';
export type Verdict = 'VERIFIED' | 'PARTIAL' | 'FAILED';
export type ArtifactLanguage = 'sympy' | 'coq' | 'lean4' | 'python' | 'smtlib' | 'fol' | 'propositional';
export type Prover = 'auto' | 'coq' | 'lean4';
/** Who translates a chain sent without translations (omitted: ensemble when the server has a model, else rules). */
export type TranslatorMode = 'rules' | 'model' | 'ensemble';
export type Assurance =
  | 'proven' | 'conditional' | 'corroborated' | 'arithmetic' | 'self_tested' | 'unproven' | 'refuted';

export const DOMAINS: readonly Domain[] = ['mathematics', 'code', 'logic'];
export const PROOF_LEVELS: readonly ProofLevel[] = ['quick', 'standard', 'formal'];
export const JOB_STATUSES: readonly JobStatus[] = ['queued', 'translating', 'verifying', 'complete', 'failed', 'cancelled'];
export const TERMINAL_STATUSES: readonly JobStatus[] = ['complete', 'failed', 'cancelled'];
export const VERDICTS: readonly Verdict[] = ['VERIFIED', 'PARTIAL', 'FAILED'];

/** One step of the reasoning to verify. `dependencies` omitted: the step depends on the previous one. */
export interface ReasoningStep {
  stepId: number;
  content: string;
  claimedConclusion?: string | null;
  dependencies?: number[] | null;
}

/** A formal artifact supplied for one step instead of letting the server translate it. */
export interface StepTranslation {
  stepId: number;
  formalRepresentation: string;
  language: ArtifactLanguage;
  originalContent?: string;
  dependencies?: number[];
  translationConfidence?: number;
  compilationCheck?: boolean;
  notes?: string | null;
}

export interface VerifyRequest {
  reasoningChain: ReasoningStep[];
  domain: Domain;
  originalQuery?: string;
  claimedAnswer?: string;
  proofLevel?: ProofLevel;
  callbackUrl?: string | null;
  generateCertificate?: boolean;
  translations?: StepTranslation[] | null;
  prover?: Prover;
  translator?: TranslatorMode;
  /** With a model: independent translations of the chain (1..8), each checked on its own. */
  samples?: number;
  /** Translations that must prove a step, none refuting it, for it to be verified (1..9). */
  agree?: number;
  /** A reference (gold) answer compared with the chain's final value, reported beside the verdict. */
  referenceAnswer?: string;
}

export type ReasoningSource = 'auto' | 'reasoning' | 'answer';
export const REASONING_SOURCES: readonly ReasoningSource[] = ['auto', 'reasoning', 'answer'];

/** Reasoning as a model wrote it (plain text, or a provider's raw response object), with the question it answers.
 * The server splits it into steps; `claimedAnswer` omitted: what the response's final answer states. */
export interface ReasoningRequest {
  domain: Domain;
  originalQuery?: string;
  claimedAnswer?: string;
  /** Which part of a response becomes the chain: its reasoning, its answer, or auto (the reasoning when present). */
  source?: ReasoningSource;
  proofLevel?: ProofLevel;
  callbackUrl?: string | null;
  generateCertificate?: boolean;
  prover?: Prover;
  translator?: TranslatorMode;
  samples?: number;
  agree?: number;
  referenceAnswer?: string;
}

export interface VerifyOptions {
  /** Wait for the verdict (default) or return the queued job at once. */
  wait?: boolean;
  /** Give up waiting after this many seconds (the job keeps running; `get(taskId)` later). Default 300. */
  timeoutS?: number;
  /** Sent as the Idempotency-Key header; a fresh one is made per call when omitted. */
  idempotencyKey?: string;
}

export interface FailureDetail {
  stepId: number;
  originalContent: string;
  error: string;
  suggestedFix: string | null;
  cascadeImpact: number[];
}

export type StepStatus = 'verified' | 'failed' | 'invalidated' | 'error' | 'unsupported';
export const STEP_STATUSES: readonly StepStatus[] = ['verified', 'failed', 'invalidated', 'error', 'unsupported'];

/** One step's outcome: its status, the checker that judged it (`name version`), why it is not verified, and
 * for a verified step the formal claim proven and what kind of evidence it rests on. */
export interface StepResult {
  stepId: number;
  status: StepStatus;
  verified: boolean;
  checker: string | null;
  message: string | null;
  alignedClaim: string | null;
  evidence: string | null;
  /** Premises the step was proven from that nothing gives, derives or contradicts. */
  assumptions: string[];
}

/** The API's view of a verification job (the plan's VerifyResponse). */
export interface VerifyResponse {
  taskId: string;
  status: JobStatus;
  verdict: Verdict | null;
  stepsVerified: number | null;
  stepsTotal: number | null;
  failurePoints: FailureDetail[] | null;
  certificateId: string | null;
  certificateUrl: string | null;
  verificationTimeMs: number | null;
  costCredits: number | null;
  /** proven, conditional (some claims proven only from premises nobody gave: see each step's assumptions),
   * corroborated (some word-problem steps rest on independent formalisations of the question),
   * arithmetic (some steps checked only on the arithmetic in their prose), self_tested (some code only
   * against its author's own tests), unproven or refuted. */
  assurance: Assurance | null;
  /** Every step's result in chain order, once there is a verdict. */
  steps: StepResult[] | null;
  /** What a certificate of this verdict signs (sha256 hex). */
  verdictDigest: string | null;
  /** What an unfinished job is waiting for (e.g. certificate keys being built). */
  statusDetail: string | null;
  /** Whether the chain's final value is the reference answer (null: none given, or not compared). */
  answerMatchesReference: boolean | null;
  /** The reference comparison: the values compared, or why they were not. */
  referenceCheck: ReferenceCheck | null;
}

/** A page of the caller's tasks, newest first (GET /v1/verify), or the tasks a batch queued. */
export interface TaskPage {
  tasks: VerifyResponse[];
  /** Pass as `cursor` for the next page; null on the last. */
  nextCursor: string | null;
}

/** The chain's final value against the request's reference answer (beside the verdict, never part of it). */
export interface ReferenceCheck {
  reference: string;
  matches: boolean | null;
  comparedBy: 'reader' | 'math-verify' | null;
  message: string;
}

/** A certificate document exactly as issued: snake_case keys, because its id covers them. The domain, proof
 * level, assurance, checkers digest and verdict digest are signed by the validators with the step verdicts. */
export type Certificate = Record<string, unknown> & {
  certificate_id?: string;
  domain?: Domain;
  proof_level?: ProofLevel;
  assurance?: Assurance;
  verdict_digest?: string;
  checkers_digest?: string;
};

/** POST /v1/certificates/{certId}/verify: `valid` is true only when `reasons` is empty. */
export interface CertificateCheck {
  valid: boolean;
  reasons: string[];
}

/** GET /v1/stats: totals over every job in the service's store. */
export interface Stats {
  jobs: Record<string, number>;
  verdicts: Record<string, number>;
  stepsTotal: number;
  stepsVerified: number;
  certificatesIssued: number;
  meanVerificationTimeMs: number | null;
  queue: string;
}

export interface ClientOptions {
  apiKey?: string;
  /** Default http://127.0.0.1:8000. */
  baseUrl?: string;
  /** Per-request timeout in milliseconds (default 30000). */
  timeoutMs?: number;
  /** Retries on 429/502/503/504 and dropped connections (default 2). */
  maxRetries?: number;
  /** A fetch implementation (default: the global fetch). */
  fetch?: typeof fetch;
}

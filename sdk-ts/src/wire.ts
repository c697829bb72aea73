// camelCase <-> the API's snake_case, with the checks that keep bad input and bad answers out.

import { InvalidResponseError, ReasonForgeInputError } from './errors.js';
import {
  DOMAINS,
  JOB_STATUSES,
  PROOF_LEVELS,
  VERDICTS,
  type CertificateCheck,
  type FailureDetail,
  type JobStatus,
  STEP_STATUSES,
  type StepResult,
  type StepStatus,
  REASONING_SOURCES,
  type Assurance,
  type ReasoningRequest,
  type ReasoningStep,
  type ReferenceCheck,
  type TaskPage,
  type Stats,
  type StepTranslation,
  type Verdict,
  type VerifyRequest,
  type VerifyResponse,
} from './types.js';

const LANGUAGES = ['sympy', 'coq', 'lean4', 'python', 'smtlib', 'fol', 'propositional'];
const PROVERS = ['auto', 'coq', 'lean4'];
const TRANSLATORS = ['rules', 'model', 'ensemble'];

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fail(field: string, message: string): never {
  throw new ReasonForgeInputError(`${field}: ${message}`, field);
}

function checkIds(value: unknown, field: string): number[] {
  if (!Array.isArray(value) || !value.every((id) => Number.isSafeInteger(id))) {
    fail(field, 'must be an array of integer step ids');
  }
  return value as number[];
}

function stepToWire(step: unknown, index: number): Json {
  const where = `reasoningChain[${index}]`;
  if (typeof step === 'string') return { step_id: index + 1, content: step };
  if (!isObject(step)) fail(where, 'must be {stepId, content} or a string');
  const s = step as Partial<ReasoningStep>;
  if (!Number.isSafeInteger(s.stepId)) fail(`${where}.stepId`, 'must be an integer');
  if (typeof s.content !== 'string') fail(`${where}.content`, 'must be a string');
  const out: Json = { step_id: s.stepId, content: s.content };
  if (s.claimedConclusion !== undefined && s.claimedConclusion !== null) {
    if (typeof s.claimedConclusion !== 'string') fail(`${where}.claimedConclusion`, 'must be a string');
    out.claimed_conclusion = s.claimedConclusion;
  }
  if (s.dependencies !== undefined && s.dependencies !== null) {
    out.dependencies = checkIds(s.dependencies, `${where}.dependencies`);
  }
  return out;
}

function translationToWire(t: unknown, index: number): Json {
  const where = `translations[${index}]`;
  if (!isObject(t)) fail(where, 'must be an object');
  const s = t as Partial<StepTranslation>;
  if (!Number.isSafeInteger(s.stepId)) fail(`${where}.stepId`, 'must be an integer');
  if (typeof s.formalRepresentation !== 'string') fail(`${where}.formalRepresentation`, 'must be a string');
  if (!LANGUAGES.includes(String(s.language))) fail(`${where}.language`, `must be one of ${LANGUAGES.join(', ')}`);
  const out: Json = { step_id: s.stepId, formal_representation: s.formalRepresentation, language: s.language };
  if (s.originalContent !== undefined) out.original_content = s.originalContent;
  if (s.dependencies !== undefined) out.dependencies = checkIds(s.dependencies, `${where}.dependencies`);
  if (s.translationConfidence !== undefined) out.translation_confidence = s.translationConfidence;
  if (s.compilationCheck !== undefined) out.compilation_check = s.compilationCheck;
  if (s.notes !== undefined) out.notes = s.notes;
  return out;
}

function optionalString(value: unknown, field: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') fail(field, 'must be a string');
  return value;
}

/** The fields both submissions share (question, answer, level, callback, certificate, prover, translator), checked. */
function commonToWire(request: Omit<ReasoningRequest, 'source'>, body: Json): void {
  const query = optionalString(request.originalQuery, 'originalQuery');
  if (query !== undefined) body.original_query = query;
  const answer = optionalString(request.claimedAnswer, 'claimedAnswer');
  if (answer !== undefined) body.claimed_answer = answer;
  const reference = optionalString(request.referenceAnswer, 'referenceAnswer');
  if (reference !== undefined) body.reference_answer = reference;
  if (request.proofLevel !== undefined) {
    if (!PROOF_LEVELS.includes(request.proofLevel)) fail('proofLevel', `must be one of ${PROOF_LEVELS.join(', ')}`);
    body.proof_level = request.proofLevel;
  }
  if (request.callbackUrl !== undefined && request.callbackUrl !== null) {
    body.callback_url = optionalString(request.callbackUrl, 'callbackUrl');
  }
  if (request.generateCertificate !== undefined) {
    if (typeof request.generateCertificate !== 'boolean') fail('generateCertificate', 'must be true or false');
    body.generate_certificate = request.generateCertificate;
  }
  if (request.prover !== undefined) {
    if (!PROVERS.includes(request.prover)) fail('prover', `must be one of ${PROVERS.join(', ')}`);
    body.prover = request.prover;
  }
  if (request.translator !== undefined) {
    if (!TRANSLATORS.includes(request.translator)) fail('translator', `must be one of ${TRANSLATORS.join(', ')}`);
    body.translator = request.translator;
  }
  for (const [field, most] of [['samples', 8], ['agree', 9]] as const) {
    const value: unknown = request[field];
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value) || (value as number) < 1 || (value as number) > most) {
      fail(field, `must be an integer from 1 to ${most}`);
    }
    body[field] = value as number;
  }
}

/** The JSON body of POST /v1/verify; throws ReasonForgeInputError naming the bad field. */
export function requestToWire(request: VerifyRequest): Json {
  if (!isObject(request)) fail('request', 'must be an object with reasoningChain and domain');
  const chain: unknown = request.reasoningChain;
  if (!Array.isArray(chain) || chain.length === 0) {
    fail('reasoningChain', 'must be a non-empty array of {stepId, content} (or strings)');
  }
  if (!DOMAINS.includes(request.domain)) fail('domain', `must be one of ${DOMAINS.join(', ')}`);
  const body: Json = { reasoning_chain: chain.map(stepToWire), domain: request.domain };
  commonToWire(request, body);
  if (request.translations !== undefined && request.translations !== null) {
    if (!Array.isArray(request.translations)) fail('translations', 'must be an array');
    body.translations = request.translations.map(translationToWire);
  }
  return body;
}

/** The JSON body of POST /v1/verify/reasoning: `reasoning` is text or a provider's response object (sent as is). */
export function reasoningToWire(reasoning: unknown, request: ReasoningRequest): Json {
  const isText = typeof reasoning === 'string';
  if (!isText && !isObject(reasoning)) fail('reasoning', "must be reasoning text or a provider's response object");
  if (!isObject(request)) fail('request', 'must be an object with domain');
  if (!DOMAINS.includes(request.domain)) fail('domain', `must be one of ${DOMAINS.join(', ')}`);
  const body: Json = { reasoning, domain: request.domain };
  commonToWire(request, body);
  if (request.source !== undefined) {
    if (!REASONING_SOURCES.includes(request.source)) fail('source', `must be one of ${REASONING_SOURCES.join(', ')}`);
    body.source = request.source;
  }
  return body;
}

function bad(what: string, reason: string): never {
  throw new InvalidResponseError(`${what}: the server's answer is not a valid VerifyResponse (${reason}); check baseUrl`);
}

function nullable<T>(value: unknown, check: (v: unknown) => boolean, name: string, what: string): T | null {
  if (value === undefined || value === null) return null;
  if (!check(value)) bad(what, `${name} has the wrong type`);
  return value as T;
}

const isString = (v: unknown): boolean => typeof v === 'string';
const isAssurance = (v: unknown): boolean =>
  ['proven', 'conditional', 'corroborated', 'arithmetic', 'self_tested', 'unproven', 'refuted'].includes(v as string);
const isInt = (v: unknown): boolean => Number.isSafeInteger(v);
const isNumber = (v: unknown): boolean => typeof v === 'number' && Number.isFinite(v);

function failureFromWire(item: unknown, what: string): FailureDetail {
  if (!isObject(item)) bad(what, 'a failure point is not an object');
  if (!isInt(item.step_id) || !isString(item.original_content) || !isString(item.error)) {
    bad(what, 'a failure point lacks step_id, original_content or error');
  }
  const impact = item.cascade_impact ?? [];
  if (!Array.isArray(impact) || !impact.every(isInt)) bad(what, 'cascade_impact is not a list of step ids');
  return {
    stepId: item.step_id as number,
    originalContent: item.original_content as string,
    error: item.error as string,
    suggestedFix: nullable<string>(item.suggested_fix, isString, 'suggested_fix', what),
    cascadeImpact: impact as number[],
  };
}

function stepFromWire(item: unknown, what: string): StepResult {
  if (!isObject(item)) bad(what, 'a step result is not an object');
  if (!isInt(item.step_id) || !STEP_STATUSES.includes(item.status as StepStatus) || typeof item.verified !== 'boolean') {
    bad(what, 'a step result lacks step_id, status or verified');
  }
  return {
    stepId: item.step_id as number,
    status: item.status as StepStatus,
    verified: item.verified as boolean,
    checker: nullable<string>(item.checker, isString, 'checker', what),
    message: nullable<string>(item.message, isString, 'message', what),
    alignedClaim: nullable<string>(item.aligned_claim, isString, 'aligned_claim', what),
    evidence: nullable<string>(item.evidence, isString, 'evidence', what),
    assumptions: Array.isArray(item.assumptions) && item.assumptions.every(isString)
      ? (item.assumptions as string[]) : [],
  };
}

/** A VerifyResponse body in camelCase; throws InvalidResponseError when it is not one. */
export function responseFromWire(body: unknown, what: string): VerifyResponse {
  if (!isObject(body)) bad(what, 'not a JSON object');
  if (!isString(body.task_id) || body.task_id === '') bad(what, 'task_id is missing');
  if (!JOB_STATUSES.includes(body.status as JobStatus)) bad(what, `unknown status ${JSON.stringify(body.status)}`);
  const verdict = nullable<Verdict>(body.verdict, (v) => VERDICTS.includes(v as Verdict), 'verdict', what);
  const failures = body.failure_points;
  if (failures !== undefined && failures !== null && !Array.isArray(failures)) bad(what, 'failure_points is not a list');
  const steps = body.steps;
  if (steps !== undefined && steps !== null && !Array.isArray(steps)) bad(what, 'steps is not a list');
  return {
    taskId: body.task_id as string,
    status: body.status as JobStatus,
    verdict,
    stepsVerified: nullable<number>(body.steps_verified, isInt, 'steps_verified', what),
    stepsTotal: nullable<number>(body.steps_total, isInt, 'steps_total', what),
    failurePoints: Array.isArray(failures) ? failures.map((f) => failureFromWire(f, what)) : null,
    certificateId: nullable<string>(body.certificate_id, isString, 'certificate_id', what),
    certificateUrl: nullable<string>(body.certificate_url, isString, 'certificate_url', what),
    verificationTimeMs: nullable<number>(body.verification_time_ms, isInt, 'verification_time_ms', what),
    costCredits: nullable<number>(body.cost_credits, isNumber, 'cost_credits', what),
    assurance: nullable<Assurance>(body.assurance, isAssurance, 'assurance', what),
    steps: Array.isArray(steps) ? steps.map((s) => stepFromWire(s, what)) : null,
    verdictDigest: nullable<string>(body.verdict_digest, isString, 'verdict_digest', what),
    statusDetail: nullable<string>(body.status_detail, isString, 'status_detail', what),
    answerMatchesReference: nullable<boolean>(body.answer_matches_reference, isBoolean, 'answer_matches_reference',
      what),
    referenceCheck: referenceFromWire(body.reference_check, what),
  };
}

/** A TaskPage body in camelCase; throws InvalidResponseError when it is not one. */
export function pageFromWire(body: unknown, what: string): TaskPage {
  if (!isObject(body) || !Array.isArray(body.tasks)) bad(what, 'not a page of tasks');
  const cursor = (body as Json).next_cursor;
  if (cursor !== undefined && cursor !== null && !isString(cursor)) bad(what, 'next_cursor is not a string');
  return {
    tasks: ((body as Json).tasks as unknown[]).map((task) => responseFromWire(task, what)),
    nextCursor: (cursor ?? null) as string | null,
  };
}

function isBoolean(value: unknown): value is boolean {
  return typeof value === 'boolean';
}

function referenceFromWire(value: unknown, what: string): ReferenceCheck | null {
  if (value === undefined || value === null) return null;
  if (!isObject(value) || !isString(value.reference) || !isString(value.message)) {
    bad(what, 'reference_check is not a reference check');
  }
  const by = value.compared_by;
  if (by !== undefined && by !== null && by !== 'reader' && by !== 'math-verify') {
    bad(what, `reference_check.compared_by is ${JSON.stringify(by)}`);
  }
  return {
    reference: value.reference as string,
    matches: nullable<boolean>(value.matches, isBoolean, 'reference_check.matches', what),
    comparedBy: (by ?? null) as ReferenceCheck['comparedBy'],
    message: value.message as string,
  };
}

function counts(value: unknown): value is Record<string, number> {
  return isObject(value) && Object.values(value).every((v) => Number.isSafeInteger(v));
}

/** A ServiceStats body in camelCase; throws InvalidResponseError when it is not one. */
export function statsFromWire(body: unknown, what: string): Stats {
  const wrong = (reason: string): never => {
    throw new InvalidResponseError(`${what}: the server's answer is not valid statistics (${reason}); check baseUrl`);
  };
  if (!isObject(body)) return wrong('not a JSON object');
  if (!counts(body.jobs) || !counts(body.verdicts)) return wrong('jobs and verdicts must map names to counts');
  for (const key of ['steps_total', 'steps_verified', 'certificates_issued']) {
    if (!isInt(body[key])) return wrong(`${key} is not an integer`);
  }
  const mean = body.mean_verification_time_ms;
  if (mean !== null && mean !== undefined && !isNumber(mean)) return wrong('mean_verification_time_ms is not a number');
  if (!isString(body.queue)) return wrong('queue is not a string');
  return {
    jobs: body.jobs,
    verdicts: body.verdicts,
    stepsTotal: body.steps_total as number,
    stepsVerified: body.steps_verified as number,
    certificatesIssued: body.certificates_issued as number,
    meanVerificationTimeMs: (mean as number | null | undefined) ?? null,
    queue: body.queue as string,
  };
}

/** A certificate check result; throws InvalidResponseError when it is not one. */
export function checkFromWire(body: unknown, what: string): CertificateCheck {
  if (!isObject(body) || typeof body.valid !== 'boolean' || !Array.isArray(body.reasons) || !body.reasons.every(isString)) {
    throw new InvalidResponseError(`${what}: the server's answer is not a certificate check ({valid, reasons})`);
  }
  return { valid: body.valid, reasons: body.reasons as string[] };
}

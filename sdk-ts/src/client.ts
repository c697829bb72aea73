// ReasonForge: the client. verify() submits a reasoning chain and polls until the verdict is in.

import {
  APIConnectionError,
  InvalidResponseError,
  ReasonForgeInputError,
  VerificationTimeoutError,
  errorFromResponse,
} from './errors.js';
import {
  TERMINAL_STATUSES,
  type Certificate,
  type CertificateCheck,
  type ClientOptions,
  type JobStatus,
  type TaskPage,
  type ReasoningRequest,
  type Stats,
  type VerifyOptions,
  type VerifyRequest,
  type VerifyResponse,
} from './types.js';
import { checkFromWire, pageFromWire, reasoningToWire, requestToWire, responseFromWire, statsFromWire } from './wire.js';

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8000';
export const SDK_VERSION = '0.1.0';
// Worth another try: the server is busy or restarting, or the key is throttled for a moment.
const RETRYABLE = new Set([429, 502, 503, 504]);
const MAX_RETRY_WAIT_S = 30;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The most one poll asks the server to hold it; the server allows 60. */
const LONG_POLL_S = 25;
/** Requests per POST /v1/verify/batch (the server refuses more). */
const MAX_BATCH = 100;

function checkBaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ReasonForgeInputError(`baseUrl ${JSON.stringify(raw)} is not a URL; use e.g. ${DEFAULT_BASE_URL}`, 'baseUrl');
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname || url.search || url.hash) {
    throw new ReasonForgeInputError(
      `baseUrl ${JSON.stringify(raw)} must be an http(s) URL with a host and no query; use e.g. ${DEFAULT_BASE_URL}`,
      'baseUrl',
    );
  }
  return raw.replace(/\/+$/, '');
}

function checkId(value: string, name: string): string {
  if (typeof value !== 'string' || !/^[A-Za-z0-9\-_.:]{1,200}$/.test(value) || value === '.' || value === '..') {
    throw new ReasonForgeInputError(`${name} ${JSON.stringify(value)} is not a valid id`, name);
  }
  return value;
}

function retryDelayMs(attempt: number, retryAfter: number | null): number {
  const seconds = retryAfter ?? 0.25 * 2 ** attempt;
  return Math.min(seconds, MAX_RETRY_WAIT_S) * 1000;
}

export class ReasonForge {
  readonly baseUrl: string;
  readonly timeoutMs: number;
  readonly maxRetries: number;
  readonly #apiKey: string | null;
  readonly #fetch: typeof fetch;

  constructor(options: ClientOptions = {}) {
    this.baseUrl = checkBaseUrl(options.baseUrl ?? DEFAULT_BASE_URL);
    const key = options.apiKey?.trim() ?? null;
    if (key !== null && (key === '' || /\s/.test(key))) {
      throw new ReasonForgeInputError('apiKey is empty or contains whitespace; pass the rf_... key you were given', 'apiKey');
    }
    this.#apiKey = key;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.maxRetries = Math.max(0, options.maxRetries ?? 2);
    this.#fetch = options.fetch ?? globalThis.fetch;
  }

  /** One API call, retried on throttling, restarts and dropped connections when `retry` is safe. */
  async #request(method: string, path: string, body?: unknown, extraHeaders: Record<string, string> = {}): Promise<string> {
    const headers: Record<string, string> = {
      Accept: 'application/json',
      'User-Agent': `reasonforge-ts/${SDK_VERSION}`,
      ...extraHeaders,
    };
    if (this.#apiKey) headers.Authorization = `Bearer ${this.#apiKey}`;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const url = this.baseUrl + path;
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await this.#fetch(url, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(this.timeoutMs),
        });
      } catch (exc) {
        if (attempt < this.maxRetries) {
          await sleep(retryDelayMs(attempt, null));
          continue;
        }
        const cause = exc instanceof Error ? `${exc.name}: ${exc.message}` : String(exc);
        throw new APIConnectionError(`${method} ${url}: ${cause}`);
      }
      const text = await response.text();
      if (response.ok) return text;
      const error = errorFromResponse(response.status, response.headers, text);
      if (attempt < this.maxRetries && RETRYABLE.has(response.status)) {
        await sleep(retryDelayMs(attempt, error.retryAfter));
        continue;
      }
      throw error;
    }
  }

  async #json(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<unknown> {
    const text = await this.#request(method, path, body, headers);
    try {
      return JSON.parse(text);
    } catch {
      throw new InvalidResponseError(`${method} ${path}: the server's answer is not JSON; check baseUrl`);
    }
  }

  /** POST /v1/verify: queue a verification and return at once (status `queued`). */
  async submit(request: VerifyRequest, options: Pick<VerifyOptions, 'idempotencyKey'> = {}): Promise<VerifyResponse> {
    const body = requestToWire(request);
    // A key per call makes a retried POST land on the same job instead of queueing a second one.
    const key = options.idempotencyKey ?? `sdk-${crypto.randomUUID()}`;
    const answer = await this.#json('POST', '/v1/verify', body, { 'Idempotency-Key': key });
    return responseFromWire(answer, 'POST /v1/verify');
  }

  /**
   * GET /v1/verify/{taskId}: the job's status and, once complete, its verdict. `waitS` > 0 asks the server to hold
   * the answer until the job ends or that many seconds pass (at most 60).
   */
  async get(taskId: string, waitS = 0): Promise<VerifyResponse> {
    const id = checkId(taskId, 'taskId');
    const query = waitS > 0 ? `?wait=${waitS}` : '';
    return responseFromWire(await this.#json('GET', `/v1/verify/${id}${query}`), `GET /v1/verify/${id}`);
  }

  /**
   * Wait until the job is complete, failed or cancelled, long-polling (one request per wait, not a polling loop);
   * VerificationTimeoutError after `timeoutS`.
   */
  async wait(taskId: string, timeoutS = 300): Promise<VerifyResponse> {
    const deadline = Date.now() + timeoutS * 1000;
    let delayMs = 100;
    for (;;) {
      // Within the deadline, under the request timeout with a margin, and the cap of one poll.
      const askedS = Math.max(0, Math.min(LONG_POLL_S, (deadline - Date.now()) / 1000, this.timeoutMs / 1000 - 5));
      const sent = Date.now();
      const job = await this.get(taskId, Math.floor(askedS * 1000) / 1000);
      if (TERMINAL_STATUSES.includes(job.status)) return job;
      const remaining = deadline - Date.now();
      if (remaining <= 0) {
        throw new VerificationTimeoutError(
          `task ${taskId} is still ${job.status} after ${timeoutS}s; raise timeoutS or call get(${JSON.stringify(taskId)}) later`,
          taskId,
          job.status,
        );
      }
      if (askedS <= 0 || Date.now() - sent < (askedS * 1000) / 2) {
        // Answered early without an end (a stopping or older server): pause, growing, before asking again.
        await sleep(Math.min(delayMs, remaining));
        delayMs = Math.min(delayMs * 1.5, 2000);
      }
    }
  }

  /** POST /v1/verify/batch: queue every request (100 per call), each its own task, in order. */
  async submitMany(requests: VerifyRequest[], options: Pick<VerifyOptions, 'idempotencyKey'> = {}): Promise<VerifyResponse[]> {
    if (!Array.isArray(requests) || requests.length === 0) {
      throw new ReasonForgeInputError('requests: give at least one request to verify', 'requests');
    }
    const bodies = requests.map((request, index) => {
      try {
        return requestToWire(request);
      } catch (error) {
        if (error instanceof ReasonForgeInputError) {
          throw new ReasonForgeInputError(`requests[${index}]: ${error.message}`, `requests[${index}]`);
        }
        throw error;
      }
    });
    const key = options.idempotencyKey ?? `sdk-${crypto.randomUUID()}`;
    const tasks: VerifyResponse[] = [];
    for (let start = 0; start < bodies.length; start += MAX_BATCH) {
      const answer = await this.#json('POST', '/v1/verify/batch', { requests: bodies.slice(start, start + MAX_BATCH) },
        { 'Idempotency-Key': `${key}.${start / MAX_BATCH}` });
      tasks.push(...pageFromWire(answer, 'POST /v1/verify/batch').tasks);
    }
    return tasks;
  }

  /** Submit every request and (by default) wait for all their verdicts, in order; `timeoutS` bounds the whole wait. */
  async verifyMany(requests: VerifyRequest[], options: VerifyOptions = {}): Promise<VerifyResponse[]> {
    const jobs = await this.submitMany(requests, options);
    if (options.wait === false) return jobs;
    const deadline = Date.now() + (options.timeoutS ?? 300) * 1000;
    const done: VerifyResponse[] = [];
    for (const job of jobs) {
      done.push(TERMINAL_STATUSES.includes(job.status) ? job
        : await this.wait(job.taskId, Math.max(0, (deadline - Date.now()) / 1000)));
    }
    return done;
  }

  /** GET /v1/verify: this key's tasks, newest first; pass `nextCursor` as `cursor` for the next page. */
  async listTasks(options: { status?: JobStatus; limit?: number; cursor?: string } = {}): Promise<TaskPage> {
    const limit = options.limit ?? 20;
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > 100) {
      throw new ReasonForgeInputError('limit must be an integer from 1 to 100', 'limit');
    }
    const query = new URLSearchParams({ limit: String(limit) });
    if (options.status !== undefined) query.set('status', options.status);
    if (options.cursor !== undefined) query.set('cursor', options.cursor);
    return pageFromWire(await this.#json('GET', `/v1/verify?${query.toString()}`), 'GET /v1/verify');
  }

  /** Submit a reasoning chain and (by default) wait for its verdict. */
  async verify(request: VerifyRequest, options: VerifyOptions = {}): Promise<VerifyResponse> {
    const job = await this.submit(request, options);
    if (options.wait === false || TERMINAL_STATUSES.includes(job.status)) return job;
    return this.wait(job.taskId, options.timeoutS ?? 300);
  }

  /** POST /v1/verify/reasoning: queue reasoning as a model wrote it; the server splits it into steps. */
  async submitReasoning(
    reasoning: string | Record<string, unknown>,
    request: ReasoningRequest,
    options: Pick<VerifyOptions, 'idempotencyKey'> = {},
  ): Promise<VerifyResponse> {
    const body = reasoningToWire(reasoning, request);
    const key = options.idempotencyKey ?? `sdk-${crypto.randomUUID()}`;
    const answer = await this.#json('POST', '/v1/verify/reasoning', body, { 'Idempotency-Key': key });
    return responseFromWire(answer, 'POST /v1/verify/reasoning');
  }

  /** Verify plain reasoning text ("Step 1: ...", paragraphs, lists, <think> tags) and (by default) wait. */
  async verifyText(text: string, request: ReasoningRequest, options: VerifyOptions = {}): Promise<VerifyResponse> {
    if (typeof text !== 'string') {
      throw new ReasonForgeInputError("verifyText takes reasoning text; use verifyResponse for a provider's response", 'reasoning');
    }
    return this.#verifyReasoning(text, request, options);
  }

  /** Verify a provider's raw response (OpenAI Chat Completions / Responses, Anthropic, DeepSeek-R1) and wait. */
  async verifyResponse(
    response: Record<string, unknown>,
    request: ReasoningRequest,
    options: VerifyOptions = {},
  ): Promise<VerifyResponse> {
    if (typeof response !== 'object' || response === null || Array.isArray(response)) {
      throw new ReasonForgeInputError("verifyResponse takes a provider's response object; use verifyText for text", 'reasoning');
    }
    return this.#verifyReasoning(response, request, options);
  }

  async #verifyReasoning(
    reasoning: string | Record<string, unknown>,
    request: ReasoningRequest,
    options: VerifyOptions,
  ): Promise<VerifyResponse> {
    const job = await this.submitReasoning(reasoning, request, options);
    if (options.wait === false || TERMINAL_STATUSES.includes(job.status)) return job;
    return this.wait(job.taskId, options.timeoutS ?? 300);
  }

  /** GET /v1/certificates/{certId}: the certificate document as issued. */
  async certificate(certId: string): Promise<Certificate> {
    const id = checkId(certId, 'certId');
    const body = await this.#json('GET', `/v1/certificates/${id}`);
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new InvalidResponseError(`GET /v1/certificates/${id}: the server's answer is not a JSON object`);
    }
    return body as Certificate;
  }

  /** POST /v1/certificates/{certId}/verify: the server re-checks the certificate's proof now. */
  async verifyCertificate(certId: string): Promise<CertificateCheck> {
    const id = checkId(certId, 'certId');
    const path = `/v1/certificates/${id}/verify`;
    return checkFromWire(await this.#json('POST', path), `POST ${path}`);
  }

  /** GET /v1/stats: jobs by status, verdicts by result, steps, certificates, mean time. */
  async stats(): Promise<Stats> {
    return statsFromWire(await this.#json('GET', '/v1/stats'), 'GET /v1/stats');
  }
}

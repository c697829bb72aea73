// Typed errors: the API's {"error": {code, message, field}} bodies become exceptions by HTTP status.

/** Base class of every error this SDK throws. */
export class ReasonForgeError extends Error {
  readonly code: string;
  readonly field: string | null;

  constructor(message: string, code: string, field: string | null = null) {
    super(message);
    this.name = new.target.name;
    this.code = code;
    this.field = field;
  }
}

/** The request was rejected before it was sent (bad argument); `field` names it. */
export class ReasonForgeInputError extends ReasonForgeError {
  constructor(message: string, field: string | null = null) {
    super(message, 'input_error', field);
  }
}

export interface APIErrorInit {
  status: number;
  code: string;
  message: string;
  field: string | null;
  retryAfter: number | null;
  requestId: string | null;
}

/** The service answered with an error status. */
export class ReasonForgeAPIError extends ReasonForgeError {
  readonly status: number;
  /** Seconds from the Retry-After header (429, 503), else null. */
  readonly retryAfter: number | null;
  readonly requestId: string | null;

  constructor(init: APIErrorInit) {
    const where = init.field ? ` (field: ${init.field})` : '';
    super(`HTTP ${init.status} ${init.code}: ${init.message}${where}`, init.code, init.field);
    this.status = init.status;
    this.retryAfter = init.retryAfter;
    this.requestId = init.requestId;
  }
}

export class BadRequestError extends ReasonForgeAPIError {}
export class AuthenticationError extends ReasonForgeAPIError {}
export class PaymentRequiredError extends ReasonForgeAPIError {}
export class PermissionDeniedError extends ReasonForgeAPIError {}
export class NotFoundError extends ReasonForgeAPIError {}
export class ConflictError extends ReasonForgeAPIError {}
export class PayloadTooLargeError extends ReasonForgeAPIError {}
export class InvalidRequestError extends ReasonForgeAPIError {}
export class RateLimitError extends ReasonForgeAPIError {}
export class ServerError extends ReasonForgeAPIError {}

/** The service could not be reached (refused, reset, timed out). */
export class APIConnectionError extends ReasonForgeError {
  constructor(message: string) {
    super(message, 'connection_error');
  }
}

/** A 2xx answer whose body is not what the endpoint promises (wrong baseUrl, proxy page, ...). */
export class InvalidResponseError extends ReasonForgeError {
  constructor(message: string) {
    super(message, 'invalid_response');
  }
}

/** The job did not finish in time; it is still running, so `get(taskId)` later. */
export class VerificationTimeoutError extends ReasonForgeError {
  readonly taskId: string;
  readonly lastStatus: string | null;

  constructor(message: string, taskId: string, lastStatus: string | null) {
    super(message, 'verification_timeout', 'timeoutS');
    this.taskId = taskId;
    this.lastStatus = lastStatus;
  }
}

const BY_STATUS: Record<number, typeof ReasonForgeAPIError> = {
  400: BadRequestError,
  401: AuthenticationError,
  402: PaymentRequiredError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  413: PayloadTooLargeError,
  422: InvalidRequestError,
  429: RateLimitError,
};

/** Seconds from a Retry-After header given in seconds; null when absent or not a number. */
export function parseRetryAfter(value: string | null): number | null {
  if (value === null || value.trim() === '') return null;
  const seconds = Number(value.trim());
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The typed error for a non-2xx answer, reading the standard error body when there is one. */
export function errorFromResponse(status: number, headers: Headers, text: string): ReasonForgeAPIError {
  const Kind = BY_STATUS[status] ?? (status >= 500 ? ServerError : ReasonForgeAPIError);
  let code: string | null = null;
  let message = '';
  let field: string | null = null;
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  if (isObject(body) && isObject(body.error)) {
    const error = body.error;
    code = typeof error.code === 'string' ? error.code : null;
    message = typeof error.message === 'string' ? error.message : '';
    field = typeof error.field === 'string' ? error.field : null;
  } else if (isObject(body) && typeof body.detail === 'string') {
    message = body.detail;
  } else if (isObject(body) && Array.isArray(body.detail)) {
    message = body.detail
      .filter(isObject)
      .slice(0, 5)
      .map((item) => {
        const loc = Array.isArray(item.loc) ? item.loc.filter((p) => p !== 'body').join('.') : '';
        return loc ? `${loc}: ${String(item.msg ?? 'invalid')}` : String(item.msg ?? 'invalid');
      })
      .join('; ');
  }
  if (!message) {
    const start = text.slice(0, 300).trim();
    message = `the server answered HTTP ${status}${start ? `: ${start}` : ' with an empty body'}`;
  }
  return new Kind({
    status,
    code: code ?? `http_${status}`,
    message: message.slice(0, 2000),
    field,
    retryAfter: parseRetryAfter(headers.get('retry-after')),
    requestId: headers.get('x-request-id'),
  });
}

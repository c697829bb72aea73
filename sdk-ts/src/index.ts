// @reasonforge/sdk: TypeScript client for the ReasonForge verification API.

export { ReasonForge, DEFAULT_BASE_URL, SDK_VERSION } from './client.js';
export {
  APIConnectionError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  InvalidRequestError,
  InvalidResponseError,
  NotFoundError,
  PayloadTooLargeError,
  PaymentRequiredError,
  PermissionDeniedError,
  RateLimitError,
  ReasonForgeAPIError,
  ReasonForgeError,
  ReasonForgeInputError,
  ServerError,
  VerificationTimeoutError,
  errorFromResponse,
} from './errors.js';
export type * from './types.js';
export { DOMAINS, PROOF_LEVELS, JOB_STATUSES, REASONING_SOURCES, STEP_STATUSES, TERMINAL_STATUSES, VERDICTS } from './types.js';

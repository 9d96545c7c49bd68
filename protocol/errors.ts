/** Error codes of the v1 contract and the HTTP status each one hints at. */
export const ERROR_STATUS = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN_SCOPE: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  IDEMPOTENT_REPLAY: 200,
  GOVERNANCE_NOT_READY: 423,
  RATE_LIMITED: 429,
  WEAK_SECRET: 401,
  INTERNAL: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(ERROR_STATUS, code);
}

/** Thrown from anywhere; turned into an error frame in exactly one place (the pipeline). */
export class ApiError extends Error {
  readonly code: ErrorCode;
  /** Seconds to wait, for RATE_LIMITED. */
  readonly retryAfterSeconds?: number;

  constructor(code: ErrorCode, message: string, opts: { retryAfterSeconds?: number } = {}) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.retryAfterSeconds = opts.retryAfterSeconds;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export const badRequest = (field: string, reason: string) => new ApiError('BAD_REQUEST', `${field}: ${reason}`);

/** A field inside `parent` as BAD_REQUEST names it: `filter.role`, or `role` at the top of the params (parent ''). */
export const fieldIn = (parent: string, name: string): string => (parent ? `${parent}.${name}` : name);
export const notFound = (what: string) => new ApiError('NOT_FOUND', `${what} not found`);
export const conflict = (message: string) => new ApiError('CONFLICT', message);

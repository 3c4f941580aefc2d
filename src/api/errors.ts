// The AIP-193 error model, shared by the server (raises and serializes it) and the
// client (decodes the wire body back into the same type). Kept free of zod so that
// the CLI can render errors without loading the schemas.

export const Code = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const;

const codeNames = Object.fromEntries(Object.entries(Code).map(([k, v]) => [v, k])) as Record<number, string>;

/** The name of a numeric code (`3` → `INVALID_ARGUMENT`), the default ErrorInfo reason. */
export function codeName(code: number): string {
  return codeNames[code] ?? 'UNKNOWN';
}

/** The standard google.rpc code → HTTP status mapping. */
const httpByCode: Record<number, number> = {
  0: 200, 1: 499, 2: 500, 3: 400, 4: 504, 5: 404, 6: 409, 7: 403,
  8: 429, 9: 400, 10: 409, 11: 400, 12: 501, 13: 500, 14: 503, 15: 500, 16: 401,
};

export function httpStatusForCode(code: number): number {
  return httpByCode[code] ?? 500;
}

/** The inverse, for a non-AIP error response (a proxy's 502, say). */
export function codeForHttpStatus(status: number): number {
  switch (status) {
    case 400: return Code.INVALID_ARGUMENT;
    case 401: return Code.UNAUTHENTICATED;
    case 403: return Code.PERMISSION_DENIED;
    case 404: return Code.NOT_FOUND;
    case 409: return Code.ALREADY_EXISTS;
    case 413: return Code.INVALID_ARGUMENT;
    case 429: return Code.RESOURCE_EXHAUSTED;
    case 501: return Code.UNIMPLEMENTED;
    case 503: return Code.UNAVAILABLE;
    case 504: return Code.DEADLINE_EXCEEDED;
    default: return status >= 500 ? Code.INTERNAL : Code.UNKNOWN;
  }
}

const TYPE_PREFIX = 'type.googleapis.com/google.rpc.';
export const ERROR_INFO_TYPE = `${TYPE_PREFIX}ErrorInfo`;
export const BAD_REQUEST_TYPE = `${TYPE_PREFIX}BadRequest`;
export const PRECONDITION_FAILURE_TYPE = `${TYPE_PREFIX}PreconditionFailure`;
/** The ErrorInfo domain of every error this API raises. */
const ERROR_DOMAIN = 'platform.api.v2';

export interface FieldViolation { field: string; description: string }
export interface PreconditionViolation { type: string; subject?: string; description: string }

interface ErrorInfoDetail { '@type': typeof ERROR_INFO_TYPE; reason: string; domain: string; metadata?: Record<string, string> }
interface BadRequestDetail { '@type': typeof BAD_REQUEST_TYPE; fieldViolations: FieldViolation[] }
interface PreconditionFailureDetail { '@type': typeof PRECONDITION_FAILURE_TYPE; violations: PreconditionViolation[] }
type Detail = ErrorInfoDetail | BadRequestDetail | PreconditionFailureDetail | { '@type': string; [k: string]: unknown };

/**
 * The wire body is the google.rpc.Status itself, `{code, message, details}` (plus the code's
 * name in `status`), as gRPC-gateway serves it: the spec's errors carry the gRPC code (3, 9)
 * in `code`, not an HTTP status.
 */
export interface Status { code: number; message: string; status?: string; details: Detail[] }

export interface ApiErrorInit {
  reason?: string;
  fieldViolations?: FieldViolation[];
  preconditionViolations?: PreconditionViolation[];
  metadata?: Record<string, string>;
  /** Overrides the standard mapping (413 for an oversized body, 405 for a wrong method). */
  httpStatus?: number;
  /** Extra headers to send with the error (Allow, WWW-Authenticate …). */
  headers?: Record<string, string>;
}

export class ApiError extends Error {
  readonly code: number;
  readonly reason: string;
  readonly fieldViolations: FieldViolation[];
  readonly preconditionViolations: PreconditionViolation[];
  readonly metadata: Record<string, string> | undefined;
  readonly httpStatus: number;
  readonly headers: Record<string, string>;

  constructor(code: number, message: string, init: ApiErrorInit = {}) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.reason = init.reason ?? codeName(code);
    this.fieldViolations = init.fieldViolations ?? [];
    this.preconditionViolations = init.preconditionViolations ?? [];
    this.metadata = init.metadata;
    this.httpStatus = init.httpStatus ?? httpStatusForCode(code);
    this.headers = init.headers ?? {};
  }

  toStatus(): Status {
    const info: ErrorInfoDetail = { '@type': ERROR_INFO_TYPE, reason: this.reason, domain: ERROR_DOMAIN };
    if (this.metadata) info.metadata = this.metadata;
    const details: Detail[] = [info];
    if (this.fieldViolations.length) details.push({ '@type': BAD_REQUEST_TYPE, fieldViolations: this.fieldViolations });
    if (this.preconditionViolations.length) details.push({ '@type': PRECONDITION_FAILURE_TYPE, violations: this.preconditionViolations });
    return { code: this.code, message: this.message, status: codeName(this.code), details };
  }


  /**
   * Decodes a wire body. Accepts a bare Status and Google's `{"error": Status}` envelope,
   * so the client copes with either. Returns undefined when the body is not a Status.
   */
  static fromBody(body: unknown, httpStatus: number): ApiError | undefined {
    if (!body || typeof body !== 'object') return undefined;
    const raw = ('error' in body && body.error && typeof body.error === 'object' ? body.error : body) as Record<string, unknown>;
    if (typeof raw.code !== 'number' || typeof raw.message !== 'string') return undefined;
    const details = Array.isArray(raw.details) ? (raw.details as Record<string, unknown>[]) : [];
    const init: ApiErrorInit = { httpStatus };
    for (const d of details) {
      if (!d || typeof d !== 'object') continue;
      const type = d['@type'];
      if (type === ERROR_INFO_TYPE && typeof d.reason === 'string') {
        init.reason = d.reason;
        if (d.metadata && typeof d.metadata === 'object') init.metadata = d.metadata as Record<string, string>;
      } else if (type === BAD_REQUEST_TYPE && Array.isArray(d.fieldViolations)) {
        init.fieldViolations = (d.fieldViolations as FieldViolation[]).filter((v) => v && typeof v.field === 'string');
      } else if (type === PRECONDITION_FAILURE_TYPE && Array.isArray(d.violations)) {
        init.preconditionViolations = (d.violations as PreconditionViolation[]).filter((v) => v && typeof v.type === 'string');
      }
    }
    return new ApiError(raw.code, raw.message, init);
  }
}

// Constructors for the errors the API raises, so that wording stays uniform.

/** `Invalid argument: <field>: <description>`, as the spec words it. */
export function invalidArgument(violations: FieldViolation[], reason = 'INVALID_ARGUMENT'): ApiError {
  const first = violations[0] ?? { field: 'request', description: 'is invalid' };
  const more = violations.length > 1 ? ` (and ${violations.length - 1} more)` : '';
  return new ApiError(Code.INVALID_ARGUMENT, `Invalid argument: ${first.field}: ${first.description}${more}`, {
    reason,
    fieldViolations: violations,
  });
}

export function invalidField(field: string, description: string): ApiError {
  return invalidArgument([{ field, description }]);
}

export function notFound(kind: string, uid: string, field?: string): ApiError {
  return new ApiError(Code.NOT_FOUND, `${kind} not found: ${uid}`, {
    reason: 'NOT_FOUND',
    metadata: { resource: kind, uid },
    ...(field ? { fieldViolations: [{ field, description: `${kind.toLowerCase()} ${uid} does not exist` }] } : {}),
  });
}

export function failedPrecondition(message: string, violations: PreconditionViolation[]): ApiError {
  return new ApiError(Code.FAILED_PRECONDITION, message, { reason: 'FAILED_PRECONDITION', preconditionViolations: violations });
}

export function alreadyExists(message: string): ApiError {
  return new ApiError(Code.ALREADY_EXISTS, message, { reason: 'ALREADY_EXISTS' });
}

export function unauthenticated(message: string): ApiError {
  return new ApiError(Code.UNAUTHENTICATED, message, {
    reason: 'UNAUTHENTICATED',
    headers: { 'www-authenticate': 'Bearer realm="pctl"' },
  });
}

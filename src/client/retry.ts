// When and how long to wait before trying a request again.
//
//   what is retried  connection errors (reset, socket hang up, DNS try-again, host unreachable)
//                    and 429, 502, 503, 504 answers. Not a refused connection: nothing listens
//                    there, seconds of backoff rarely change that, and the user wants the hint
//                    ("is the server running?") at once, as gh and kubectl give it.
//   which requests   idempotent ones: GET, HEAD, OPTIONS, DELETE, and PATCH with an updateMask
//                    (the same fields set to the same values twice is the same result).
//                    A POST is never retried once it may have reached the server; it is retried
//                    only when the connection itself failed (host unreachable, host not found
//                    yet), i.e. when no byte of it was sent, or when the answer is 429:
//                    a rate limiter refuses a request before acting on it.
//   how long         Retry-After (seconds or an HTTP date) when the server sends one, capped at
//                    RETRY_AFTER_CAP_MS; otherwise exponential backoff with full jitter:
//                    random(0, min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2^(retry-1)))
//   how often        `retries` more attempts (default 3: at most 4 attempts; 0 disables)
import { NetworkError } from './errors.js';

const RETRY_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

/** Whether an answer with this status is worth another attempt of this request. */
export function retryableStatus(status: number, idempotent: boolean): boolean {
  // 429: the server refused the request unprocessed (over its rate limit), so even a POST is safe to send again.
  return status === 429 || (idempotent && RETRY_STATUSES.has(status));
}
const BACKOFF_BASE_MS = 500;
const BACKOFF_CAP_MS = 8_000;
const RETRY_AFTER_CAP_MS = 30_000;

/** Whether sending `method url` twice has the effect of sending it once. */
export function isIdempotent(method: string, url: string): boolean {
  const m = method.toUpperCase();
  if (m === 'GET' || m === 'HEAD' || m === 'OPTIONS' || m === 'DELETE') return true;
  if (m === 'PATCH') {
    const q = url.indexOf('?');
    if (q < 0) return false;
    const params = new URLSearchParams(url.slice(q + 1));
    return Boolean(params.get('updateMask') || params.get('update_mask'));
  }
  return false;
}

function errorCode(err: unknown): string | undefined {
  const e = (err instanceof NetworkError ? err.cause : err) as { code?: string; cause?: { code?: string } } | undefined;
  return e?.code ?? e?.cause?.code;
}

/** Failures before the request could have left: safe to retry whatever the method. */
const NOTHING_SENT = new Set(['EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH']);
/** Failures after the request may have reached the server: only idempotent requests are retried. */
const MAYBE_SENT = new Set(['ECONNRESET', 'EPIPE']);

/** A short name of a retryable connection failure, or undefined when it is not retryable for this request. */
export function retryableFailure(err: unknown, idempotent: boolean): string | undefined {
  const code = errorCode(err);
  if (!code) return undefined;
  if (NOTHING_SENT.has(code)) {
    if (code === 'EAI_AGAIN') return 'host lookup failed';
    return 'host unreachable';
  }
  if (idempotent && MAYBE_SENT.has(code)) return code === 'ECONNRESET' ? 'connection reset' : 'socket hang up';
  return undefined;
}

/** Retry-After in milliseconds (delta-seconds or an HTTP date), or undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const date = Date.parse(v);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}

/** Full jitter: a uniformly random wait below the exponential ceiling of this retry (1-based). */
export function backoffDelay(retry: number, random: () => number): number {
  const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** (retry - 1));
  return Math.floor(random() * ceiling);
}

/** How long to wait before retry number `retry` (1-based): the server's Retry-After, or backoff. */
export function retryDelay(retry: number, retryAfter: string | undefined, nowMs: number, random: () => number): number {
  const asked = parseRetryAfter(retryAfter, nowMs);
  if (asked !== undefined) return Math.min(asked, RETRY_AFTER_CAP_MS);
  return backoffDelay(retry, random);
}

/** `1.2s`, `350ms`. */
export function formatWait(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(1).replace(/\.0$/, '')}s` : `${ms}ms`;
}

export const defaultSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

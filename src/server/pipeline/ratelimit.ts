// serve's limits per caller (an identity when the request is authenticated, else the
// client's address), as `--rate-limit` sets them:
// - fair (the default): fair queuing of each caller's concurrent requests (fair-queue.ts).
//   Protection, not a rate: a sequential client is never refused, whatever its speed.
// - RATE/UNIT[,BURST]: the API's rate limits emulated, for testing that automation survives
//   a 429 (the spec: "enforced from GA", values not shown). One token bucket per caller,
//   filled at the policy's rate up to its burst. Every answer reports the policy and the
//   caller's bucket in the IETF RateLimit fields (draft-ietf-httpapi-ratelimit-headers-11):
//     RateLimit-Policy: "default";q=100;w=1      q requests per w seconds, sustained
//                                                (;pctl-burst=B when the bucket holds more than q)
//     RateLimit: "default";r=57;t=1              r requests left now; t seconds until the
//                                                bucket is full again, or when r=0 until the
//                                                next request is let in (= Retry-After of a 429)
//   The bucket counts in integers (credit in request·milliseconds) so that an injected clock
//   moved by exactly Retry-After always lets the next request in.
// - off: no limit, no fields.
import { ApiError, Code } from '../../api/errors.js';
import { DEFAULT_FAIR_QUEUING, FairQueue, type Admitted, type FairQueuing } from './fair-queue.js';

export { DEFAULT_FAIR_QUEUING, type Admitted, type FairQueuing };

export interface RateLimit {
  /** Requests per window, sustained. */
  limit: number;
  /** The window in seconds: 1, 60 or 3600 (`/s`, `/m`, `/h`). */
  windowSeconds: number;
  /** Requests that may come at once: the size of the bucket (defaults to `limit`). */
  burst: number;
}

/** What `--rate-limit` sets: a rate (a token bucket), fair queuing, or no limit. */
export type Limits = RateLimit | FairQueuing | 'off';

/** Admits each request of a caller, or refuses it with a 429 (an ApiError carrying Retry-After and the fields). */
export interface Limiter {
  admit(caller: string): Admitted | Promise<Admitted>;
  /** The fields for an answer that counts nothing (a request too malformed to be served). */
  peek(caller: string): Record<string, string>;
}

export function createLimiter(limits: RateLimit | FairQueuing, clock: () => number): Limiter {
  return isRate(limits) ? new RateLimiter(limits, clock) : new FairQueue(limits);
}

function isRate(limits: RateLimit | FairQueuing): limits is RateLimit {
  return 'windowSeconds' in limits;
}

const UNITS: Record<string, number> = { s: 1, sec: 1, second: 1, m: 60, min: 60, minute: 60, h: 3600, hour: 3600 };
const UNIT_NAMES: Record<number, string> = { 1: 's', 60: 'm', 3600: 'h' };
const MAX_REQUESTS = 1_000_000;

/** A usage mistake in a rate-limit setting; the message is the description of the field. */
export class RateLimitSyntaxError extends Error {}

/** `fair`, `100/s`, `6000/m`, `50/s,200` (a burst of 200), `off`. */
export function parseRateLimit(text: string): Limits {
  const v = text.trim().toLowerCase();
  if (v === 'off') return 'off';
  if (v === 'fair') return DEFAULT_FAIR_QUEUING;
  const m = /^(\d+)\s*\/\s*([a-z]+)(?:\s*,\s*(\d+))?$/.exec(v);
  const windowSeconds = m ? UNITS[m[2]!] : undefined;
  if (!m || !windowSeconds) {
    throw new RateLimitSyntaxError(`must be fair, RATE/UNIT[,BURST] with UNIT s, m or h (e.g. 100/s, 6000/m, 50/s,200) or off, got "${text}"`);
  }
  const limit = Number(m[1]);
  const burst = m[3] === undefined ? limit : Number(m[3]);
  for (const [what, n] of [['the rate', limit], ['the burst', burst]] as const) {
    if (n < 1 || n > MAX_REQUESTS) throw new RateLimitSyntaxError(`${what} must be from 1 to ${MAX_REQUESTS}, got "${text}"`);
  }
  return { limit, windowSeconds, burst };
}

/** The setting as `--rate-limit` takes it: `fair`, `100/s`, `50/s,200`. */
export function formatRateLimit(r: RateLimit | FairQueuing): string {
  if (!isRate(r)) return 'fair';
  return `${r.limit}/${UNIT_NAMES[r.windowSeconds] ?? `${r.windowSeconds}s`}${r.burst === r.limit ? '' : `,${r.burst}`}`;
}

interface Bucket {
  /** In request·milliseconds: one request costs windowMs; the clock adds `limit` per millisecond. */
  credit: number;
  at: number;
}

/** Above this many callers, buckets that have filled up again are forgotten (a full bucket is what a new caller gets). */
const SWEEP_ABOVE = 10_000;

const nothingToFree = () => {};

class RateLimiter implements Limiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly windowMs: number;
  private readonly capacity: number;
  private readonly policyHeader: string;
  private sweepAt = SWEEP_ABOVE;

  constructor(readonly policy: RateLimit, private readonly clock: () => number) {
    this.windowMs = policy.windowSeconds * 1000;
    this.capacity = policy.burst * this.windowMs;
    this.policyHeader = `"default";q=${policy.limit};w=${policy.windowSeconds}${policy.burst === policy.limit ? '' : `;pctl-burst=${policy.burst}`}`;
  }

  /** Counts one request of `caller`: let in while its bucket holds a request, else refused with a 429. */
  admit(caller: string): Admitted {
    const bucket = this.refill(caller);
    if (bucket.credit >= this.windowMs) {
      bucket.credit -= this.windowMs;
      return { headers: this.headers(bucket), done: nothingToFree };
    }
    const retryAfter = this.secondsUntilNext(bucket);
    const { limit, burst, windowSeconds } = this.policy;
    const per = { 1: 'second', 60: 'minute', 3600: 'hour' }[windowSeconds] ?? `${windowSeconds} s`;
    throw new ApiError(
      Code.RESOURCE_EXHAUSTED,
      `Rate limit exceeded: each caller may make ${limit} request${limit === 1 ? '' : 's'} per ${per}${burst === limit ? '' : ` (${burst} at once)`}; retry in ${retryAfter} s`,
      {
        reason: 'RATE_LIMITED',
        metadata: { limit: formatRateLimit(this.policy), retryAfterSeconds: String(retryAfter) },
        headers: { ...this.headers(bucket), 'retry-after': String(retryAfter) },
      },
    );
  }

  /** The fields for an answer that counts nothing (a request too malformed to be served). */
  peek(caller: string): Record<string, string> {
    const bucket = this.buckets.get(caller);
    return this.headers(bucket ? this.refill(caller) : { credit: this.capacity, at: this.clock() });
  }

  private refill(caller: string): Bucket {
    const now = this.clock();
    let bucket = this.buckets.get(caller);
    if (!bucket) {
      if (this.buckets.size >= this.sweepAt) this.sweep(now);
      bucket = { credit: this.capacity, at: now };
      this.buckets.set(caller, bucket);
      return bucket;
    }
    // A clock that goes back (an injected one) adds nothing, and takes nothing away.
    if (now > bucket.at) {
      bucket.credit = Math.min(this.capacity, bucket.credit + (now - bucket.at) * this.policy.limit);
      bucket.at = now;
    }
    return bucket;
  }

  private headers(bucket: Bucket): Record<string, string> {
    const remaining = Math.floor(bucket.credit / this.windowMs);
    const t = remaining > 0
      ? Math.ceil((this.capacity - bucket.credit) / this.policy.limit / 1000)
      : this.secondsUntilNext(bucket);
    return { 'ratelimit-policy': this.policyHeader, ratelimit: `"default";r=${remaining};t=${t}` };
  }

  /** Whole seconds (at least 1) until the bucket holds one request. */
  private secondsUntilNext(bucket: Bucket): number {
    return Math.max(1, Math.ceil((this.windowMs - bucket.credit) / this.policy.limit / 1000));
  }

  private sweep(now: number): void {
    for (const [caller, b] of this.buckets) {
      if (b.credit + (now - b.at) * this.policy.limit >= this.capacity) this.buckets.delete(caller);
    }
    // Still crowded (many callers, all busy): let the map grow, and sweep again when it has doubled.
    this.sweepAt = Math.max(SWEEP_ABOVE, this.buckets.size * 2);
  }
}

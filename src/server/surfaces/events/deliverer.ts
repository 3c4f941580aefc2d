// The deliverer: sends the outbox's deliveries to their sinks, as CloudEvents in HTTP binary
// mode, each signed with a token of serve's own issuer. At least once, in commit order per
// subscription, retried with exponential backoff and jitter up to a limit (then marked failed,
// and kept for `pctl events deliveries --failed` and `redeliver`). It runs beside the API:
// a slow or hanging sink holds one delivery slot until its timeout, never a request.
import { createHash } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type net from 'node:net';
import { guardedLookup, refusedAddressKind } from '../../domain/sink-address.js';
import type { FaultInjector } from '../../pipeline/faults.js';
import { mintToken, type SigningKey } from '../../auth/tokens.js';
import { timestamp } from '../../domain/records.js';
import type { Delivery, FeedEvent, Outbox, Settlement } from '../../store/outbox.js';

/** When attempts are made: attempt n+1 waits min(baseMs · 2^(n-1), maxDelayMs), jittered down by up to half. */
export interface RetrySchedule {
  /** The wait after the first failed attempt. */
  baseMs: number;
  maxDelayMs: number;
  /** Attempts in all; after the last one fails, the delivery is marked failed. */
  attempts: number;
}

/** 10 attempts over about 8 minutes (1 s, 2 s … 256 s between them, each up to half shorter). */
export const DEFAULT_RETRY: RetrySchedule = { baseMs: 1000, maxDelayMs: 5 * 60_000, attempts: 10 };
/** How long a sink has to answer one attempt. */
export const DEFAULT_DELIVERY_TIMEOUT_MS = 10_000;
/** The audience of every delivery's token (as the vendor's). */
const WEBHOOK_AUDIENCE = 'customer';
const TOKEN_TTL_S = 300;
/** Deliveries in flight at once (to different subscriptions: one at a time each). */
const MAX_IN_FLIGHT = 16;
/** Kept settled deliveries (and events) beyond which the oldest are pruned. */
const KEEP = 10_000;
const PRUNE_EVERY = 500;

export interface DelivererOptions {
  outbox: Outbox;
  key: SigningKey;
  /** The issuer URL (serve's public URL). */
  issuer: () => string;
  schedule: RetrySchedule;
  timeoutMs: number;
  faults?: FaultInjector;
  /**
   * How often to look for deliveries without being told of them: other replicas commit events
   * this one hears of only so (PostgreSQL). Undefined: only when told (wake) or when one is due.
   */
  pollMs?: number;
  log?: (line: string) => void;
  /** Whether a subscription still exists: the deliveries of a deleted one are not sent. */
  subscriptionExists: (uid: string) => Promise<boolean>;
  /** How a sink's name becomes the address its connection uses: guardedLookup() (private addresses refused) unless serve runs with --allow-private-sinks. */
  lookup?: net.LookupFunction;
  /** Sinks named by a private address are posted to (serve --allow-private-sinks). */
  allowPrivateSinks?: boolean;
}

/** The delay before attempt `attempts + 1`, after `attempts` failed ones. */
function backoff(schedule: RetrySchedule, attempts: number, random: () => number = Math.random): number {
  const full = Math.min(schedule.baseMs * 2 ** (attempts - 1), schedule.maxDelayMs);
  return Math.round(full * (0.5 + random() * 0.5));
}

export class Deliverer {
  private inFlight = new Set<AbortController>();
  private pumping: Promise<void> | undefined;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private settled = 0;

  constructor(private readonly opts: DelivererOptions) {}

  async start(): Promise<void> {
    await this.opts.outbox.releaseLeases?.();
    this.wake();
  }

  /** Looks for due deliveries now (a write committed events; an attempt settled). */
  wake(): void {
    if (this.closed) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = this.pump()
      .catch((err: unknown) => this.opts.log?.(`events: cannot read the outbox: ${(err as Error).message}`))
      .finally(() => {
        this.pumping = undefined;
        if (this.again) this.wake();
        else void this.arm();
      });
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    for (const c of this.inFlight) c.abort();
    await this.pumping;
  }

  private async pump(): Promise<void> {
    this.again = false;
    const free = MAX_IN_FLIGHT - this.inFlight.size;
    if (free <= 0) return;
    const claimed = await this.opts.outbox.claim(Date.now(), free, this.opts.timeoutMs * 2 + 30_000);
    for (const c of claimed) {
      const abort = new AbortController();
      this.inFlight.add(abort);
      void this.attempt(c.delivery, c.event, abort.signal).finally(() => {
        this.inFlight.delete(abort);
        this.wake();
      });
    }
    if (claimed.length === free) this.again = true;
  }

  /** A timer for the next due delivery (or the next poll), whichever comes first. */
  private async arm(): Promise<void> {
    if (this.closed) return;
    let due: number | undefined;
    try {
      due = await this.opts.outbox.nextDue();
    } catch {
      due = undefined;
    }
    if (this.closed || this.pumping) return;
    const wait = [due === undefined ? undefined : due - Date.now(), this.opts.pollMs].filter((x): x is number => x !== undefined);
    if (!wait.length) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.wake(), Math.max(Math.min(...wait), 5));
    this.timer.unref();
  }

  private async attempt(d: Delivery, event: FeedEvent, signal: AbortSignal): Promise<void> {
    let outcome: { status: number; error: string | null };
    let duplicate = false;
    let dropped: string | undefined;
    if (!(await this.opts.subscriptionExists(d.subscription).catch(() => true))) {
      const now = Date.now();
      await this.opts.outbox
        .settle(d.id, { state: 'failed', attempts: d.attempts, nextAttempt: 0, lastStatus: null, lastError: 'the subscription was deleted', updateTime: timestamp(now) })
        .catch(() => {});
      return;
    }
    for (const decision of this.opts.faults?.decideDelivery(d.sink) ?? []) {
      if (decision.effect === 'latency') await sleep(decision.delayMs, signal);
      else if (decision.effect === 'drop') dropped = decision.rule.id;
      else if (decision.effect === 'duplicate') duplicate = true;
    }
    if (dropped) outcome = { status: 0, error: `dropped by the injected fault ${dropped}` };
    else {
      outcome = await this.post(d, event, signal);
      // The same event again, as a sink behind an unreliable network may see it: same Ce-Id.
      if (duplicate && ok(outcome.status)) await this.post(d, event, signal);
    }
    if (this.closed) return; // serve is stopping: the lease runs out and the next start sends it again
    const attempts = d.attempts + 1;
    const now = Date.now();
    const settlement: Settlement = ok(outcome.status)
      ? { state: 'delivered', attempts, nextAttempt: 0, lastStatus: outcome.status, lastError: null, updateTime: timestamp(now) }
      : {
          state: attempts >= this.opts.schedule.attempts ? 'failed' : 'pending',
          attempts,
          nextAttempt: attempts >= this.opts.schedule.attempts ? 0 : now + backoff(this.opts.schedule, attempts),
          lastStatus: outcome.status,
          lastError: outcome.error,
          updateTime: timestamp(now),
        };
    if (!ok(outcome.status)) this.opts.log?.(`events: ${event.type} ${event.id} to ${d.sink}: attempt ${attempts} failed (${outcome.error ?? outcome.status})${settlement.state === 'failed' ? '; giving up' : ''}`);
    try {
      await this.opts.outbox.settle(d.id, settlement);
    } catch (err) {
      if (!this.closed) this.opts.log?.(`events: cannot record delivery ${d.id}: ${(err as Error).message}`);
    }
    if (++this.settled % PRUNE_EVERY === 0) await this.opts.outbox.prune(KEEP).catch(() => {});
  }

  /** One POST: the CloudEvent in binary mode, with a token whose webhook.digest is the body's hash. */
  private async post(d: Delivery, e: FeedEvent, signal: AbortSignal): Promise<{ status: number; error: string | null }> {
    const body = Buffer.from(e.data);
    const owner = d.subscription.slice(0, d.subscription.lastIndexOf('/'));
    try {
      const token = await mintToken(this.opts.key, {
        issuer: this.opts.issuer(),
        subject: `webhook:${owner}`,
        audience: WEBHOOK_AUDIENCE,
        ttlSeconds: TOKEN_TTL_S,
        now: Date.now(),
        extraClaims: { 'webhook.digest': `sha256:${createHash('sha256').update(body).digest('hex')}` },
      });
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        authorization: `Bearer ${token}`,
        'user-agent': 'Chainguard Enforce (pctl serve)',
        'ce-specversion': '1.0',
        'ce-id': e.id,
        'ce-source': e.source,
        'ce-type': e.type,
        'ce-subject': e.subject,
        'ce-time': e.time,
        'ce-audience': 'customer',
        'ce-bodytype': e.bodyType,
      };
      if (e.group) headers['ce-group'] = e.group;
      const timeout = AbortSignal.timeout(this.opts.timeoutMs);
      const status = await postOnce(new URL(d.sink), headers, body, AbortSignal.any([signal, timeout]), this.opts.lookup, this.opts.allowPrivateSinks !== true);
      return { status, error: ok(status) ? null : `HTTP ${status}` };
    } catch (err) {
      const e2 = err as Error & { code?: string; cause?: { name?: string } };
      const timedOut = e2.name === 'TimeoutError' || e2.cause?.name === 'TimeoutError';
      const what = timedOut ? `no answer within ${this.opts.timeoutMs} ms` : e2.code === 'EPRIVATESINK' ? e2.message : (e2.code ?? e2.message);
      return { status: 0, error: what };
    }
  }
}

/**
 * POSTs `body` and resolves with the answer's status (redirects are not followed). The
 * connection goes where `lookup` says; a sink named by an address is checked here, as no
 * lookup runs for it.
 */
function postOnce(url: URL, headers: Record<string, string>, body: Buffer, signal: AbortSignal, lookup: net.LookupFunction | undefined, checkAddresses: boolean): Promise<number> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const kind = checkAddresses ? refusedAddressKind(host) : undefined;
  if (kind) return Promise.reject(Object.assign(new Error(`${host} is a ${kind} address (serve --allow-private-sinks allows it)`), { code: 'EPRIVATESINK' }));
  const send = url.protocol === 'https:' ? https.request : http.request;
  return new Promise((resolve, reject) => {
    const req = send(url, { method: 'POST', headers: { ...headers, 'content-length': String(body.length) }, signal, ...(lookup ? { lookup } : {}) }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The lookup deliveries use: private addresses refused unless `allowPrivate`; `resolve` is the resolver (a test's stub, else DNS). */
export function sinkLookup(allowPrivate: boolean, resolve?: Parameters<typeof guardedLookup>[0]): net.LookupFunction | undefined {
  if (!allowPrivate) return guardedLookup(resolve);
  return resolve ? guardedLookup(resolve, false) : undefined;
}

function ok(status: number): boolean {
  return status >= 200 && status < 300;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });
}

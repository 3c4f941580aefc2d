// serve's default limit: fairness, not a rate. Fair queuing per caller, after Kubernetes' API
// Priority and Fairness: each caller (a flow: an identity, else a client address) has
// `perCaller` requests served at once; more wait in that caller's own queue (at most `queue`
// of them, for at most `maxWaitMs`), and only a full queue or a wait past its bound is
// refused (429). Callers with requests waiting take turns, one request per turn, and a caller
// that had nothing waiting goes first (the new flows of FQ-CoDel), so a sequential client
// waits behind at most the one request being served, however busy the others keep serve.
//
// One request is dispatched per turn of the event loop (setImmediate): requests that arrive
// meanwhile are read and queued before the next one runs. Without that, every request a
// socket read brought in ran at once, and one caller's fifty lists ran back to back while
// another caller's request sat unread behind them. `total` bounds the requests served at
// once by all callers together (those waiting on I/O: a group commit, PostgreSQL).
//
// The answers carry the IETF RateLimit fields with the quota unit concurrent-requests:
//   RateLimit-Policy: "fair";q=8;qu="concurrent-requests";pctl-queue=100
//   RateLimit: "fair";r=7                 requests this caller may still have served at once
import { ApiError, Code } from '../api/errors.js';

export interface FairQueuing {
  /** Requests of one caller served at once. */
  perCaller: number;
  /** Requests served at once, all callers together. */
  total: number;
  /** Requests of one caller that may wait for a seat; one more is refused. */
  queue: number;
  /** How long a request may wait for its seat before it is refused, in real milliseconds. */
  maxWaitMs: number;
}

/** Ten concurrent requests of one caller are slowed, not refused; a 50-connection flood is queued, not refused. */
export const DEFAULT_FAIR_QUEUING: FairQueuing = { perCaller: 8, total: 32, queue: 100, maxWaitMs: 10_000 };

/** A request let in: the fields for its answer, and done() once it is answered (frees its seat). */
export interface Admitted {
  headers: Record<string, string>;
  done(): void;
}

/** The seconds a refused caller is asked to wait: the queue moves in well under that. */
const RETRY_AFTER_S = 1;

const requests = (n: number) => `${n} request${n === 1 ? '' : 's'}`;

interface Waiter {
  flow: Flow;
  let: (admitted: Admitted) => void;
  refuse: (err: ApiError) => void;
  timer: NodeJS.Timeout;
}

interface Flow {
  caller: string;
  inFlight: number;
  waiting: Waiter[];
  /** In newFlows or oldFlows. */
  listed: boolean;
}

export class FairQueue {
  private readonly flows = new Map<string, Flow>();
  /** Flows that had nothing waiting when their request came: served before the old ones. */
  private newFlows: Flow[] = [];
  private oldFlows: Flow[] = [];
  private inFlight = 0;
  private turnPending = false;
  private readonly policyHeader: string;

  constructor(readonly policy: FairQueuing) {
    this.policyHeader = `"fair";q=${policy.perCaller};qu="concurrent-requests";pctl-queue=${policy.queue}`;
  }

  /** Resolves when the caller's turn comes; rejects with a 429 when its queue is full or the wait too long. */
  admit(caller: string): Promise<Admitted> {
    let flow = this.flows.get(caller);
    if (!flow) this.flows.set(caller, (flow = { caller, inFlight: 0, waiting: [], listed: false }));
    if (flow.waiting.length >= this.policy.queue) {
      return Promise.reject(this.refusal(`Too many requests at once: each caller may have ${requests(this.policy.perCaller)} served at once and ${this.policy.queue} more waiting; retry in ${RETRY_AFTER_S} s`));
    }
    const queued = flow;
    return new Promise<Admitted>((resolve, reject) => {
      const waiter: Waiter = {
        flow: queued, let: resolve, refuse: reject,
        timer: setTimeout(() => this.expire(waiter), this.policy.maxWaitMs).unref(),
      };
      queued.waiting.push(waiter);
      if (!queued.listed) {
        queued.listed = true;
        this.newFlows.push(queued);
      }
      this.scheduleTurn();
    });
  }

  /** The fields for an answer that takes no seat (a request too malformed to be served). */
  peek(caller: string): Record<string, string> {
    return this.headers(this.policy.perCaller - (this.flows.get(caller)?.inFlight ?? 0));
  }

  private scheduleTurn(): void {
    if (this.turnPending) return;
    this.turnPending = true;
    setImmediate(this.turn);
  }

  /** Lets one request in: the first flow with a free seat, new flows before old ones. */
  private readonly turn = (): void => {
    this.turnPending = false;
    if (this.inFlight >= this.policy.total) return; // done() schedules the next turn
    const flow = this.takeFlow(this.newFlows) ?? this.takeFlow(this.oldFlows);
    if (!flow) return;
    const waiter = flow.waiting.shift()!;
    clearTimeout(waiter.timer);
    flow.inFlight++;
    this.inFlight++;
    if (flow.waiting.length) this.oldFlows.push(flow);
    else flow.listed = false;
    let done = false;
    waiter.let({
      headers: this.headers(this.policy.perCaller - flow.inFlight),
      done: () => {
        if (done) return;
        done = true;
        flow.inFlight--;
        this.inFlight--;
        this.forgetIfIdle(flow);
        if (this.newFlows.length || this.oldFlows.length) this.scheduleTurn();
      },
    });
    if (this.newFlows.length || this.oldFlows.length) this.scheduleTurn();
  };

  /** Removes and returns the first flow of `list` that may have another request served; flows left with nothing waiting leave the list. */
  private takeFlow(list: Flow[]): Flow | undefined {
    for (let i = 0; i < list.length; i++) {
      const flow = list[i]!;
      if (!flow.waiting.length) {
        list.splice(i--, 1);
        flow.listed = false;
        this.forgetIfIdle(flow);
      } else if (flow.inFlight < this.policy.perCaller) {
        list.splice(i, 1);
        return flow;
      }
    }
    return undefined;
  }

  private expire(waiter: Waiter): void {
    const { flow } = waiter;
    const at = flow.waiting.indexOf(waiter);
    if (at === -1) return;
    flow.waiting.splice(at, 1);
    if (!flow.waiting.length && flow.listed) {
      for (const list of [this.newFlows, this.oldFlows]) if (list.includes(flow)) list.splice(list.indexOf(flow), 1);
      flow.listed = false;
    }
    this.forgetIfIdle(flow);
    const seconds = Math.round(this.policy.maxWaitMs / 100) / 10;
    waiter.refuse(this.refusal(`Too many requests at once: this one waited ${seconds} s for its turn (each caller may have ${requests(this.policy.perCaller)} served at once); retry in ${RETRY_AFTER_S} s`));
  }

  private forgetIfIdle(flow: Flow): void {
    if (!flow.inFlight && !flow.waiting.length && !flow.listed) this.flows.delete(flow.caller);
  }

  private refusal(message: string): ApiError {
    return new ApiError(Code.RESOURCE_EXHAUSTED, message, {
      reason: 'RATE_LIMITED',
      metadata: { limit: 'fair', perCaller: String(this.policy.perCaller), queue: String(this.policy.queue), retryAfterSeconds: String(RETRY_AFTER_S) },
      headers: { ...this.headers(0, RETRY_AFTER_S), 'retry-after': String(RETRY_AFTER_S) },
    });
  }

  private headers(remaining: number, retryAfter?: number): Record<string, string> {
    return { 'ratelimit-policy': this.policyHeader, ratelimit: `"fair";r=${remaining}${retryAfter ? `;t=${retryAfter}` : ''}` };
  }
}

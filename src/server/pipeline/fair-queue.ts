// serve's default limit: fairness, not a rate. Fair queuing per caller, after Kubernetes' API
// Priority and Fairness: each caller (a flow: an identity, else a client address) has
// `perCaller` requests served at once; more wait in that caller's own queue (at most `queue`
// of them, for at most `maxWaitMs`), and only a full queue or a wait past its bound is
// refused (429). Callers with requests waiting take turns, one request per turn, and a caller
// that had nothing waiting goes first (the new flows of FQ-CoDel), so a sequential client
// waits behind at most the one request being served, however busy the others keep serve.
//
// Node serves requests on one thread, so what matters is which request runs next. A socket
// read can bring in many requests; run as they are parsed, one caller's fifty lists ran back
// to back while another caller's request sat unread behind them. So once a slice of the
// event loop has run SLICE_MS of requests, or once any request waits, requests are queued,
// and let in by turns of the event loop (setImmediate), each after the requests that arrived
// meanwhile have been read and queued. A turn lets requests in one after another, each once
// the one before has run as far as it can, for SLICE_MS: cheap requests many to a turn, as
// they would run unqueued, a costly one alone. Below that, a request is let in at once (the
// common case: nothing waits), which costs next to nothing. `total` bounds the requests served
// at once by all callers together (those waiting on I/O: a group commit, PostgreSQL).
//
// The answers carry the IETF RateLimit fields with the quota unit concurrent-requests:
//   RateLimit-Policy: "fair";q=8;qu="concurrent-requests";pctl-queue=100
//   RateLimit: "fair";r=7                 requests this caller may still have served at once
import { ApiError, Code } from '../../api/errors.js';

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

/** A request let in: the fields for its answer, and done() once it is answered (frees its seat; call it once). */
export interface Admitted {
  headers: Record<string, string>;
  done(): void;
}

/** The seconds a refused caller is asked to wait: the queue moves in well under that. */
const RETRY_AFTER_S = 1;
/** How long requests may run one after another, as they arrive or in one turn, before the rest wait for the next turn. */
const SLICE_MS = 1;

/** Callers remembered before the idle ones are forgotten. */
const SWEEP_ABOVE = 10_000;

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
  private readonly newFlows: Flow[] = [];
  private readonly oldFlows: Flow[] = [];
  private inFlight = 0;
  private waiting = 0;
  private turnPending = false;
  private turnStart = 0;
  /** The fields of an answer, by how many seats its caller has left (made once). */
  private readonly fields: Record<string, string>[];
  /** Past this many callers, the idle ones are forgotten. */
  private sweepAt = SWEEP_ABOVE;
  /** When the requests let in at once in this slice of the event loop began; undefined between slices. */
  private sliceStart: number | undefined;
  private readonly policyHeader: string;

  constructor(readonly policy: FairQueuing) {
    this.policyHeader = `"fair";q=${policy.perCaller};qu="concurrent-requests";pctl-queue=${policy.queue}`;
    this.fields = Array.from({ length: policy.perCaller + 1 }, (_, r) => this.headers(r));
  }

  /** Lets the request in, at once or when the caller's turn comes; refuses it (a 429) when its queue is full or the wait too long. */
  admit(caller: string): Admitted | Promise<Admitted> {
    let flow = this.flows.get(caller);
    if (!flow) {
      if (this.flows.size >= this.sweepAt) this.sweep();
      this.flows.set(caller, (flow = { caller, inFlight: 0, waiting: [], listed: false }));
    }
    if (!this.waiting && flow.inFlight < this.policy.perCaller && this.inFlight < this.policy.total && this.inSlice()) return this.seat(flow);
    if (flow.waiting.length >= this.policy.queue) {
      throw this.refusal(`Too many requests at once: each caller may have ${requests(this.policy.perCaller)} served at once and ${this.policy.queue} more waiting; retry in ${RETRY_AFTER_S} s`);
    }
    const queued = flow;
    return new Promise<Admitted>((resolve, reject) => {
      const waiter: Waiter = {
        flow: queued, let: resolve, refuse: reject,
        timer: setTimeout(() => this.expire(waiter), this.policy.maxWaitMs).unref(),
      };
      queued.waiting.push(waiter);
      this.waiting++;
      if (!queued.listed) {
        queued.listed = true;
        this.newFlows.push(queued);
      }
      this.scheduleTurn();
    });
  }

  /** The fields for an answer that takes no seat (a request too malformed to be served). */
  peek(caller: string): Record<string, string> {
    return this.fields[this.policy.perCaller - (this.flows.get(caller)?.inFlight ?? 0)]!;
  }

  /** Whether this slice of the event loop has room for another request let in at once. */
  private inSlice(): boolean {
    const now = performance.now();
    if (this.sliceStart === undefined) {
      this.sliceStart = now;
      setImmediate(this.endSlice);
      return true;
    }
    return now - this.sliceStart < SLICE_MS;
  }

  private readonly endSlice = (): void => {
    this.sliceStart = undefined;
  };

  private seat(flow: Flow): Admitted {
    flow.inFlight++;
    this.inFlight++;
    return {
      headers: this.fields[this.policy.perCaller - flow.inFlight]!,
      done: () => {
        flow.inFlight--;
        this.inFlight--;
        if (this.waiting) this.scheduleTurn();
      },
    };
  }

  private scheduleTurn(): void {
    if (this.turnPending) return;
    this.turnPending = true;
    setImmediate(this.turn);
  }

  /** A turn: lets waiting requests in, one after another, until SLICE_MS have passed. */
  private readonly turn = (): void => {
    this.turnPending = false;
    this.turnStart = performance.now();
    queueMicrotask(this.letNext);
  };

  /**
   * Lets in the request of the first flow with a free seat, new flows before old ones. Runs as
   * a microtask, so the tick it queues runs once every microtask has run (Node runs the
   * process.nextTick queue after the microtask queue it was queued from): once the request's
   * handler has done all it can before waiting on I/O. The time is measured then, and the next
   * request let in while the turn has time left.
   */
  private readonly letNext = (): void => {
    const flow = this.inFlight < this.policy.total ? this.takeFlow(this.newFlows) ?? this.takeFlow(this.oldFlows) : undefined;
    if (!flow) return; // no seat for any request waiting: done() schedules the next turn
    const waiter = flow.waiting.shift()!;
    this.waiting--;
    clearTimeout(waiter.timer);
    if (flow.waiting.length) this.oldFlows.push(flow);
    else flow.listed = false;
    waiter.let(this.seat(flow));
    if (this.waiting) process.nextTick(this.afterLet);
  };

  private readonly afterLet = (): void => {
    if (performance.now() - this.turnStart < SLICE_MS) queueMicrotask(this.letNext);
    else this.scheduleTurn();
  };

  /** Removes and returns the first flow of `list` that may have another request served. */
  private takeFlow(list: Flow[]): Flow | undefined {
    const at = list.findIndex((flow) => flow.inFlight < this.policy.perCaller);
    return at === -1 ? undefined : list.splice(at, 1)[0];
  }

  private expire(waiter: Waiter): void {
    const { flow } = waiter;
    flow.waiting.splice(flow.waiting.indexOf(waiter), 1);
    this.waiting--;
    if (!flow.waiting.length) {
      for (const list of [this.newFlows, this.oldFlows]) if (list.includes(flow)) list.splice(list.indexOf(flow), 1);
      flow.listed = false;
    }
    waiter.refuse(this.refusal(`Too many requests at once: this one waited ${this.policy.maxWaitMs / 1000} s for its turn (each caller may have ${requests(this.policy.perCaller)} served at once); retry in ${RETRY_AFTER_S} s`));
  }

  /** Forgets the callers with nothing served or waiting (they start afresh, as they would); sweeps again when the map has doubled. */
  private sweep(): void {
    for (const [caller, flow] of this.flows) if (!flow.inFlight && !flow.listed) this.flows.delete(caller);
    this.sweepAt = Math.max(SWEEP_ABOVE, this.flows.size * 2);
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

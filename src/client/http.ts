// The HTTP core: keep-alive agents shared by the process (transport.ts), bearer auth, a deadline that
// bounds connect + request + body of each attempt, retries with backoff (retry.ts), debug
// tracing with credentials masked (redact.ts), AIP-193 error decoding and zod validation.
import { STATUS_CODES } from 'node:http';
import { Agents, exchange, type Answer } from './transport.js';
import type * as z from 'zod';
import { ApiError, codeForHttpStatus } from '../api/errors.js';
import { NetworkError, ResponseError } from './errors.js';
import { redactHeader, redactText, redactUrl } from '../api/redact.js';
import { defaultSleep, formatWait, isIdempotent, retryableFailure, retryableStatus, retryDelay } from './retry.js';

export interface ClientOptions {
  /** Base URL, e.g. http://127.0.0.1:8700 (a path prefix is kept). */
  baseUrl: string;
  token?: string | undefined;
  /** Bounds each attempt, connect included. */
  timeoutMs: number;
  /**
   * Makes the signal that ends one attempt, given timeoutMs (default: AbortSignal.timeout).
   * It alone bounds the attempt; tests inject one they abort on an event instead of a timer.
   */
  deadline?: ((ms: number) => AbortSignal) | undefined;
  /** Receives debug trace lines (already masked); absent unless --debug. */
  trace?: ((line: string) => void) | undefined;
  /** The trace shows request and response bodies too (PCTL_DEBUG=api), tokens masked. */
  traceBodies?: boolean;
  /** Retries of a failed request (see retry.ts for which); default 3, 0 disables. */
  retries?: number;
  /** Receives the one-line notice printed while waiting to retry (default: the trace). */
  notice?: ((line: string) => void) | undefined;
  /** Waits between attempts (tests inject a fake). */
  sleep?: (ms: number) => Promise<void>;
  /** [0, 1) for the backoff jitter (tests inject a fixed one). */
  random?: () => number;
  /** Epoch milliseconds, for a Retry-After given as a date (default Date.now; tests fix it). */
  now?: () => number;
  userAgent?: string;
  /** Rewrites an API error before it is thrown (connect() turns "token expired" into a sign-in hint). */
  mapError?: ((err: ApiError) => ApiError) | undefined;
}

export interface RequestOptions {
  query?: readonly (readonly [string, string])[];
  body?: unknown;
}

export interface RawRequestOptions {
  query?: readonly (readonly [string, string])[];
  /** Sent as is (JSON unless a Content-Type header says otherwise). */
  body?: string | Uint8Array | undefined;
  /** Extra headers; they override ours (names are case-insensitive). */
  headers?: Record<string, string>;
}

export interface RawResponse {
  status: number;
  /** As received, names lower-case. */
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The parsed body, when it is JSON. */
  json: unknown;
  /** For an error status: the decoded AIP-193 error, as request() would throw it. */
  error?: ApiError;
}

let sharedAgents: Agents | undefined;

/** The process-wide keep-alive agents: list pages after the first reuse the connection. */
export function agents(): Agents {
  return (sharedAgents ??= new Agents());
}

/** Drops the shared agents and their sockets (end of a command, tests); the next request makes new ones. */
export async function closeAgent(): Promise<void> {
  sharedAgents?.destroy();
  sharedAgents = undefined;
}

const DEFAULT_RETRIES = 3;
const TRACE_BODY_MAX = 4000;

/** `a=b&order_by=name%20desc`: spaces as %20 (not `+`), as the spec shows. */
function encodeQuery(query: readonly (readonly [string, string])[]): string {
  return query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
}

export class HttpClient {
  readonly baseUrl: string;
  readonly #opts: ClientOptions;

  constructor(opts: ClientOptions) {
    this.#opts = opts;
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
  }

  url(path: string, query?: RequestOptions['query']): string {
    const qs = query && query.length ? `?${encodeQuery(query)}` : '';
    return `${this.baseUrl}${path.startsWith('/') ? path : `/${path}`}${qs}`;
  }

  /** Sends a request; resolves to the parsed JSON body (undefined when empty), throws ApiError on an error status. */
  async request(method: string, path: string, opts: RequestOptions = {}): Promise<unknown> {
    const url = this.url(path, opts.query);
    const outcome = await this.#exchange(method, url, opts.body === undefined ? undefined : JSON.stringify(opts.body), {});
    if (outcome.status >= 400) throw this.#error(outcome, method, url);
    if (outcome.text && outcome.json === undefined) {
      throw new ResponseError(`unexpected response from ${method} ${new URL(url).pathname}: body is not JSON`);
    }
    return outcome.json;
  }

  /**
   * A raw exchange, for `pctl api`: the body is sent as given, extra headers override ours,
   * and the response comes back whatever its status (with the ApiError the other methods
   * would throw in `error`). Same auth, timeout, retries and tracing as every request.
   */
  async send(method: string, path: string, opts: RawRequestOptions = {}): Promise<RawResponse> {
    const url = this.url(path, opts.query);
    const outcome = await this.#exchange(method, url, opts.body, opts.headers ?? {});
    const res: RawResponse = { status: outcome.status, headers: outcome.headers, text: outcome.text, json: outcome.json };
    if (outcome.status >= 400) res.error = this.#error(outcome, method, url);
    return res;
  }

  /**
   * One request, with retries (retry.ts says which): resolves to the last response, throws
   * the last connection error. Each attempt has the whole timeout; between attempts a notice.
   */
  async #exchange(method: string, url: string, payload: string | Uint8Array | undefined, extraHeaders: Record<string, string>): Promise<Outcome> {
    const idempotent = isIdempotent(method, url);
    const attempts = Math.max(0, this.#opts.retries ?? DEFAULT_RETRIES) + 1;
    for (let attempt = 1; ; attempt++) {
      let outcome: Outcome;
      let reason: string | undefined;
      let retryAfter: string | undefined;
      try {
        outcome = await this.#once(method, url, payload, extraHeaders);
        if (!retryableStatus(outcome.status, idempotent) || attempt >= attempts) return outcome;
        reason = `${outcome.status} ${STATUS_TEXT[outcome.status] ?? ''}`.trim();
        retryAfter = outcome.retryAfter;
      } catch (err) {
        reason = retryableFailure(err, idempotent);
        if (!reason || attempt >= attempts) throw err;
      }
      const wait = retryDelay(attempt, retryAfter, this.#opts.now ? this.#opts.now() : Date.now(), this.#opts.random ?? Math.random);
      const line = `retrying ${method} ${new URL(url).pathname} in ${formatWait(wait)} (${reason}, attempt ${attempt + 1} of ${attempts})`;
      (this.#opts.notice ?? this.#opts.trace)?.(line);
      if (this.#opts.notice && this.#opts.trace) this.#trace(`* ${line}`);
      await (this.#opts.sleep ?? defaultSleep)(wait);
    }
  }

  #error(outcome: Outcome, method: string, url: string): ApiError {
    const apiError = toApiError(outcome, method, url);
    return this.#opts.mapError ? this.#opts.mapError(apiError) : apiError;
  }

  /** Sends a request and validates the JSON response against a schema, naming the offending field. */
  async requestValid<S extends z.ZodType>(method: string, path: string, schema: S, opts: RequestOptions = {}): Promise<z.output<S>> {
    const json = await this.request(method, path, opts);
    const parsed = schema.safeParse(json ?? {});
    if (parsed.success) return parsed.data;
    const first = parsed.error.issues[0];
    const where = first ? formatIssuePath(first.path) : '';
    const what = first ? first.message : 'does not match the schema';
    throw new ResponseError(`unexpected response from ${method} ${path}: ${where ? `${where}: ` : ''}${what}`);
  }

  async #once(method: string, url: string, payload: string | Uint8Array | undefined, extraHeaders: Record<string, string>): Promise<Outcome> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.#opts.token) headers.authorization = `Bearer ${this.#opts.token}`;
    if (this.#opts.userAgent) headers['user-agent'] = this.#opts.userAgent;
    if (payload !== undefined) headers['content-type'] = 'application/json';
    for (const [k, v] of Object.entries(extraHeaders)) headers[k.toLowerCase()] = v;

    const tracing = Boolean(this.#opts.trace);
    const bodies = tracing && this.#opts.traceBodies;
    if (tracing) {
      this.#trace(`> ${method} ${redactUrl(url)}`);
      for (const [k, v] of Object.entries(headers)) this.#trace(`> ${k}: ${redactHeader(k, v)}`);
      if (bodies && payload !== undefined) this.#traceBody('>', typeof payload === 'string' ? payload : Buffer.from(payload).toString('utf8'));
    }

    const timeoutMs = this.#opts.timeoutMs;
    const started = performance.now();
    const signal = this.#opts.deadline ? this.#opts.deadline(timeoutMs) : AbortSignal.timeout(timeoutMs);
    let res: Answer;
    try {
      // The deadline signal alone bounds the attempt, connect included.
      res = await exchange(agents(), url, { method, headers, body: payload, signal });
    } catch (err) {
      const failure = toNetworkError(err, url, timeoutMs);
      if (tracing) this.#trace(`< ${failure.message} (${Math.round(performance.now() - started)} ms)`);
      throw failure;
    }
    const ms = Math.round(performance.now() - started);
    const text = res.text;
    if (tracing) {
      const reason = STATUS_TEXT[res.status];
      this.#trace(`< ${res.status}${reason ? ` ${reason}` : ''} (${ms} ms, ${Buffer.byteLength(text)} bytes)`);
      for (const [k, v] of Object.entries(res.headers)) {
        for (const one of Array.isArray(v) ? v : [v ?? '']) this.#trace(`< ${k}: ${redactHeader(k, one)}`);
      }
      if (bodies && text) this.#traceBody('<', text);
    }

    let json: unknown;
    if (text) {
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined; // request() refuses a success that is not JSON; send() hands the text back
      }
    }
    const retryAfter = res.headers['retry-after'];
    return { status: res.status, headers: res.headers, json, text, retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined };
  }

  #traceBody(arrow: string, text: string): void {
    for (const line of truncate(redactText(text)).split('\n')) this.#trace(`${arrow} ${line}`);
  }

  #trace(line: string): void {
    this.#opts.trace?.(line);
  }
}

interface Outcome {
  status: number;
  headers: RawResponse['headers'];
  json: unknown;
  text: string;
  retryAfter: string | undefined;
}

function toApiError(outcome: Outcome, method: string, url: string): ApiError {
  const decoded = ApiError.fromBody(outcome.json, outcome.status);
  if (decoded) return decoded;
  // Not an AIP-193 body (a proxy's error page, say): keep the status and a snippet.
  const snippet = outcome.text.replace(/\s+/g, ' ').trim().slice(0, 200);
  const path = new URL(url).pathname;
  return new ApiError(codeForHttpStatus(outcome.status), `${method} ${path}: HTTP ${outcome.status}${snippet ? `: ${snippet}` : ''}`, {
    httpStatus: outcome.status,
  });
}

function toNetworkError(err: unknown, url: string, timeoutMs: number): Error {
  if (err instanceof ResponseError) return err;
  const origin = safeOrigin(url);
  const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string } };
  const code = e.code ?? e.cause?.code;
  const timedOut =
    e.name === 'TimeoutError' ||
    e.name === 'AbortError' ||
    code === 'ETIMEDOUT';
  let message: string;
  if (timedOut) message = `request to ${origin} timed out after ${formatDuration(timeoutMs)}`;
  else if (code === 'ECONNREFUSED') message = `cannot connect to ${origin}: connection refused (is the server running?)`;
  else if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') message = `cannot connect to ${origin}: host not found`;
  else if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') message = `cannot connect to ${origin}: host unreachable`;
  else if (code === 'ECONNRESET') message = `connection to ${origin} was closed unexpectedly`;
  else message = `request to ${origin} failed: ${e.message ?? String(err)}`;
  return new NetworkError(message, { cause: err });
}

const STATUS_TEXT: Record<number, string> = STATUS_CODES as Record<number, string>;

function safeOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

function formatDuration(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}

function truncate(text: string): string {
  return text.length > TRACE_BODY_MAX ? `${text.slice(0, TRACE_BODY_MAX)}… (${text.length} bytes)` : text;
}

/** `groups.3.createTime` → `groups[3].createTime`. */
function formatIssuePath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out;
}

// The HTTP core: one keep-alive undici Agent per process, bearer auth, a timeout that
// bounds connect + request + body, bounded retries of idempotent requests, debug tracing
// with the token masked, AIP-193 error decoding and zod validation of responses.
import { Agent, request as undiciRequest, type Dispatcher } from 'undici';
import type { z } from 'zod';
import { ApiError, codeForHttpStatus } from '../api/errors.js';
import { NetworkError, ResponseError } from '../cli/errors.js';

export interface ClientOptions {
  /** Base URL, e.g. http://127.0.0.1:8700 (a path prefix is kept). */
  baseUrl: string;
  token?: string | undefined;
  /** Bounds each request, connect included. */
  timeoutMs: number;
  /** Receives debug trace lines (already masked); absent unless --debug. */
  trace?: ((line: string) => void) | undefined;
  /** Retries of idempotent requests on 429/502/503/504 and dropped keep-alive sockets. */
  retries?: number;
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

let sharedAgent: Agent | undefined;

/** The process-wide keep-alive agent: list pages after the first reuse the connection. */
export function agent(): Agent {
  return (sharedAgent ??= new Agent({
    keepAliveTimeout: 10_000,
    keepAliveMaxTimeout: 60_000,
    connections: 16,
    connect: { timeout: 30_000 },
  }));
}

/** Drops the shared agent and its idle sockets (end of a command, tests); the next request makes a new one. */
export async function closeAgent(): Promise<void> {
  const a = sharedAgent;
  sharedAgent = undefined;
  if (a) await a.destroy();
}

const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS']);
const RETRY_STATUSES = new Set([429, 502, 503, 504]);
const TRACE_BODY_MAX = 2000;

/** Percent-encodes each `/`-separated segment of a uid, keeping the separators (the server accepts both). */
export function encodeUidPath(uid: string): string {
  return uid.split('/').map(encodeURIComponent).join('/');
}

/** `a=b&order_by=name%20desc`: spaces as %20 (not `+`), as the spec shows. */
export function encodeQuery(query: readonly (readonly [string, string])[]): string {
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

  /** One request with bounded retries of idempotent methods; resolves to the last response. */
  async #exchange(method: string, url: string, payload: string | Uint8Array | undefined, extraHeaders: Record<string, string>): Promise<Outcome> {
    const retries = IDEMPOTENT.has(method) ? (this.#opts.retries ?? 2) : 0;
    const deadline = Date.now() + this.#opts.timeoutMs;
    for (let attempt = 0; ; attempt++) {
      let outcome: Outcome;
      try {
        outcome = await this.#once(method, url, payload, extraHeaders, deadline);
      } catch (err) {
        const remaining = deadline - Date.now();
        if (attempt < retries && isDroppedSocket(err) && remaining > 0) continue;
        throw err;
      }
      if (outcome.status < 400) return outcome;
      const remaining = deadline - Date.now();
      if (attempt < retries && RETRY_STATUSES.has(outcome.status)) {
        const wait = retryDelay(outcome.retryAfter, attempt);
        if (wait < remaining) {
          this.#trace(`* retrying in ${wait} ms`);
          await new Promise((r) => setTimeout(r, wait));
          continue;
        }
      }
      return outcome;
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

  async #once(
    method: string, url: string, payload: string | Uint8Array | undefined, extraHeaders: Record<string, string>, deadline: number,
  ): Promise<Outcome> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.#opts.token) headers.authorization = `Bearer ${this.#opts.token}`;
    if (this.#opts.userAgent) headers['user-agent'] = this.#opts.userAgent;
    if (payload !== undefined) headers['content-type'] = 'application/json';
    for (const [k, v] of Object.entries(extraHeaders)) headers[k.toLowerCase()] = v;

    if (this.#opts.trace) {
      this.#trace(`> ${method} ${url}`);
      for (const [k, v] of Object.entries(headers)) this.#trace(`> ${k}: ${k === 'authorization' ? maskAuthorization(v) : v}`);
      if (payload !== undefined) this.#trace(`> ${truncate(typeof payload === 'string' ? payload : Buffer.from(payload).toString('utf8'))}`);
    }

    const timeoutMs = Math.max(1, deadline - Date.now());
    const started = performance.now();
    let res: Dispatcher.ResponseData;
    let text: string;
    try {
      res = await undiciRequest(url, {
        method: method as Dispatcher.HttpMethod,
        headers,
        body: payload,
        dispatcher: agent(),
        signal: AbortSignal.timeout(timeoutMs),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      text = await res.body.text();
    } catch (err) {
      throw toNetworkError(err, url, this.#opts.timeoutMs);
    }
    const ms = Math.round(performance.now() - started);
    this.#trace(`< ${res.statusCode} (${ms} ms, ${text.length} bytes)`);
    if (text) this.#trace(`< ${truncate(text)}`);

    let json: unknown;
    if (text) {
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined; // request() refuses a success that is not JSON; send() hands the text back
      }
    }
    const retryAfter = res.headers['retry-after'];
    return { status: res.statusCode, headers: res.headers, json, text, retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined };
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

function retryDelay(retryAfter: string | undefined, attempt: number): number {
  const seconds = retryAfter !== undefined ? Number(retryAfter) : NaN;
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, 30_000);
  const base = 200 * 2 ** attempt;
  return base + Math.floor(Math.random() * base); // jitter, so that clients do not retry in lockstep
}

/** A keep-alive socket the server closed between requests: safe to retry an idempotent request. */
function isDroppedSocket(err: unknown): boolean {
  const cause = err instanceof NetworkError ? err.cause : err;
  const code = (cause as { code?: string } | undefined)?.code;
  return code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE';
}

function toNetworkError(err: unknown, url: string, timeoutMs: number): Error {
  if (err instanceof ResponseError) return err;
  const origin = safeOrigin(url);
  const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string } };
  const code = e.code ?? e.cause?.code;
  const timedOut =
    e.name === 'TimeoutError' ||
    e.name === 'AbortError' ||
    code === 'UND_ERR_CONNECT_TIMEOUT' ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    code === 'UND_ERR_ABORTED' ||
    code === 'ETIMEDOUT';
  let message: string;
  if (timedOut) message = `request to ${origin} timed out after ${formatDuration(timeoutMs)}`;
  else if (code === 'ECONNREFUSED') message = `cannot connect to ${origin}: connection refused (is the server running?)`;
  else if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') message = `cannot connect to ${origin}: host not found`;
  else if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') message = `cannot connect to ${origin}: host unreachable`;
  else if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') message = `connection to ${origin} was closed unexpectedly`;
  else message = `request to ${origin} failed: ${e.message ?? String(err)}`;
  return new NetworkError(message, { cause: err });
}

function safeOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

export function formatDuration(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}

/** `Bearer ***`: the scheme stays readable, the credential never appears. */
function maskAuthorization(value: string): string {
  const scheme = /^\S+/.exec(value)?.[0];
  return scheme && scheme !== value ? `${scheme} ***` : '***';
}

function truncate(text: string): string {
  return text.length > TRACE_BODY_MAX ? `${text.slice(0, TRACE_BODY_MAX)}… (${text.length} bytes)` : text;
}

/** `groups.3.createTime` → `groups[3].createTime`. */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out;
}

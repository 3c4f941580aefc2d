// The one path of every API call, REST or RPC (createDispatcher): routing by resource path,
// bearer authentication, the limits per caller (fair queuing or a rate), and the one place where errors become
// AIP-193 responses; and the REST front over node:http (bounded JSON bodies, parser errors).
import http from 'node:http';
import { ApiError, Code, invalidField } from '../api/errors.js';
import { registry } from '../api/registry/index.js';
import type { FaultInjector } from './control/faults.js';
import type { Journal, JournalInput } from './control/journal.js';
import { parseParams } from './params.js';
import { maskValues, redactUrl } from '../api/redact.js';
import type { Admitted, Limiter } from './ratelimit.js';
import { storageErrorCode, storageFailure } from './store/failure.js';
import type { Principal } from './auth/principal.js';
import type { Handler, Request, ResourceRoutes, PublicRoutes, Response } from './handler.js';
import { addressKey, type Exchange } from './exchange.js';

export { addressKey };

export const MAX_BODY_BYTES = 1024 * 1024;
/**
 * How deeply a JSON body may nest objects and arrays. No body of the API comes near it (the
 * deepest nest a handful of levels); a deeper one is refused as it is parsed, so no value that
 * JSON.stringify (the journal, the RPC answer) cannot walk is ever kept.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Another API surface on the same port (v1): it owns its paths, routes its own calls, and
 * marks every answer to them, whoever gave it (a 401, a 429, an injected fault), with its
 * headers and what the journal notes of the call.
 */
export interface Surface {
  owns(path: string): boolean;
  /** The handler of a call it owns; throws the 404 or 405 when it has none. A promise while the surface loads (lazy.ts). */
  route(method: string, path: string): Handler | Promise<Handler>;
  mark(method: string, path: string, out: Response): Marked | Promise<Marked>;
}

export interface Marked { out: Response; journal: JournalInput['deprecated'] }

/** The handler of a published REST rule (`GET /iam/v2beta1/groups`), if `method` and `path` are one; a promise while it loads. */
export type PublishedRest = (method: string, path: string) => Handler | undefined | Promise<Handler | undefined>;

export interface HttpOptions {
  routes: ResourceRoutes[];
  /** Surfaces beside v2 (v1), asked first for the paths they own. */
  surfaces?: Surface[];
  publicRoutes?: PublicRoutes;
  authenticate: (authorization: string | undefined) => Principal | Promise<Principal>;
  /** Admits each request of its caller (fair queuing or a rate); absent, nothing is limited. */
  limiter?: Limiter;
  /**
   * Public routes ("GET /") the limiter never counts: the console's files. serve's control
   * endpoints (CONTROL_PREFIX) are never counted either: they answer the owner only, and
   * refuse anyone else at once (a test's reset must not wait behind the test's own load).
   */
  unlimited?: ReadonlySet<string>;
  log?: (line: string) => void;
  /** serve's own endpoints under CONTROL_PREFIX, for an authenticated caller (they check it is the owner). */
  control?: (req: Request) => Promise<Response>;
  /** Injected faults, drawn for every call outside CONTROL_PREFIX before it is routed. */
  faults?: FaultInjector;
  /** Records every call once answered. */
  journal?: Journal;
  /**
   * The published REST rules no route of the spec's has (published/): asked for a call the
   * spec's routes miss, its handler or undefined.
   */
  published?: PublishedRest;
  /** Waits out an injected latency (tests inject one). */
  sleep?: (ms: number) => Promise<void>;
  /** Epoch milliseconds, for the journal's times. */
  clock?: () => number;
}

/** serve's control endpoints (faults, journal, snapshots, reset): a serve-only extension, never a platform API path. */
const CONTROL_PREFIX = '/_pctl/';

/** One API call, whichever protocol brought it: a REST request, or an RPC transcoded to one. */
export interface Call {
  method: string;
  /** The path of the URL, still percent-encoded. */
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  /** The limiter's key of the caller until its token is checked (addressKey). */
  address: string;
  /** The parsed body (a code-3 error when missing or malformed). */
  json: () => Promise<unknown>;
  form: () => Promise<URLSearchParams>;
  /**
   * Resolves once the body has arrived, or failed to: the limiter lets a request in only then,
   * so that a slow upload holds none of the seats it counts. Absent, the body is there already
   * (an RPC's message).
   */
  arrived?(): Promise<void>;
  /** The RPC a gRPC or Connect call came as: `platform.iam.v2.IamService/GetGroup`. */
  rpc?: string;
  /** The operation that answers the call once its caller is known (an RPC the domain answers directly), instead of routing by path. */
  operation?: (principal: Principal) => Promise<Response>;
}

/** What routing learned of a call, for the journal. */
interface CallFacts {
  identity?: string;
  /** A route (public, control or resource handler) took the call. */
  matched: boolean;
}

/** Answers a call; never throws: every failure is an AIP-193 response. */
export type Dispatch = (call: Call) => Promise<Response>;

/**
 * The one path every call takes, REST or RPC: public routes, authentication, the limits
 * (by identity once the token is checked, else by address, so that requests with no or a bad
 * token are limited too), routing, and errors as AIP-193 responses.
 */
export function createDispatcher(opts: HttpOptions): Dispatch {
  const byPath = new Map(opts.routes.map((r) => [r.path, r]));
  // A Map: looking a new string up as an object's key makes V8 intern it first.
  const publicRoutes = new Map(Object.entries(opts.publicRoutes ?? {}));
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const clock = opts.clock ?? Date.now;
  return async (incoming) => {
    const started = performance.now();
    const time = clock();
    const facts: CallFacts = { matched: false };
    // The journal keeps what the handler parsed; serialized only when someone reads it.
    const bodies: CapturedBodies = {};
    const call: Call = opts.journal ? capturingBodies(incoming, bodies) : incoming;
    let rateHeaders: Record<string, string> | undefined;
    let admitted: Admitted | undefined;
    // A refusal is an ApiError that carries the fields itself.
    // Awaited only when there is something to wait for: each await costs every request a turn.
    const admitNow = async (limiter: Limiter, caller: string) => {
      if (call.arrived) await call.arrived();
      const admission = limiter.admit(caller);
      admitted = admission instanceof Promise ? await admission : admission;
      rateHeaders = admitted.headers;
    };
    const admit: Admit = (caller) => (opts.limiter ? admitNow(opts.limiter, caller) : undefined);
    let out: Response;
    let fault: { id: string; effect: string } | undefined;
    const surface = opts.surfaces?.find((s) => s.owns(call.path));
    try {
      const decisions = opts.faults && !call.path.startsWith(CONTROL_PREFIX) ? opts.faults.decide(call.method, call.path, call.rpc) : [];
      let answer: Response | undefined;
      for (const d of decisions) {
        fault = { id: d.rule.id!, effect: d.effect };
        if (d.effect === 'latency') await sleep(d.delayMs);
        else if (d.effect === 'error') throw d.error;
        else answer = { fault: d.effect };
      }
      out = answer ?? (await route(call, opts, byPath, publicRoutes, surface, admit, facts));
    } catch (err) {
      out = toErrorResponse(err, opts.log);
    } finally {
      admitted?.done();
    }
    let marked = surface?.mark(call.method, call.path, out);
    if (marked instanceof Promise) marked = await marked;
    if (marked) out = marked.out;
    // serve's own control calls are not the API under test: left out (a `requests --follow`
    // would otherwise see its own polls).
    if (opts.journal && !call.path.startsWith(CONTROL_PREFIX)) {
      const answered = out;
      opts.journal.record({
        timeMs: time, method: call.method, path: call.path, query: call.query.size ? call.query : undefined, rpc: call.rpc,
        status: answered.fault ? 0 : (answered.status ?? 200),
        durationMs: Math.round((performance.now() - started) * 10) / 10,
        identity: facts.identity, matched: facts.matched, fault, deprecated: marked?.journal,
        requestBody: bodies.request,
        responseBody: responseText(answered),
      });
    }
    return rateHeaders ? { ...out, headers: { ...out.headers, ...rateHeaders } } : out;
  };
}

// What the journal keeps of a call must hold nothing else alive: a closure made in the
// dispatcher would keep its whole scope (the request, its socket) until the entry leaves the
// journal, and the collector paid for that on every request (GET by uid: 42k req/s with the
// journal, 59k without). So the text is kept as is when it exists, and the later
// serializations close over the value alone.
interface CapturedBodies { request?: () => string }

function capturingBodies(incoming: Call, into: CapturedBodies): Call {
  return {
    ...incoming,
    json: () => incoming.json().then((v) => ((into.request = later(v, JSON.stringify)), v)),
    form: () => incoming.form().then((v) => ((into.request = later(v, String)), v)),
  };
}

function later<T>(value: T, show: (v: T) => string): () => string {
  return () => show(value);
}

function responseText(r: Response): string | (() => string) {
  if (r.raw !== undefined && r.secrets?.length) return later({ raw: r.raw, secrets: r.secrets }, ({ raw, secrets }) => maskValues(raw, secrets));
  return r.journalText ?? r.raw ?? r.bodyJson?.text ?? (r.body === undefined ? '' : later(r.body, JSON.stringify));
}

/** Methods whose requests serve reads no body of. */
const BODILESS = new Set(['GET', 'HEAD', 'OPTIONS']);
const noop = () => {};

/** The REST front: an HTTP request (HTTP/1.1 or HTTP/2) in, a JSON answer out. */
export function restHandler(dispatch: Dispatch, log?: (line: string) => void): (x: Exchange) => void {
  return (x) => {
    const started = performance.now();
    const rawUrl = x.url;
    const q = rawUrl.indexOf('?');
    let text: Promise<string> | undefined;
    const body = () => (text ??= readText(x));
    let out: Promise<Response>;
    try {
      out = dispatch({
        method: x.method,
        path: q === -1 ? rawUrl : rawUrl.slice(0, q),
        query: parseParams(q === -1 ? '' : rawUrl.slice(q + 1)),
        headers: x.headers,
        address: x.address,
        json: () => body().then(parseJson),
        form: () => body().then(parseParams),
        ...(BODILESS.has(x.method) ? {} : { arrived: () => body().then(noop, noop) }),
      });
    } catch (err) {
      out = Promise.resolve(toErrorResponse(err, log));
    }
    void out.then((answer) => {
      if (answer.fault === 'reset') {
        // The connection is cut with nothing sent (HTTP/2: the stream is reset).
        x.reset();
        log?.(`${x.method} ${redactUrl(rawUrl)} reset (injected fault)`);
        return;
      }
      if (answer.fault === 'stall') {
        // Never answered: the client gives up, or serve's close cuts the connection.
        log?.(`${x.method} ${redactUrl(rawUrl)} stalled (injected fault)`);
        return;
      }
      const status = answer.status ?? 200;
      const payload = answer.raw ?? answer.bodyJson?.utf8 ?? answer.bodyJson?.text ?? (answer.body === undefined ? '' : JSON.stringify(answer.body));
      const length = answer.raw === undefined && answer.bodyJson ? answer.bodyJson.bytes : Buffer.byteLength(payload);
      const json = payload && answer.raw === undefined;
      // Most answers are JSON with no headers of their own: one literal, node's quickest to write.
      let headers: Record<string, string | number>;
      if (json && !answer.headers) headers = { 'content-length': length, 'content-type': 'application/json' };
      else {
        headers = { 'content-length': length, ...answer.headers };
        if (json) headers['content-type'] = 'application/json';
      }
      x.respond(status, headers, payload);
      // The URL as sent may hold a token (`?access_token=…`): masked like the CLI's trace.
      log?.(`${x.method} ${redactUrl(rawUrl)} ${status} ${(performance.now() - started).toFixed(1)}ms`);
    });
  };
}

/**
 * The HTTP/1.1 server: `listener` answers requests; what node's parser rejects (unknown method,
 * bad request line or header, headers too large) never reaches it, and without this node
 * answers a bare 400 with no body.
 */
export function createHttp1Server(listener: http.RequestListener, limiter?: Limiter): http.Server {
  // requireHostHeader off: an HTTP/1.1 request without Host is served like any other, instead of
  // node answering a bare 400 before the handler (and its AIP-193 errors) ever sees it.
  const server = http.createServer({ requireHostHeader: false }, listener);
  server.on('clientError', (err: NodeJS.ErrnoException, socket: import('node:net').Socket) => {
    const inProgress = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
    if (err.code === 'ECONNRESET' || !socket.writable || inProgress) {
      socket.destroy();
      return;
    }
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    // Code-3 messages start "Invalid argument: <field>: ", as the spec words them.
    const apiError = status === 431
      ? headersTooLarge()
      : new ApiError(status === 408 ? Code.DEADLINE_EXCEEDED : Code.INVALID_ARGUMENT, status === 408 ? 'Request timed out' : `Invalid argument: request: malformed HTTP request (${err.code ?? 'parse error'})`, { reason: 'MALFORMED_REQUEST', httpStatus: status });
    const payload = JSON.stringify(apiError.toStatus());
    // Not counted (it was never a request), but reported like every other answer.
    const rate = Object.entries(limiter?.peek(addressKey(socket)) ?? {}).map(([k, v]) => `${k}: ${v}\r\n`).join('');
    socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(payload)}\r\n${rate}connection: close\r\n\r\n${payload}`);
  });
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 70_000;
  server.requestTimeout = 120_000;
  return server;
}

/** A request whose headers are over the server's bound (HTTP/1.1: node's 16 KiB; HTTP/2: MAX_HEADER_LIST). */
export function headersTooLarge(): ApiError {
  return new ApiError(Code.INVALID_ARGUMENT, 'Invalid argument: headers: the request headers are too large', { reason: 'MALFORMED_REQUEST', httpStatus: 431 });
}

/** Waits for a caller's turn, throwing the 429 when over the limit; undefined when nothing limits (nothing to await). */
type Admit = (caller: string) => Promise<void> | undefined;

/**
 * Routes one call (`surface`: the one that owns its path, if any); `admit` waits for its
 * caller's turn. What answers at once (a cached token, no limiter) is not awaited.
 */
async function route(
  call: Call, opts: HttpOptions, byPath: Map<string, ResourceRoutes>, publicRoutes: Map<string, Handler>, surface: Surface | undefined, admit: Admit, facts: CallFacts,
): Promise<Response> {
  const { method, path } = call;
  const publicRoute = `${method} ${path}`;
  const publicHandler = publicRoutes.get(publicRoute);
  if (publicHandler) {
    if (!opts.unlimited?.has(publicRoute)) await admit(call.address);
    facts.matched = true;
    return await publicHandler(makeRequest(call, '', { identityUid: '' }));
  }

  let principal: Principal;
  try {
    const known = opts.authenticate(call.headers.authorization);
    principal = known instanceof Promise ? await known : known;
  } catch (err) {
    await admit(call.address);
    throw err;
  }
  facts.identity = principal.identityUid;
  if (opts.control && path.startsWith(CONTROL_PREFIX)) {
    const answer = await opts.control(makeRequest(call, '', principal));
    facts.matched = answer.status !== 404;
    return answer;
  }
  const turn = admit(`identity ${principal.identityUid}`);
  if (turn) await turn;
  if (call.operation) {
    facts.matched = true;
    return await call.operation(principal);
  }

  if (surface) {
    const handler = await surface.route(method, path);
    facts.matched = true;
    return await handler(makeRequest(call, '', principal));
  }

  const { routes, uid, verb } = matchRoute(path, byPath);
  if (opts.published && specMisses(method, routes, uid, verb)) {
    const found = opts.published(method, path);
    const handler = found instanceof Promise ? await found : found;
    if (handler) {
      facts.matched = true;
      return await handler(makeRequest(call, '', principal));
    }
  }
  if (!routes) {
    throw new ApiError(Code.NOT_FOUND, `No such API route: ${method} ${path}`, { reason: 'ROUTE_NOT_FOUND' });
  }
  if (verb !== undefined) {
    const action = routes.actions?.[verb];
    if (!action) throw new ApiError(Code.NOT_FOUND, `No such API route: ${method} ${path}`, { reason: 'ROUTE_NOT_FOUND' });
    if (method !== 'POST') {
      throw new ApiError(Code.UNIMPLEMENTED, `Method ${method} is not allowed on ${path} (allowed: POST)`, {
        reason: 'METHOD_NOT_ALLOWED', httpStatus: 405, headers: { allow: 'POST' },
      });
    }
    facts.matched = true;
    return await action(makeRequest(call, uid ?? '', principal));
  }
  const handlers: Record<string, Handler | undefined> =
    uid === undefined
      ? { GET: routes.list, POST: routes.create }
      : { GET: routes.get, PATCH: routes.update, DELETE: routes.remove, POST: routes.create && publishedCreate(routes.create, routes.path, uid) };
  const handler = handlers[method];
  if (!handler) {
    const allow = Object.entries(handlers).filter(([, h]) => h).map(([m]) => m).join(', ');
    throw new ApiError(Code.UNIMPLEMENTED, `Method ${method} is not allowed on ${path} (allowed: ${allow || 'none'})`, {
      reason: 'METHOD_NOT_ALLOWED',
      httpStatus: 405,
      headers: { allow },
    });
  }
  facts.matched = true;
  return await handler(makeRequest(call, uid ?? '', principal));
}

/**
 * The published create rule (`POST /iam/v2/groups/{parent=**}`, body the bare resource): the
 * spec's create (`POST /iam/v2/groups`, `{parent, group}`) with the parent from the path. One
 * operation behind both shapes.
 */
function publishedCreate(create: Handler, collection: string, parent: string): Handler {
  const wrapper = CREATE_WRAPPER_BY_PATH.get(collection);
  if (!wrapper) return create;
  return async (req) => create({ ...req, path: collection, uid: '', json: async () => ({ parent, [wrapper]: await req.json() }) });
}

/** The create body's wrapper of each collection: `group` for /iam/v2/groups. */
const CREATE_WRAPPER_BY_PATH = new Map(registry.filter((d) => d.operations.includes('create')).map((d) => [d.path, d.kind[0]!.toLowerCase() + d.kind.slice(1)]));

/** A uid as serve makes them: hex segments (an account association's ends in a name). */
const UID_SHAPE = /^[0-9a-f]+(\/[0-9a-f]+)*(\/account-association)?$/;

/**
 * Whether the spec's routes have no handler for the call (no route, no such method, or an
 * item path whose "uid" is no uid: `/registry/v2/repos/{uid}/readme`), so that a published
 * rule may have it.
 */
function specMisses(method: string, routes: ResourceRoutes | undefined, uid: string | undefined, verb: string | undefined): boolean {
  if (!routes) return true;
  if (verb !== undefined) return !routes.actions?.[verb];
  if (uid === undefined) return !(method === 'GET' ? routes.list : method === 'POST' ? routes.create : undefined);
  return !UID_SHAPE.test(uid) || !(method === 'GET' ? routes.get : method === 'PATCH' ? routes.update : method === 'DELETE' ? routes.remove : routes.create);
}

/** A call of the spec's REST routes, made in process (a published rule's: published/). */
export interface InProcessCall {
  method: string;
  path: string;
  query: URLSearchParams;
  body(): unknown;
}

/** Runs calls of the spec's routes in process as `principal`: the route handler alone (the caller's call already went through the dispatcher). */
export function inProcessRest(routes: readonly ResourceRoutes[]): (principal: Principal, call: InProcessCall) => Promise<Response> {
  const byPath = new Map(routes.map((r) => [r.path, r]));
  return async (principal, call) => {
    const { routes: r, uid, verb } = matchRoute(call.path, byPath);
    const handler = !r ? undefined
      : verb !== undefined ? r.actions?.[verb]
        : uid === undefined ? (call.method === 'GET' ? r.list : call.method === 'POST' ? r.create : undefined)
          : (call.method === 'GET' ? r.get : call.method === 'PATCH' ? r.update : call.method === 'DELETE' ? r.remove : undefined);
    if (!handler) throw new ApiError(Code.NOT_FOUND, `No such API route: ${call.method} ${call.path}`, { reason: 'ROUTE_NOT_FOUND' });
    return await handler({
      method: call.method, path: call.path, query: call.query, uid: uid ?? '', principal, headers: {},
      json: () => Promise.resolve(call.body()), form: () => Promise.resolve(new URLSearchParams()),
    });
  };
}

function matchRoute(path: string, byPath: Map<string, ResourceRoutes>): { routes?: ResourceRoutes; uid?: string; verb?: string } {
  const exact = byPath.get(path) ?? (path.endsWith('/') ? byPath.get(path.replace(/\/+$/, '')) : undefined);
  if (exact) return { routes: exact };
  // A custom method: `<collection>:verb` or `<collection>/<uid>:verb` (uids never hold a colon).
  const custom = path.includes(':') ? /^(.*):([a-zA-Z]+)$/.exec(path) : null;
  if (custom) {
    const inner = matchRoute(custom[1]!, byPath);
    if (inner.routes?.actions?.[custom[2]!]) return { ...inner, verb: custom[2]! };
  }
  // Collection paths are /<domain>/v2/<plural>; whatever follows is the uid.
  const m = /^(\/[^/]+\/v2\/[^/]+)\/(.+)$/.exec(path);
  if (!m) return {};
  const routes = byPath.get(m[1]!);
  if (!routes) return {};
  let uid: string;
  try {
    uid = m[2]!.includes('%') ? decodeURIComponent(m[2]!) : m[2]!;
  } catch {
    throw invalidField('uid', 'is not a valid percent-encoded path element');
  }
  return { routes, uid };
}

/**
 * A call made inside serve (an MCP tool's), its body given as JSON text: parsed and bounded as
 * a REST body is, so such a call meets every rule a request over the network meets.
 */
export function textCall(call: Omit<Call, 'json' | 'form'>, text: string): Call {
  const body = () => (Buffer.byteLength(text) > MAX_BODY_BYTES ? Promise.reject(tooLarge()) : Promise.resolve(text));
  return { ...call, json: () => body().then(parseJson), form: () => body().then(parseParams) };
}

function makeRequest(call: Call, uid: string, principal: Principal): Request {
  return { method: call.method, path: call.path, query: call.query, uid, principal, headers: call.headers, json: call.json, form: call.form };
}

function parseJson(text: string): unknown {
  if (!text.trim()) throw invalidField('body', 'is required (a JSON object)');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw invalidField('body', `is not valid JSON (${(err as Error).message})`);
  }
  ensureBoundedDepth(value);
  // "\ud800" parses to a lone surrogate, which SQLite cannot store as UTF-8: it came back as
  // U+FFFD, so a 200 reported a value other than the one stored. Refused instead.
  if (/\\u[dD][89a-fA-F]/.test(text) && hasLoneSurrogate(value)) {
    throw invalidField('body', 'must hold well-formed Unicode text (a \\uD800-\\uDFFF escape must be part of a surrogate pair)');
  }
  return value;
}

/** A code-3 error naming the limit when the value nests deeper than MAX_JSON_DEPTH. Iterative: the value may be deep. */
function ensureBoundedDepth(value: unknown): void {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (!v || typeof v !== 'object') continue;
    if (depth > MAX_JSON_DEPTH) {
      throw invalidField('body', `must not nest objects and arrays more than ${MAX_JSON_DEPTH} levels deep`);
    }
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The request body as text, at most MAX_BODY_BYTES; bytes that are not UTF-8 are a code-3 error, not U+FFFD. */
export async function readText(x: Pick<Exchange, 'headers' | 'readBody' | 'discardBody'>): Promise<string> {
  const declared = Number(x.headers['content-length'] ?? 0);
  if (declared > MAX_BODY_BYTES) {
    x.discardBody();
    throw tooLarge();
  }
  const bytes = await x.readBody(MAX_BODY_BYTES, tooLarge, 'The client closed the connection before the request body was complete');
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw invalidField('body', 'must be UTF-8 text');
  }
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether any string (key or value) of a parsed JSON value holds an unpaired surrogate; iterative, as bodies nest deep. */
function hasLoneSurrogate(root: unknown): boolean {
  const stack: unknown[] = [root];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (LONE_SURROGATE.test(v)) return true;
    } else if (Array.isArray(v)) {
      for (const x of v) stack.push(x);
    } else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (LONE_SURROGATE.test(k)) return true;
        stack.push(x);
      }
    }
  }
  return false;
}

function tooLarge(): ApiError {
  return new ApiError(Code.INVALID_ARGUMENT, `Invalid argument: body: must be at most ${MAX_BODY_BYTES} bytes`, {
    reason: 'PAYLOAD_TOO_LARGE',
    httpStatus: 413,
    fieldViolations: [{ field: 'body', description: `must be at most ${MAX_BODY_BYTES} bytes` }],
    headers: { connection: 'close' },
  });
}

export function toErrorResponse(err: unknown, log?: (line: string) => void): Response {
  if (err instanceof ApiError) {
    return { status: err.httpStatus, body: err.toStatus(), headers: err.headers };
  }
  const write = log ?? ((line: string) => process.stderr.write(`${line}\n`));
  // The disk, not the request, failed: the operator needs to know, the client gets a 503 that says so.
  const storage = storageFailure(err);
  if (storage) {
    write(`storage error: ${storageErrorCode(err)}: ${(err as Error).message}`);
    return { status: storage.httpStatus, body: storage.toStatus(), headers: storage.headers };
  }
  // A bug of ours, not the client's: log it, and say nothing about internals.
  write(`internal error: ${(err as Error)?.stack ?? String(err)}`);
  const internal = new ApiError(Code.INTERNAL, 'Internal error', { reason: 'INTERNAL' });
  return { status: 500, body: internal.toStatus() };
}

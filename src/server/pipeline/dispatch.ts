// The pipeline: the one path of every API call, whichever surface read it (createDispatcher):
// injected faults, bearer authentication, the limits per caller (fair queuing or a rate), then
// the call's operation (or, for REST and v1, the route its path names), the journal, and the
// one place where errors become AIP-193 responses.
import http from 'node:http';
import { ApiError, Code, invalidField } from '../../api/errors.js';
import { registry } from '../../api/registry/index.js';
import type { FaultInjector } from './faults.js';
import type { Journal, JournalInput } from './journal.js';
import { maskValues } from '../../api/redact.js';
import type { Admitted, Limiter } from './ratelimit.js';
import { storageErrorCode, storageFailure } from '../store/failure.js';
import type { Principal } from '../auth/principal.js';
import type { Handler, Request, ResourceRoutes, PublicRoutes, Response } from './handler.js';
import { addressKey } from '../transport/exchange.js';

export { addressKey };

export const MAX_BODY_BYTES = 1024 * 1024;
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
  /** The RPC a gRPC or Connect call came as: `chainguard.platform.iam.v2.GroupsService/GetGroup`. */
  rpc?: string;
  /** The operation that answers the call once its caller is known (an RPC the domain answers directly), instead of routing by path. */
  operation?: (principal: Principal) => Promise<Response>;
  /** What the journal shows of an operation's request (no route reads a body through json()). */
  journalRequest?: () => string;
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
        requestBody: bodies.request ?? call.journalRequest,
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

function makeRequest(call: Call, uid: string, principal: Principal): Request {
  return { method: call.method, path: call.path, query: call.query, uid, principal, headers: call.headers, json: call.json, form: call.form };
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

// The node:http front of serve: routing by resource path, bounded JSON bodies, bearer
// authentication, and the one place where errors become AIP-193 responses.
import http from 'node:http';
import { ApiError, Code, invalidField } from '../api/errors.js';

export const MAX_BODY_BYTES = 1024 * 1024;

export interface Principal {
  /** The identity the bearer token belongs to. */
  identityUid: string;
}

export interface Request {
  method: string;
  /** The path of the URL, still percent-encoded. */
  path: string;
  query: URLSearchParams;
  /** The uid of an item route (`/iam/v2/groups/{uid}`), decoded; slashes raw or as %2F. */
  uid: string;
  principal: Principal;
  headers: http.IncomingHttpHeaders;
  /** The parsed JSON body; a code-3 error when it is missing, too large or not JSON. */
  json(): Promise<unknown>;
}

export interface Response {
  status?: number;
  /** JSON-serialized; undefined sends an empty body (DELETE). */
  body?: unknown;
  headers?: Record<string, string>;
}

export type Handler = (req: Request) => Response | Promise<Response>;

/** The handlers of one resource: its collection (`list`, `create`) and its items (`get`, `update`, `remove`). */
export interface ResourceRoutes {
  path: string;
  list?: Handler;
  create?: Handler;
  get?: Handler;
  update?: Handler;
  remove?: Handler;
}

/** Unauthenticated routes (OIDC discovery and the like), matched exactly by method + path. */
export type PublicRoutes = Record<string, Handler>;

export interface HttpOptions {
  routes: ResourceRoutes[];
  publicRoutes?: PublicRoutes;
  authenticate: (authorization: string | undefined) => Principal | Promise<Principal>;
  log?: (line: string) => void;
}

export function createHttpServer(opts: HttpOptions): http.Server {
  const byPath = new Map(opts.routes.map((r) => [r.path, r]));
  const server = http.createServer((req, res) => {
    const started = performance.now();
    handle(req, opts, byPath)
      .catch((err: unknown) => toErrorResponse(err, opts.log))
      .then((out) => {
        const status = out.status ?? 200;
        const payload = out.body === undefined ? '' : JSON.stringify(out.body);
        const headers: Record<string, string | number> = {
          'content-length': Buffer.byteLength(payload),
          ...out.headers,
        };
        if (payload) headers['content-type'] = 'application/json';
        res.writeHead(status, headers);
        res.end(payload);
        opts.log?.(`${req.method} ${req.url} ${status} ${(performance.now() - started).toFixed(1)}ms`);
      });
  });
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 70_000;
  server.requestTimeout = 120_000;
  return server;
}

async function handle(req: http.IncomingMessage, opts: HttpOptions, byPath: Map<string, ResourceRoutes>): Promise<Response> {
  const method = req.method ?? 'GET';
  const rawUrl = req.url ?? '/';
  const q = rawUrl.indexOf('?');
  const path = q === -1 ? rawUrl : rawUrl.slice(0, q);
  const query = new URLSearchParams(q === -1 ? '' : rawUrl.slice(q + 1));

  const publicHandler = opts.publicRoutes?.[`${method} ${path}`];
  if (publicHandler) return publicHandler(makeRequest(req, method, path, query, '', { identityUid: '' }));

  const principal = await opts.authenticate(req.headers.authorization);

  const { routes, uid } = matchRoute(path, byPath);
  if (!routes) {
    throw new ApiError(Code.NOT_FOUND, `No such API route: ${method} ${path}`, { reason: 'ROUTE_NOT_FOUND' });
  }
  const handlers: Record<string, Handler | undefined> =
    uid === undefined
      ? { GET: routes.list, POST: routes.create }
      : { GET: routes.get, PATCH: routes.update, DELETE: routes.remove };
  const handler = handlers[method];
  if (!handler) {
    const allow = Object.entries(handlers).filter(([, h]) => h).map(([m]) => m).join(', ');
    throw new ApiError(Code.UNIMPLEMENTED, `Method ${method} is not allowed on ${path} (allowed: ${allow || 'none'})`, {
      reason: 'METHOD_NOT_ALLOWED',
      httpStatus: 405,
      headers: { allow },
    });
  }
  return handler(makeRequest(req, method, path, query, uid ?? '', principal));
}

function matchRoute(path: string, byPath: Map<string, ResourceRoutes>): { routes?: ResourceRoutes; uid?: string } {
  const exact = byPath.get(path) ?? byPath.get(path.replace(/\/+$/, ''));
  if (exact) return { routes: exact };
  // Collection paths are /<domain>/v2/<plural>; whatever follows is the uid.
  const m = /^(\/[^/]+\/v2\/[^/]+)\/(.+)$/.exec(path);
  if (!m) return {};
  const routes = byPath.get(m[1]!);
  if (!routes) return {};
  let uid: string;
  try {
    uid = decodeURIComponent(m[2]!);
  } catch {
    throw invalidField('uid', 'is not a valid percent-encoded path element');
  }
  return { routes, uid };
}

function makeRequest(
  req: http.IncomingMessage, method: string, path: string, query: URLSearchParams, uid: string, principal: Principal,
): Request {
  let body: Promise<unknown> | undefined;
  return {
    method, path, query, uid, principal, headers: req.headers,
    json: () => (body ??= readJson(req)),
  };
}

function readJson(req: http.IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > MAX_BODY_BYTES) {
      req.resume();
      reject(tooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        failed = true;
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on('error', (err) => reject(err));
    req.on('end', () => {
      if (failed) return;
      const text = Buffer.concat(chunks).toString('utf8');
      if (!text.trim()) {
        reject(invalidField('body', 'is required (a JSON object)'));
        return;
      }
      try {
        resolve(JSON.parse(text));
      } catch (err) {
        reject(invalidField('body', `is not valid JSON (${(err as Error).message})`));
      }
    });
  });
}

function tooLarge(): ApiError {
  return new ApiError(Code.INVALID_ARGUMENT, `Invalid argument: body: must be at most ${MAX_BODY_BYTES} bytes`, {
    reason: 'PAYLOAD_TOO_LARGE',
    httpStatus: 413,
    fieldViolations: [{ field: 'body', description: `must be at most ${MAX_BODY_BYTES} bytes` }],
    headers: { connection: 'close' },
  });
}

function toErrorResponse(err: unknown, log?: (line: string) => void): Response {
  if (err instanceof ApiError) {
    return { status: err.httpStatus, body: err.toStatus(), headers: err.headers };
  }
  // A bug of ours, not the client's: log it, and say nothing about internals.
  (log ?? ((line: string) => process.stderr.write(`${line}\n`)))(`internal error: ${(err as Error)?.stack ?? String(err)}`);
  const internal = new ApiError(Code.INTERNAL, 'Internal error', { reason: 'INTERNAL' });
  return { status: 500, body: internal.toStatus() };
}

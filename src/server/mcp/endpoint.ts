// serve's /mcp: the MCP tool set of src/mcp over Streamable HTTP on serve's one port, with
// sessions as the spec has them (POST to open one with initialize and to send, GET for the
// server's stream, DELETE to end it). Every request needs a bearer token, the API's own; a
// session belongs to the identity that opened it. A tool call is dispatched in-process to
// serve's REST handling with the token of the request that carried it, so what a caller may
// do, its rate limit, injected faults and the journal are the API's, decided in one place.
// MCP clients find where to get a token by RFC 9728 (Protected Resource Metadata: serve's own
// issuer), named in every 401. Idle sessions expire; a request on one is a 404, as the spec
// has it, after which a client initializes again.
import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import { ApiError, Code, codeForHttpStatus } from '../../api/errors.js';
import type { ApiCaller, CallerAuth } from '../../mcp/server.js';
import type { Principal } from '../auth/principal.js';
import type { PublicRoutes, Response } from '../handler.js';
import { addressKey, readText, textCall, toErrorResponse, type Dispatch } from '../http.js';
import { onFirstUse } from '../lazy.js';

type StreamableHTTPServerTransport = import('@modelcontextprotocol/sdk/server/streamableHttp.js').StreamableHTTPServerTransport;
type NodeListener = (req: http.IncomingMessage, res: http.ServerResponse) => void;

export const MCP_PATH = '/mcp';
/** Open sessions one identity may hold; opening one more ends its oldest. */
const MAX_SESSIONS_PER_IDENTITY = 32;
/** A session no request has used for this long is ended (`serve --mcp-session-idle`). */
const DEFAULT_SESSION_IDLE_MS = 30 * 60_000;
/** RFC 9728's well-known path; a resource with a path has it appended (…/oauth-protected-resource/mcp). */
const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

export interface McpEndpointOptions {
  /** serve's dispatcher: the one path of every API call. */
  dispatch: Dispatch;
  authenticate: (authorization: string | undefined) => Promise<Principal>;
  /** Offer the write tools (`serve --mcp-writes`). */
  writes: boolean;
  /** serve's public URL, its token issuer: what the 401s name as the resource metadata's home. */
  issuer: () => string;
  /** How long a session may go unused before it ends (default DEFAULT_SESSION_IDLE_MS). */
  idleMs?: number;
  /** Milliseconds since the epoch; tests inject one to make sessions idle. */
  clock?: () => number;
  log?: ((line: string) => void) | undefined;
}

interface Session {
  transport: StreamableHTTPServerTransport;
  identityUid: string;
  /** When a request last used it (opts.clock). */
  lastUsed: number;
}

export interface McpEndpoint {
  /** `rest` with /mcp answered by the MCP endpoint. */
  listener(rest: NodeListener): NodeListener;
  /** Ends every session (their streams would hold serve's close up). */
  close(): Promise<void>;
}

export function mcpEndpoint(opts: McpEndpointOptions): McpEndpoint {
  const sessions = new Map<string, Session>();
  const clock = opts.clock ?? Date.now;
  const idleMs = opts.idleMs ?? DEFAULT_SESSION_IDLE_MS;
  /** Ends the sessions idle for longer than idleMs: before every request, and now and then for those nobody comes back to. */
  const expireIdle = () => {
    const now = clock();
    for (const [id, session] of sessions) {
      if (now - session.lastUsed <= idleMs) continue;
      sessions.delete(id);
      void session.transport.close();
    }
  };
  const sweeper = setInterval(expireIdle, Math.min(idleMs, 60_000));
  sweeper.unref();

  // The SDK and the tool set load with the first session, not with serve.
  const sdk = onFirstUse('MCP', async () => {
    const [{ StreamableHTTPServerTransport }, { createMcpServer }, { isInitializeRequest }] = await Promise.all([
      import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
      import('../../mcp/server.js'),
      import('@modelcontextprotocol/sdk/types.js'),
    ]);
    return { StreamableHTTPServerTransport, createMcpServer, isInitializeRequest };
  }, opts.log);

  async function open(req: http.IncomingMessage, res: http.ServerResponse, principal: Principal, body: unknown, { StreamableHTTPServerTransport, createMcpServer }: Awaited<ReturnType<typeof sdk>>): Promise<void> {
    const identityUid = principal.identityUid;
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => {
        const mine = [...sessions.values()].filter((s) => s.identityUid === identityUid);
        if (mine.length >= MAX_SESSIONS_PER_IDENTITY) void mine[0]!.transport.close();
        sessions.set(id, { transport, identityUid, lastUsed: clock() });
      },
      onsessionclosed: (id) => void sessions.delete(id),
    });
    transport.onclose = () => void (transport.sessionId && sessions.delete(transport.sessionId));
    const server = await createMcpServer({ writes: opts.writes, caller: (auth) => dispatchCaller(opts.dispatch, auth) });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  async function handle(req: http.IncomingMessage & { auth?: CallerAuth & { clientId: string; scopes: string[] } }, res: http.ServerResponse): Promise<void> {
    let principal: Principal;
    try {
      principal = await opts.authenticate(req.headers.authorization);
    } catch (err) {
      // The API's own 401, its challenge naming where an MCP client learns how to get a token.
      const answer = toErrorResponse(err, opts.log);
      if (answer.status === 401) {
        answer.headers = { ...answer.headers, 'www-authenticate': `Bearer realm="pctl", resource_metadata="${resourceMetadataUrl(opts.issuer(), MCP_PATH)}"` };
      }
      send(res, answer);
      return;
    }
    // The SDK hands this to tool calls (extra.authInfo): the token they are dispatched with.
    req.auth = {
      token: req.headers.authorization!.replace(/^\s*bearer\s+/i, ''),
      clientId: principal.identityUid,
      scopes: [],
      extra: { address: addressKey(req.socket) },
    };
    let body: unknown;
    if (req.method === 'POST') {
      try {
        body = JSON.parse(await readText(req, req.headers));
      } catch (err) {
        rpcError(res, 400, -32700, `Parse error: ${err instanceof ApiError ? err.message : 'the body is not JSON'}`);
        return;
      }
    }
    const id = req.headers['mcp-session-id'];
    if (typeof id === 'string') {
      expireIdle();
      const session = sessions.get(id);
      // Another identity's session is as unknown to this caller as one that never was (or expired).
      if (!session || session.identityUid !== principal.identityUid) {
        rpcError(res, 404, -32001, 'Session not found');
        return;
      }
      session.lastUsed = clock();
      await session.transport.handleRequest(req, res, body);
      return;
    }
    let loaded: Awaited<ReturnType<typeof sdk>>;
    try {
      loaded = await sdk();
    } catch (err) {
      send(res, toErrorResponse(err, opts.log));
      return;
    }
    if (req.method !== 'POST' || !loaded.isInitializeRequest(body)) {
      rpcError(res, 400, -32000, 'Bad Request: no session: send an initialize request first, then the Mcp-Session-Id it answers with');
      return;
    }
    await open(req, res, principal, body, loaded);
  }

  return {
    listener: (rest) => (req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      if (path !== MCP_PATH) {
        rest(req, res);
        return;
      }
      const started = performance.now();
      if (opts.log) res.once('finish', () => opts.log!(`${req.method} ${MCP_PATH} ${res.statusCode} ${(performance.now() - started).toFixed(1)}ms`));
      handle(req, res).catch((err: unknown) => {
        opts.log?.(`mcp: internal error: ${(err as Error)?.stack ?? String(err)}`);
        if (!res.headersSent) rpcError(res, 500, -32603, 'Internal error');
        else res.end();
      });
    },
    close: async () => {
      clearInterval(sweeper);
      await Promise.all([...sessions.values()].map((s) => s.transport.close()));
      sessions.clear();
    },
  };
}

/**
 * RFC 9728 Protected Resource Metadata, public: for /mcp (the path-suffixed form MCP clients
 * try first) and for the API as a whole (the form they fall back to). Both name serve's own
 * issuer as the authorization server, whose metadata is its OIDC discovery document.
 */
export function protectedResourceRoutes(issuer: () => string): PublicRoutes {
  const metadata = (path: string) => () => ({
    body: {
      resource: `${issuer()}${path}`,
      authorization_servers: [issuer()],
      bearer_methods_supported: ['header'],
      resource_name: path ? 'pctl serve MCP' : 'pctl serve',
    },
    headers: { 'cache-control': 'public, max-age=300' },
  });
  return {
    [`GET ${RESOURCE_METADATA_PATH}`]: metadata(''),
    [`GET ${RESOURCE_METADATA_PATH}${MCP_PATH}`]: metadata(MCP_PATH),
  };
}

function resourceMetadataUrl(issuer: string, path: string): string {
  return `${issuer}${RESOURCE_METADATA_PATH}${path}`;
}

/** A tool call's API calls, through serve's dispatcher as the caller that sent it. */
function dispatchCaller(dispatch: Dispatch, auth: CallerAuth | undefined): ApiCaller {
  return async ({ method, path, query, body }) => {
    const answer = await dispatch(textCall({
      method,
      path,
      query: new URLSearchParams(query ?? []),
      headers: auth ? { authorization: `Bearer ${auth.token}` } : {},
      address: typeof auth?.extra?.address === 'string' ? auth.extra.address : '',
    }, body === undefined ? '' : JSON.stringify(body)));
    // An injected reset or stall has no HTTP answer to give back: the tool says so.
    if (answer.fault) throw new ApiError(Code.UNAVAILABLE, `The API call was ${answer.fault === 'reset' ? 'cut' : 'never answered'} (an injected fault)`, { reason: 'INJECTED_FAULT' });
    const status = answer.status ?? 200;
    const json: unknown = answer.bodyJson ? JSON.parse(answer.bodyJson.text) : answer.body;
    if (status >= 400) throw ApiError.fromBody(json, status) ?? new ApiError(codeForHttpStatus(status), `${method} ${path}: HTTP ${status}`);
    return json;
  };
}

function send(res: http.ServerResponse, answer: Response): void {
  const payload = JSON.stringify(answer.body);
  res.writeHead(answer.status ?? 200, { ...answer.headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
  res.end(payload);
}

/** A JSON-RPC error outside any session, as the SDK words its own. */
function rpcError(res: http.ServerResponse, status: number, code: number, message: string): void {
  const payload = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
  res.end(payload);
}

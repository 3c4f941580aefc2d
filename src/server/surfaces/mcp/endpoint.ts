// serve's /mcp: the MCP tool set of src/mcp over Streamable HTTP on serve's one port, with
// sessions as the spec has them (POST to open one with initialize and to send, GET for the
// server's stream, DELETE to end it). Every request needs a bearer token, the API's own; a
// session belongs to the identity that opened it. A tool call's API calls run their operations
// through serve's pipeline (calls.ts) with the token of the request that carried it, so what a
// caller may do, its rate limit, injected faults and the journal are the API's, decided in one place.
// MCP clients find where to get a token by RFC 9728 (Protected Resource Metadata: serve's own
// issuer), named in every 401. Idle sessions expire; a request on one is a 404, as the spec
// has it, after which a client initializes again. Sessions run the SDK's web-standard
// transport (a Request in, a Response out), so HTTP/1.1 and serve's HTTP/2 serve them alike.
import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import { ApiError } from '../../../api/errors.js';
import type { Principal } from '../../auth/principal.js';
import type { PublicRoutes, Response } from '../../pipeline/handler.js';
import { toErrorResponse, type Dispatch } from '../../pipeline/dispatch.js';
import { readText } from '../rest/http.js';
import type { Operations } from '../../pipeline/operations.js';
import type { Store } from '../../store/store.js';
import type { Domain } from '../../domain/index.js';
import { operationCaller, operationTable } from './calls.js';
import { http1Exchange, webHeaders, type Exchange, type Http2Exchange } from '../../transport/exchange.js';

type AuthInfo = import('@modelcontextprotocol/sdk/server/auth/types.js').AuthInfo;
import { onFirstUse } from '../../pipeline/lazy.js';

type Transport = import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js').WebStandardStreamableHTTPServerTransport;
type NodeListener = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/** An /mcp request over either HTTP version: the exchange, and how an answer that streams (SSE) is written. */
interface McpCall {
  x: Exchange;
  writeHead: (status: number, headers: http.OutgoingHttpHeaders) => void;
  /** Resolves once the chunk is on its way (the peer's window or the socket took it). */
  write: (chunk: Uint8Array) => Promise<void>;
  end: () => void;
}

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
  /** The operations a tool's API calls run (calls.ts: the domain for custom verbs), and the store their wire forms read. */
  operations: Operations;
  domain: Domain;
  store: Store;
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
  transport: Transport;
  identityUid: string;
  /** When a request last used it (opts.clock). */
  lastUsed: number;
}

export interface McpEndpoint {
  /** `rest` with /mcp answered by the MCP endpoint. */
  listener(rest: NodeListener): NodeListener;
  /** /mcp over serve's HTTP/2. */
  http2(x: Http2Exchange): void;
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
  let table: ReturnType<typeof operationTable> | undefined;
  const sweeper = setInterval(expireIdle, Math.min(idleMs, 60_000));
  sweeper.unref();

  // The SDK and the tool set load with the first session, not with serve.
  const sdk = onFirstUse('MCP', async () => {
    const [{ WebStandardStreamableHTTPServerTransport }, { createMcpServer }, { isInitializeRequest }] = await Promise.all([
      import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
      import('../../../mcp/server.js'),
      import('@modelcontextprotocol/sdk/types.js'),
    ]);
    return { WebStandardStreamableHTTPServerTransport, createMcpServer, isInitializeRequest };
  }, opts.log);

  async function open(call: McpCall, authInfo: AuthInfo, principal: Principal, body: unknown, { WebStandardStreamableHTTPServerTransport, createMcpServer }: Awaited<ReturnType<typeof sdk>>): Promise<void> {
    const identityUid = principal.identityUid;
    const transport: Transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => {
        const mine = [...sessions.values()].filter((s) => s.identityUid === identityUid);
        if (mine.length >= MAX_SESSIONS_PER_IDENTITY) void mine[0]!.transport.close();
        sessions.set(id, { transport, identityUid, lastUsed: clock() });
      },
      onsessionclosed: (id) => void sessions.delete(id),
    });
    transport.onclose = () => void (transport.sessionId && sessions.delete(transport.sessionId));
    const server = await createMcpServer({ writes: opts.writes, caller: (auth) => operationCaller(opts.dispatch, (table ??= operationTable(opts.operations, opts.domain, opts.store)), auth) });
    await server.connect(transport);
    await answer(call, transport, body, authInfo);
  }

  async function handle(call: McpCall): Promise<void> {
    const { x } = call;
    let principal: Principal;
    try {
      principal = await opts.authenticate(x.headers.authorization);
    } catch (err) {
      // The API's own 401, its challenge naming where an MCP client learns how to get a token.
      const answer = toErrorResponse(err, opts.log);
      if (answer.status === 401) {
        answer.headers = { ...answer.headers, 'www-authenticate': `Bearer realm="pctl", resource_metadata="${resourceMetadataUrl(opts.issuer(), MCP_PATH)}"` };
      }
      send(x, answer);
      return;
    }
    // The SDK hands this to tool calls (extra.authInfo): the token they are dispatched with.
    const authInfo: AuthInfo = {
      token: x.headers.authorization!.replace(/^\s*bearer\s+/i, ''),
      clientId: principal.identityUid,
      scopes: [],
      extra: { address: x.address },
    };
    let body: unknown;
    if (x.method === 'POST') {
      try {
        body = JSON.parse(await readText(x));
      } catch (err) {
        rpcError(x, 400, -32700, `Parse error: ${err instanceof ApiError ? err.message : 'the body is not JSON'}`);
        return;
      }
    } else x.discardBody();
    const id = x.headers['mcp-session-id'];
    if (typeof id === 'string') {
      expireIdle();
      const session = sessions.get(id);
      // Another identity's session is as unknown to this caller as one that never was (or expired).
      if (!session || session.identityUid !== principal.identityUid) {
        rpcError(x, 404, -32001, 'Session not found');
        return;
      }
      session.lastUsed = clock();
      await answer(call, session.transport, body, authInfo);
      return;
    }
    let loaded: Awaited<ReturnType<typeof sdk>>;
    try {
      loaded = await sdk();
    } catch (err) {
      send(x, toErrorResponse(err, opts.log));
      return;
    }
    if (x.method !== 'POST' || !loaded.isInitializeRequest(body)) {
      rpcError(x, 400, -32000, 'Bad Request: no session: send an initialize request first, then the Mcp-Session-Id it answers with');
      return;
    }
    await open(call, authInfo, principal, body, loaded);
  }

  /** Serves one /mcp call, logged once it closes. */
  function serve(call: McpCall): void {
    const { x } = call;
    const started = performance.now();
    let status = 0;
    const writeHead = call.writeHead;
    call.writeHead = (code, headers) => ((status = code), writeHead(code, headers));
    if (opts.log) x.onClose(() => opts.log!(`${x.method} ${MCP_PATH} ${status} ${(performance.now() - started).toFixed(1)}ms`));
    handle(call).catch((err: unknown) => {
      opts.log?.(`mcp: internal error: ${(err as Error)?.stack ?? String(err)}`);
      if (!x.gone()) rpcError(x, 500, -32603, 'Internal error');
      else call.end();
    });
  }

  return {
    listener: (rest) => (req, res) => {
      if ((req.url ?? '/').split('?')[0] !== MCP_PATH) {
        rest(req, res);
        return;
      }
      const x = http1Exchange(req, res);
      serve({
        x,
        writeHead: (status, headers) => void res.writeHead(status, headers),
        write: (chunk) => new Promise((resolve) => {
          if (res.write(chunk)) resolve();
          else res.once('drain', resolve).once('close', resolve);
        }),
        end: () => void res.end(),
      });
    },
    http2: (x) => serve({
      x,
      writeHead: (status, headers) => x.stream.writeHead(status, headers),
      write: (chunk) => x.stream.write(chunk),
      end: () => x.stream.end(),
    }),
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

/** Hands a request to a session's transport and writes the Response it gives back, its body as it streams. */
async function answer(call: McpCall, transport: Transport, parsedBody: unknown, authInfo: AuthInfo): Promise<void> {
  const { x } = call;
  const authority = (x.headers[':authority'] as string | undefined) ?? x.headers.host ?? 'localhost';
  const abort = new AbortController();
  x.onClose(() => abort.abort());
  const response = await transport.handleRequest(new Request(`http://${authority}${x.url}`, { method: x.method, headers: webHeaders(x.headers), signal: abort.signal }), { parsedBody, authInfo });
  const out: http.OutgoingHttpHeaders = {};
  response.headers.forEach((value, name) => { out[name] = value; });
  call.writeHead(response.status, out);
  if (!response.body) {
    call.end();
    return;
  }
  // An SSE stream stays open until the session or the caller ends it.
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  x.onClose(() => void reader.cancel().catch(() => {}));
  for (;;) {
    let chunk: Awaited<ReturnType<typeof reader.read>>;
    try {
      chunk = await reader.read();
    } catch {
      break; // cancelled: the caller went away
    }
    if (chunk.done) break;
    await call.write(chunk.value);
  }
  call.end();
}

function send(x: Exchange, answer: Response): void {
  const payload = JSON.stringify(answer.body);
  x.respond(answer.status ?? 200, { ...answer.headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }, payload);
}

/** A JSON-RPC error outside any session, as the SDK words its own. */
function rpcError(x: Exchange, status: number, code: number, message: string): void {
  const payload = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
  x.respond(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }, payload);
}

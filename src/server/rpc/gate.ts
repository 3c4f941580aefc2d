// The way in to the RPC listeners (index.ts: Connect, protobuf and the generated descriptors,
// ~170 modules), which serve loads on the first RPC: until then, and for every other path,
// its port answers REST without them. Over HTTP/2 the REST calls are answered on the stream
// itself; node's compatibility objects are made only for what `rest.node` answers (/mcp).
import type http from 'node:http';
import type http2 from 'node:http2';
import { http1Exchange, http2Exchange, type Exchange } from '../exchange.js';
import { toErrorResponse } from '../http.js';

type NodeListener = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/** What answers serve's port: node's request listener (HTTP/1.1) and the HTTP/2 stream handler. */
export interface Listeners {
  request: NodeListener;
  stream: (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders, flags: number, rawHeaders: string[]) => void;
}

/** An RPC's path, `/package.Service/Method`; REST has no path of that shape. */
const isRpcPath = (url: string | undefined) => /^\/[A-Za-z_][\w.]*\.[A-Za-z_]\w*\/[A-Za-z_]\w*$/.test((url ?? '').split('?')[0]!);

/**
 * serve's listeners: RPC paths by the listeners `rpc` gives (a promise until they are loaded;
 * they answer RPC paths that are no RPC by REST themselves), everything else by REST.
 */
export function rpcGate(
  rpc: () => Listeners | Promise<Listeners>,
  rest: { exchange: (x: Exchange) => void; node: NodeListener; needsNode: (path: string) => boolean },
  log: ((line: string) => void) | undefined,
): Listeners {
  return {
    request: (req, res) => {
      if (!isRpcPath(req.url)) {
        rest.node(req, res);
        return;
      }
      const loaded = rpc();
      if (!(loaded instanceof Promise)) loaded.request(req, res);
      else loaded.then((l) => l.request(req, res), (err: unknown) => unavailable(http1Exchange(req, res), err, log));
    },
    stream: (stream, headers, flags, rawHeaders) => {
      const path = (headers[':path'] ?? '/').split('?')[0]!;
      if (isRpcPath(path)) {
        const loaded = rpc();
        if (!(loaded instanceof Promise)) loaded.stream(stream, headers, flags, rawHeaders);
        else loaded.then((l) => l.stream(stream, headers, flags, rawHeaders), (err: unknown) => unavailable(http2Exchange(stream, headers, rawHeaders), err, log));
        return;
      }
      const x = http2Exchange(stream, headers, rawHeaders);
      if (rest.needsNode(path)) {
        const [req, res] = x.node();
        rest.node(req as unknown as http.IncomingMessage, res as unknown as http.ServerResponse);
      } else rest.exchange(x);
    },
  };
}

/** The RPC listeners failed to load: UNAVAILABLE, as gRPC's status to a gRPC caller, else as the AIP-193 503. */
function unavailable(x: Exchange, err: unknown, log: ((line: string) => void) | undefined): void {
  x.body.resume();
  const answer = toErrorResponse(err, log);
  const type = x.headers['content-type'] ?? '';
  if (type.startsWith('application/grpc')) {
    // Trailers-only: the status in the headers of an answer with no message. The message is
    // lazy.ts's, printable ASCII with no `%`: nothing in it to percent-encode.
    const { code, message } = answer.body as { code: number; message: string };
    x.respond(200, { 'content-type': type.split(';')[0]!, 'grpc-status': String(code), 'grpc-message': message });
    return;
  }
  const body = JSON.stringify(answer.body);
  x.respond(answer.status ?? 503, { ...answer.headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }, body);
}

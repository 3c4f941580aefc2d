// The way in to the RPC listeners (index.ts: Connect, protobuf and the generated descriptors,
// ~170 modules), which serve loads on the first RPC: until then, and for every other path,
// its port answers REST without them.
import type http from 'node:http';
import { http1Exchange, http2Exchange, type Exchange, type Http2Exchange } from '../../transport/exchange.js';
import type { RequestStream } from '../../transport/h2/connection.js';
import { toErrorResponse } from '../../pipeline/dispatch.js';
import { headersTooLarge } from '../../transport/http1.js';

type NodeListener = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/** What answers serve's port: node's request listener (HTTP/1.1) and serve's HTTP/2 streams. */
export interface Listeners {
  request: NodeListener;
  stream: (x: Http2Exchange) => void;
}

/** An RPC's path, `/package.Service/Method`; REST has no path of that shape. */
const RPC_PATH = /^\/[A-Za-z_][\w.]*\.[A-Za-z_]\w*\/[A-Za-z_]\w*$/;
const isRpcPath = (url: string | undefined) => {
  if (!url) return false;
  const q = url.indexOf('?');
  return RPC_PATH.test(q === -1 ? url : url.slice(0, q));
};

/**
 * serve's listeners: RPC paths by the listeners `rpc` gives (a promise until they are loaded;
 * they answer RPC paths that are no RPC by REST themselves), everything else by REST.
 */
export function rpcGate(
  rpc: () => Listeners | Promise<Listeners>,
  rest: { node: NodeListener; http2: (x: Http2Exchange) => void },
  log: ((line: string) => void) | undefined,
): { request: NodeListener; stream: (stream: RequestStream) => void } {
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
    stream: (stream) => {
      const x = http2Exchange(stream);
      if (stream.headersTooLarge) {
        // Answered as HTTP/1.1 answers its parser's overflow; nothing of it is routed.
        x.discardBody();
        const body = JSON.stringify(headersTooLarge().toStatus());
        x.respond(431, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }, body);
        return;
      }
      if (!isRpcPath(x.url)) {
        rest.http2(x);
        return;
      }
      const loaded = rpc();
      if (!(loaded instanceof Promise)) loaded.stream(x);
      else loaded.then((l) => l.stream(x), (err: unknown) => unavailable(x, err, log));
    },
  };
}

/** The RPC listeners failed to load: UNAVAILABLE, as gRPC's status to a gRPC caller, else as the AIP-193 503. */
function unavailable(x: Exchange, err: unknown, log: ((line: string) => void) | undefined): void {
  x.discardBody();
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

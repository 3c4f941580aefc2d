// One HTTP request and its answer, whichever HTTP version carried it: node's request and
// response over HTTP/1.1, the Http2Stream itself over HTTP/2. node's HTTP/2 compatibility
// objects (Http2ServerRequest/Response) cost as much as a whole REST GET and more than a gRPC
// call, so the hot paths (REST, unary RPCs) answer on the stream; what needs node's objects
// (Connect's fallbacks, MCP) gets them made for its stream alone (`node()`).
import http from 'node:http';
import http2 from 'node:http2';
import type { Readable } from 'node:stream';

export interface Exchange {
  method: string;
  /** The request target as sent: path and query, still percent-encoded. */
  url: string;
  headers: http.IncomingHttpHeaders;
  httpVersionMajor: 1 | 2;
  /** The limiter's key of the caller's address (addressKey). */
  address: string;
  /** The request body. */
  body: Readable;
  /** Whether the answer can no longer be sent (the peer went away, or it was sent). */
  gone(): boolean;
  /** Called once when the exchange closes (answered, or the peer went away). */
  onClose(listener: () => void): void;
  /** The whole answer; `trailers` (HTTP/2 only) follow the body. Nothing is sent once gone. */
  respond(status: number, headers: http.OutgoingHttpHeaders, body?: string | Uint8Array, trailers?: Record<string, string>): void;
  /** Cuts the exchange with nothing sent (HTTP/2: the stream is reset; HTTP/1.1: the connection closes). */
  reset(): void;
}

/** The limiter's key of a caller that is not (or not yet) authenticated. */
export function addressKey(socket: import('node:net').Socket): string {
  return `address ${(socket.remoteAddress ?? '').replace(/^::ffff:/, '')}`;
}

/** Headers HTTP/2 forbids (RFC 9113 §8.2.2); node throws on them. */
const CONNECTION_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade']);

const ignore = () => {};

/** Each session's addressKey: `session.socket` is a proxy, slow to read through on every stream. */
const sessionAddress = new WeakMap<http2.Http2Session, string>();

function addressOf(session: http2.Http2Session): string {
  let key = sessionAddress.get(session);
  if (key === undefined) sessionAddress.set(session, (key = addressKey(session.socket)));
  return key;
}

export function http1Exchange(req: http.IncomingMessage, res: http.ServerResponse): Exchange {
  return {
    method: req.method ?? 'GET',
    url: req.url ?? '/',
    headers: req.headers,
    httpVersionMajor: 1,
    address: addressKey(req.socket),
    body: req,
    gone: () => res.destroyed || res.headersSent,
    onClose: (listener) => res.once('close', listener),
    respond: (status, headers, body) => {
      if (res.destroyed || res.headersSent) return;
      res.writeHead(status, headers);
      res.end(body);
    },
    reset: () => req.socket.destroy(),
  };
}

/** An HTTP/2 stream as an exchange; `node()` makes node's compatibility objects for it, for the handlers that need them. */
export function http2Exchange(stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders, rawHeaders: string[]): Exchange & { node(): [http2.Http2ServerRequest, http2.Http2ServerResponse] } {
  // node's compatibility layer swallows a stream's errors (a peer's reset); without it an
  // 'error' with no listener would end the process.
  stream.on('error', ignore);
  const method = headers[':method'] ?? 'GET';
  return {
    method,
    url: headers[':path'] ?? '/',
    headers,
    httpVersionMajor: 2,
    address: addressOf(stream.session!),
    body: stream,
    gone: () => stream.destroyed || stream.headersSent,
    onClose: (listener) => stream.once('close', listener),
    respond: (status, out, body, trailers) => {
      if (stream.destroyed || stream.headersSent) return;
      // Copied without the connection headers (deleting them would make node's header walk slower).
      const h: http2.OutgoingHttpHeaders = { ':status': status };
      for (const name in out) if (!CONNECTION_HEADERS.has(name)) h[name] = out[name];
      const empty = body === undefined || body.length === 0 || method === 'HEAD';
      if (trailers) {
        stream.respond(h, { waitForTrailers: true });
        stream.once('wantTrailers', () => stream.sendTrailers(trailers));
        stream.end(empty ? undefined : body);
      } else if (empty) {
        stream.respond(h, { endStream: true });
      } else {
        stream.respond(h);
        stream.end(body);
      }
    },
    reset: () => stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR),
    // As node's HTTP/2 server makes them for its 'request' event (its documented options
    // Http2ServerRequest/Http2ServerResponse name these classes to construct).
    node: () => [new http2.Http2ServerRequest(stream, headers, {}, rawHeaders), new http2.Http2ServerResponse(stream)],
  };
}

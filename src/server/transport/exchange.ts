// One HTTP request and its answer, whichever HTTP version carried it: node's request and
// response over HTTP/1.1, serve's own HTTP/2 stream (h2/connection.ts) over HTTP/2. The hot
// paths (REST, unary RPCs) take a body whole and give an answer whole; what streams
// (Connect's reflection) uses the RequestStream itself.
import type http from 'node:http';
import type { Readable } from 'node:stream';
import { ApiError, Code } from '../../api/errors.js';
import { H2_ERROR, type RequestStream } from './h2/connection.js';

export interface Exchange {
  method: string;
  /** The request target as sent: path and query, still percent-encoded. */
  url: string;
  headers: http.IncomingHttpHeaders;
  httpVersionMajor: 1 | 2;
  /** The limiter's key of the caller's address (addressKey). */
  address: string;
  /**
   * The whole request body, at most `max` bytes (`tooLarge()` past that, the rest read and
   * dropped); a caller gone mid-body is CANCELLED with the message `closed`.
   */
  readBody(max: number, tooLarge: () => ApiError, closed: string): Promise<Buffer>;
  /** Reads and drops the request body (an answer that needs none of it). */
  discardBody(): void;
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

export function http1Exchange(req: http.IncomingMessage, res: http.ServerResponse): Exchange {
  return {
    method: req.method ?? 'GET',
    url: req.url ?? '/',
    headers: req.headers,
    httpVersionMajor: 1,
    address: addressKey(req.socket),
    readBody: (max, tooLarge, closed) => readBody(req, max, tooLarge, closed),
    discardBody: () => void req.resume(),
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

/** An exchange over serve's HTTP/2: the stream's own answer, the body taken whole. */
export interface Http2Exchange extends Exchange {
  stream: RequestStream;
}

export function http2Exchange(stream: RequestStream): Http2Exchange {
  const method = (stream.headers[':method'] as string | undefined) ?? 'GET';
  return {
    method,
    url: (stream.headers[':path'] as string | undefined) ?? '/',
    headers: stream.headers,
    httpVersionMajor: 2,
    address: stream.address,
    stream,
    readBody: (max, tooLarge, closed) => stream.body(max, tooLarge, () => cancelled(closed)),
    discardBody: () => stream.discard(),
    gone: () => stream.gone(),
    onClose: (listener) => stream.onClose(listener),
    respond: (status, headers, body, trailers) => stream.respond(status, headers, method === 'HEAD' ? undefined : body, trailers),
    reset: () => stream.reset(H2_ERROR.INTERNAL_ERROR),
  };
}

/** A request's headers as a fetch Headers (what Connect's and MCP's web-standard handlers take), HTTP/2's pseudo-headers left out. */
export function webHeaders(headers: http.IncomingHttpHeaders): Headers {
  const out = new Headers();
  for (const name in headers) {
    const value = headers[name];
    if (name.startsWith(':') || value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) out.append(name, v);
  }
  return out;
}

/** The client went away mid-body: its doing, not an internal error to log. */
function cancelled(message: string): ApiError {
  return new ApiError(Code.CANCELLED, message, { reason: 'CLIENT_CLOSED_REQUEST' });
}

/**
 * A request's body over HTTP/1.1, at most `max` bytes (`tooLarge()` past that); a client gone
 * mid-body is CANCELLED with `closed`. Read in paused mode from the loop's check phase: by
 * then a small body has come whole with its headers (node's HTTP/1.1 parser pushes it after
 * the request's event), and taking it with read() costs 5-10 µs less a request than the
 * flowing mode's data events and ticks.
 */
function readBody(req: Readable, max: number, tooLarge: () => ApiError, closed: string): Promise<Buffer> {
  return new Promise((resolve, reject) => setImmediate(() => {
    const gone = () => reject(cancelled(closed));
    if (req.destroyed) {
      gone();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    const take = () => {
      for (let chunk: Buffer | null; (chunk = req.read() as Buffer | null) !== null;) {
        if (failed) continue;
        size += chunk.length;
        if (size > max) {
          failed = true;
          reject(tooLarge());
        } else chunks.push(chunk);
      }
    };
    req.on('readable', take);
    req.on('error', gone);
    req.once('aborted', gone);
    req.once('end', () => failed || resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    take();
  }));
}

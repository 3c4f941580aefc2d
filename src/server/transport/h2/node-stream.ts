// `serve --http2 node`: node:http2 (nghttp2) in place of this folder's server, for a user an
// incompatibility of ours hits. Its streams are handed out as RequestStreams, so the rest of
// serve cannot tell them apart. What it costs: node:http2's per-stream objects and the trip
// into nghttp2 and back (docs/serve.md: about twice the CPU of a gRPC call on serve's own);
// its bounds and timeouts are nghttp2's and node's, not those of README.md.
import http2 from 'node:http2';
import type http from 'node:http';
import type net from 'node:net';
import { H2_ERROR, StreamGone, type H2Timeouts, type RequestStream } from './connection.js';

/** Answer headers HTTP/2 has no place for (node:http2 throws on them). */
const NOT_SENT = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade']);

function answerHeaders(status: number | undefined, headers: http.OutgoingHttpHeaders): http2.OutgoingHttpHeaders {
  const out: http2.OutgoingHttpHeaders = status === undefined ? {} : { ':status': status };
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined || NOT_SENT.has(name.toLowerCase())) continue;
    out[name.toLowerCase()] = value;
  }
  return out;
}

class NodeStream implements RequestStream {
  readonly headersTooLarge = false;
  private trailers: http.OutgoingHttpHeaders | undefined;

  constructor(private readonly stream: http2.ServerHttp2Stream, readonly headers: http.IncomingHttpHeaders, readonly address: string) {}

  get headersSent(): boolean {
    return this.stream.headersSent;
  }

  body(max: number, tooLarge: () => Error, gone: () => Error): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      this.stream.on('data', (c: Buffer) => {
        size += c.length;
        if (size <= max) chunks.push(c);
      });
      this.stream.once('end', () => (size > max ? reject(tooLarge()) : resolve(Buffer.concat(chunks))));
      this.stream.once('close', () => reject(gone()));
    });
  }

  async *read(): AsyncGenerator<Uint8Array> {
    try {
      for await (const chunk of this.stream) yield chunk as Buffer;
    } catch {
      throw new StreamGone('the stream was reset');
    }
    if (this.stream.aborted) throw new StreamGone('the stream was reset');
  }

  discard(): void {
    this.stream.resume();
  }

  respond(status: number, headers: http.OutgoingHttpHeaders, body?: string | Uint8Array, trailers?: http.OutgoingHttpHeaders): void {
    if (this.gone()) return;
    const empty = body === undefined || body.length === 0;
    this.stream.respond(answerHeaders(status, headers), { endStream: empty && !trailers, waitForTrailers: trailers !== undefined });
    if (trailers) this.stream.once('wantTrailers', () => this.stream.sendTrailers(answerHeaders(undefined, trailers)));
    if (!empty || trailers) this.stream.end(empty ? undefined : body);
  }

  writeHead(status: number, headers: http.OutgoingHttpHeaders): void {
    if (this.gone()) return;
    // Trailers may come with end(): node sends them only when asked for them up front.
    this.stream.respond(answerHeaders(status, headers), { waitForTrailers: true });
    this.stream.once('wantTrailers', () => this.stream.sendTrailers(answerHeaders(undefined, this.trailers ?? {})));
  }

  write(chunk: Uint8Array): Promise<void> {
    if (this.stream.destroyed) return Promise.reject(new StreamGone('the stream was reset'));
    return new Promise((resolve, reject) => this.stream.write(chunk, (err) => (err ? reject(new StreamGone('the stream was reset')) : resolve())));
  }

  end(trailers?: http.OutgoingHttpHeaders): void {
    if (this.stream.destroyed) return;
    this.trailers = trailers;
    this.stream.end();
  }

  reset(code: number = H2_ERROR.INTERNAL_ERROR): void {
    if (!this.stream.destroyed) this.stream.close(code);
  }

  gone(): boolean {
    return this.stream.destroyed || this.stream.headersSent;
  }

  onClose(listener: () => void): void {
    if (this.stream.closed) queueMicrotask(listener);
    else this.stream.once('close', listener);
  }
}

/**
 * node:http2's h2c server: connections handed to it (`emit('connection', socket)`) have their
 * streams go to `onStream`; a session without activity ends after `timeouts.idleMs` (node's
 * timer; the other deadlines are not node's to keep).
 */
export function nodeH2Server(onStream: (stream: RequestStream) => void, address: (socket: net.Socket) => string, timeouts: H2Timeouts): http2.Http2Server {
  const server = http2.createServer({ settings: { maxConcurrentStreams: 256, maxHeaderListSize: 64 * 1024 } });
  // A session without activity for that long is destroyed (node's default with no listener).
  server.setTimeout(timeouts.idleMs);
  server.on('stream', (stream, headers) => onStream(new NodeStream(stream, headers, address(stream.session!.socket))));
  return server;
}

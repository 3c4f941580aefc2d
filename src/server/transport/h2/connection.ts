// serve's own HTTP/2 server side (RFC 9113) over one TCP connection: frames, HPACK, streams,
// flow control both ways. node:http2 costs a gRPC call twice the CPU of serve's whole REST GET
// over HTTP/1.1 before any of serve's work (docs/benchmarks-protocols.md: its per-stream
// objects, the trip into nghttp2 and back, trailers as a separate event); here a request's
// frames are parsed where they arrive and its answer (headers, data and trailers) goes out as
// one write. It answers only what a server must: no push, no priorities (accepted, unused).
import type net from 'node:net';
import type http from 'node:http';
import { encodeHeaders, hasNulOrLineBreak, HpackDecoder, HpackError } from './hpack.js';

const DATA = 0x0;
const HEADERS = 0x1;
const PRIORITY = 0x2;
const RST_STREAM = 0x3;
const SETTINGS = 0x4;
const PUSH_PROMISE = 0x5;
const PING = 0x6;
const GOAWAY = 0x7;
const WINDOW_UPDATE = 0x8;
const CONTINUATION = 0x9;

const END_STREAM = 0x1;
const ACK = 0x1;
const END_HEADERS = 0x4;
const PADDED = 0x8;
const PRIORITY_FLAG = 0x20;

/** RFC 9113 §7 error codes. */
export const H2_ERROR = {
  NO_ERROR: 0x0, PROTOCOL_ERROR: 0x1, INTERNAL_ERROR: 0x2, FLOW_CONTROL_ERROR: 0x3, STREAM_CLOSED: 0x5,
  FRAME_SIZE_ERROR: 0x6, REFUSED_STREAM: 0x7, CANCEL: 0x8, COMPRESSION_ERROR: 0x9, ENHANCE_YOUR_CALM: 0xb,
} as const;

const SETTINGS_ENABLE_PUSH = 0x2;
const SETTINGS_MAX_CONCURRENT_STREAMS = 0x3;
const SETTINGS_INITIAL_WINDOW_SIZE = 0x4;
const SETTINGS_MAX_FRAME_SIZE = 0x5;
const SETTINGS_MAX_HEADER_LIST_SIZE = 0x6;
/**
 * RFC 8441: serve announces 1 and answers each extended CONNECT with an error (it speaks no
 * protocol over one). haproxy 2.6 makes one of an HTTP/1.1 request carrying `Upgrade`: toward a
 * server announcing 0 it fails the request itself (502) and resets a stream it never opened,
 * which ends its whole connection; answered, its client reads why.
 */
const SETTINGS_ENABLE_CONNECT_PROTOCOL = 0x8;

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
const MAX_WINDOW = 2 ** 31 - 1;
const DEFAULT_WINDOW = 65_535;
/** The largest frame this side takes (the protocol's default; serve announces no other). */
const MAX_FRAME = 16_384;
/** Streams one connection may have open at once; more are refused (REFUSED_STREAM), as nghttp2 does. */
const MAX_CONCURRENT_STREAMS = 256;
/**
 * Each stream's receive window, given back as the body is read: what a stream whose body
 * nobody reads can make serve hold (256 streams × 256 KiB a connection at most). A body up to
 * serve's 1 MiB bound comes in a few windows.
 */
const STREAM_WINDOW = 256 * 1024;
/** The connection's receive window, given back as frames arrive (each stream's bounds what it holds). */
const CONNECTION_WINDOW = 2 ** 24;
/** A request's header list (RFC 7541 sizes): more is answered 431 (`onStream` sees `headersTooLarge`). */
const MAX_HEADER_LIST = 64 * 1024;
/** A header block's compressed bytes, CONTINUATIONs included: more ends the connection (a CONTINUATION flood). */
const MAX_HEADER_BLOCK = 256 * 1024;
/**
 * Streams a peer may reset before serve answered them, per connection, without answering
 * others: past it the connection ends with ENHANCE_YOUR_CALM (the "rapid reset" flood).
 */
const MAX_EARLY_RESETS = 1000;
/** Streams serve closed before the peer ended them whose late frames are dropped quietly (the newest ones). */
const MAX_CLOSED_EARLY = 128;
/**
 * What a header block's parts cost besides their bytes: each CONTINUATION frame is counted as
 * this much more (an empty one costs memory too), and a block may have at most
 * MAX_CONTINUATIONS of them (nghttp2 and Go bound the count as well as the bytes).
 */
const FRAGMENT_OVERHEAD = 64;
const MAX_CONTINUATIONS = 64;
/**
 * Replies to the peer's control frames (PING and SETTINGS acks, resets, window updates) it may
 * leave unread before the connection ends with ENHANCE_YOUR_CALM; nghttp2 keeps at most 1,000.
 */
const MAX_OUTSTANDING_CONTROL = 1000;
/** Bytes written and not yet taken by the peer above which serve stops reading it (until they drain). */
const HIGH_WATER = 1 * 2 ** 20;
/** Bytes the peer leaves unread (answers it asked for and never takes) before serve gives up on it. */
const MAX_UNREAD = 64 * 2 ** 20;
/**
 * A request with a content-length up to this is handed out only once its whole body came and
 * matched it (it fits the stream's first window): a mismatch resets a stream whose handler
 * never ran. A longer one is handed out at once; a mismatch then fails its body's read.
 */
const HOLD_BODY_UP_TO = STREAM_WINDOW;
/** A field name with a character outside a lowercase token (RFC 9110 §5.1, RFC 9113 §8.2.1). */
const BAD_NAME = /[^a-z0-9!#$%&'*+\-.^_`|~]/;

/** Request headers HTTP/2 forbids (RFC 9113 §8.2.2). */
const CONNECTION_SPECIFIC = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade']);
/** Answer headers HTTP/2 has no place for; dropped. */
const NOT_SENT = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade']);
/** Headers whose first value counts and later ones are dropped, as node's HTTP servers take them. */
const SINGLE_VALUE = new Set([
  ':method', ':path', ':scheme', ':authority', 'authorization', 'content-type', 'content-length', 'content-encoding',
  'host', 'user-agent', 'if-match', 'if-none-match', 'if-modified-since', 'if-unmodified-since', 'range', 'referer',
]);
const REQUEST_PSEUDO = new Set([':method', ':path', ':scheme', ':authority', ':protocol']);

/** A stream the peer ended the protocol's way (a connection error ends every stream). */
export class StreamGone extends Error {}

class ConnectionError extends Error {
  constructor(readonly code: number, message: string) {
    super(message);
  }
}

class StreamError extends Error {
  constructor(readonly code: number, message: string) {
    super(message);
  }
}

/** A block of request headers as node gives them: lowercase names, repeated ones joined. */
type Headers = http.IncomingHttpHeaders;

/**
 * A request stream as the server's caller sees it: this folder's own (H2Stream) or
 * node:http2's behind node-stream.ts (`serve --http2 node`).
 */
export interface RequestStream {
  readonly headers: Headers;
  /** A header list over the bound: answer 431 without reading it further. */
  readonly headersTooLarge: boolean;
  /**
   * An extended CONNECT (RFC 8441; a proxy's form of an HTTP/1.1 Upgrade): its `:protocol`.
   * serve speaks none over one: the caller answers it with an error.
   */
  readonly extendedConnect?: string | undefined;
  readonly headersSent: boolean;
  readonly address: string;
  body(max: number, tooLarge: () => Error, gone: () => Error): Promise<Buffer>;
  read(): AsyncGenerator<Uint8Array>;
  discard(): void;
  respond(status: number, headers: http.OutgoingHttpHeaders, body?: string | Uint8Array, trailers?: http.OutgoingHttpHeaders): void;
  writeHead(status: number, headers: http.OutgoingHttpHeaders): void;
  write(chunk: Uint8Array): Promise<void>;
  end(trailers?: http.OutgoingHttpHeaders): void;
  reset(code?: number): void;
  gone(): boolean;
  onClose(listener: () => void): void;
}

/** One request stream: its headers and body as they arrive, its answer as serve sends it. */
export class H2Stream implements RequestStream {
  readonly headers: Headers;
  /** A header list over MAX_HEADER_LIST: answer 431 without reading it further. */
  readonly headersTooLarge: boolean;
  /** Body bytes not yet taken. */
  private chunks: Buffer[] = [];
  private received = 0;
  /** Bytes taken since the window was last given back. */
  private taken = 0;
  /** The peer sent END_STREAM. */
  ended = false;
  /** Reset by either side, or the connection ended: nothing more will come or go. */
  closed = false;
  /** Headers sent. */
  headersSent = false;
  /** END_STREAM sent. */
  private finished = false;
  /** What to send once the peer's window allows it. */
  private pending: { data: Buffer; offset: number; end: boolean; trailers?: Buffer | undefined }[] = [];
  sendWindow: number;
  private wake: (() => void) | undefined;
  private closeListeners: (() => void)[] | undefined;
  private drained: (() => void)[] | undefined;
  private expectedLength: number | undefined;
  /** @internal When the body started to come (for the body deadline); 0 once it ended. */
  openedAt = 0;
  /** @internal Handed out only once its body came whole and matched its content-length. */
  held = false;
  readonly extendedConnect: string | undefined;

  constructor(readonly id: number, private readonly conn: H2Connection, headers: Headers, tooLarge: boolean, sendWindow: number) {
    this.headers = headers;
    this.headersTooLarge = tooLarge;
    const protocol = headers[':protocol'];
    if (protocol !== undefined) this.extendedConnect = protocol as string;
    this.sendWindow = sendWindow;
    const length = headers['content-length'];
    if (length !== undefined) this.expectedLength = Number(length);
  }

  get address(): string {
    return this.conn.address;
  }

  /** @internal The content-length the request announced, if any. */
  get announcedLength(): number | undefined {
    return this.expectedLength;
  }

  // ---- the request body ----

  /** @internal A DATA frame's payload arrived. */
  push(data: Buffer, end: boolean): void {
    if (this.closed) return;
    this.received += data.length;
    // Checked before anything is kept: a body that disagrees never reads as complete (§8.1.1).
    const expected = this.expectedLength;
    if (expected !== undefined && (this.received > expected || (end && this.received !== expected))) {
      throw new StreamError(H2_ERROR.PROTOCOL_ERROR, 'content-length does not match the body');
    }
    if (data.length) this.chunks.push(data);
    if (end) {
      this.ended = true;
      this.openedAt = 0;
    }
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  /** The body bytes that have arrived and not been taken; the window is given back for them. */
  private take(): Buffer[] {
    const chunks = this.chunks;
    if (!chunks.length) return chunks;
    this.chunks = [];
    let n = 0;
    for (const c of chunks) n += c.length;
    this.taken += n;
    if (!this.ended && this.taken >= STREAM_WINDOW / 2) {
      this.conn.windowUpdate(this.id, this.taken);
      this.taken = 0;
    }
    return chunks;
  }

  /** Waits for more of the body (or its end); rejects when the stream is gone. */
  private more(): Promise<void> {
    return new Promise((resolve) => {
      this.wake = resolve;
    });
  }

  /**
   * The whole body: at most `max` bytes, past which the rest is read and dropped and the
   * promise rejects with `tooLarge()`; rejects with `gone()` when the peer resets first.
   */
  body(max: number, tooLarge: () => Error, gone: () => Error): Promise<Buffer> {
    if (this.ended) {
      const chunks = this.take();
      if (this.received > max) return Promise.reject(tooLarge());
      return Promise.resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    }
    return this.bodySlow(max, tooLarge, gone);
  }

  private async bodySlow(max: number, tooLarge: () => Error, gone: () => Error): Promise<Buffer> {
    const kept: Buffer[] = [];
    let size = 0;
    for (;;) {
      for (const c of this.take()) {
        size += c.length;
        if (size <= max) kept.push(c);
      }
      if (this.ended) break;
      if (this.closed) throw gone();
      await this.more();
    }
    if (size > max) throw tooLarge();
    return kept.length === 1 ? kept[0]! : Buffer.concat(kept);
  }

  /** The body as it arrives, chunk by chunk (a stream of messages); throws StreamGone on a reset. */
  async *read(): AsyncGenerator<Uint8Array> {
    for (;;) {
      const chunks = this.take();
      if (chunks.length) {
        // More may come (and the end with it) while these are taken.
        yield* chunks;
        continue;
      }
      if (this.closed && !this.ended) throw new StreamGone('the stream was reset');
      if (this.ended || this.closed) return;
      await this.more();
    }
  }

  /** Drops whatever of the body comes (an answer that needs none of it). */
  discard(): void {
    this.take();
    if (!this.ended && !this.closed) void this.more().then(() => this.discard());
  }

  // ---- the answer ----

  /** The whole answer in one write: headers, the body (none for an empty one) and trailers. */
  respond(status: number, headers: http.OutgoingHttpHeaders, body?: string | Uint8Array, trailers?: http.OutgoingHttpHeaders): void {
    if (this.closed || this.headersSent) return;
    const data = body === undefined || body.length === 0 ? undefined : typeof body === 'string' ? Buffer.from(body) : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
    const block = headerBlock(status, headers);
    this.headersSent = true;
    const trailerBlock = trailers ? headerBlock(undefined, trailers) : undefined;
    const size = data ? data.length : 0;
    if (size <= this.sendWindow && this.conn.sendAnswer(this.id, block, data, trailerBlock)) {
      this.sendWindow -= size;
      this.finished = true;
      this.afterFinish();
      return;
    }
    if (!data && !trailerBlock) {
      // The HEADERS (and CONTINUATION) frames end the stream themselves.
      this.conn.sendHeaders(this.id, block, true);
      this.finished = true;
      this.afterFinish();
      return;
    }
    this.conn.sendHeaders(this.id, block, false);
    this.send(data ?? EMPTY, true, trailerBlock);
  }

  /** Sends the headers of an answer whose body follows by `write`. */
  writeHead(status: number, headers: http.OutgoingHttpHeaders): void {
    if (this.closed || this.headersSent) return;
    this.headersSent = true;
    this.conn.sendHeaders(this.id, encodeHeaders(status, fieldsOf(headers)), false);
  }

  /** Sends part of the body; resolves once the peer's window has taken it. */
  write(chunk: Uint8Array): Promise<void> {
    if (this.closed) return Promise.reject(new StreamGone('the stream was reset'));
    this.send(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength), false, undefined);
    if (!this.pending.length) return Promise.resolve();
    return new Promise((resolve) => (this.drained ??= []).push(resolve));
  }

  /** Ends the answer, with trailers if given. */
  end(trailers?: http.OutgoingHttpHeaders): void {
    if (this.closed || this.finished) return;
    if (!trailers) this.send(EMPTY, true, undefined);
    else this.send(EMPTY, true, encodeHeaders(undefined, fieldsOf(trailers)));
  }

  private send(data: Buffer, end: boolean, trailers: Buffer | undefined): void {
    this.pending.push({ data, offset: 0, end, trailers });
    this.flush();
  }

  /** @internal Sends what the windows allow of the pending answer. */
  flush(): void {
    while (this.pending.length && !this.closed) {
      const part = this.pending[0]!;
      const left = part.data.length - part.offset;
      const n = Math.max(0, Math.min(left, this.sendWindow, this.conn.sendWindow));
      // Held by the connection's window: flushed again when the peer gives some back.
      if (n < left && this.conn.sendWindow <= this.sendWindow) this.conn.waitWindow(this);
      if (n === 0 && left > 0) return;
      const last = n === left;
      this.sendWindow -= n;
      const endsHere = last && part.end && !part.trailers;
      if (n > 0 || endsHere) this.conn.sendData(this.id, part.data.subarray(part.offset, part.offset + n), endsHere);
      part.offset += n;
      if (!last) return;
      this.pending.shift();
      if (part.end) {
        if (part.trailers) this.conn.sendHeaders(this.id, part.trailers, true);
        this.finished = true;
        this.afterFinish();
        return;
      }
    }
    if (!this.pending.length && this.drained) {
      const drained = this.drained;
      this.drained = undefined;
      for (const resolve of drained) resolve();
    }
  }

  private afterFinish(): void {
    if (this.ended) this.close(undefined);
    // Answered before the body ended: the peer need send no more of it (RFC 9113 §8.1).
    else this.close(H2_ERROR.NO_ERROR);
  }

  /** Ends the stream at once, sending RST_STREAM with `code` (none when undefined). */
  reset(code: number = H2_ERROR.INTERNAL_ERROR): void {
    this.close(code);
  }

  /** Whether the answer can no longer be sent (reset, or already sent). */
  gone(): boolean {
    return this.closed || this.headersSent;
  }

  onClose(listener: () => void): void {
    if (this.closed) queueMicrotask(listener);
    else (this.closeListeners ??= []).push(listener);
  }

  /** @internal The stream ends: by the peer's reset (`code` undefined, `sendReset` false), serve's, or the end of both sides. */
  close(code: number | undefined, sendReset = true): void {
    if (this.closed) return;
    this.closed = true;
    this.pending = [];
    if (code !== undefined && sendReset) this.conn.sendReset(this.id, code);
    this.conn.forget(this, !sendReset);
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
    const drained = this.drained;
    this.drained = undefined;
    if (drained) for (const resolve of drained) resolve();
    const listeners = this.closeListeners;
    this.closeListeners = undefined;
    if (listeners) for (const l of listeners) l();
  }
}

const EMPTY = Buffer.alloc(0);

/** Header blocks of frozen header sets (an RPC's constant headers and trailers), encoded once per status. */
const frozenBlocks = new WeakMap<object, Map<number | undefined, Buffer>>();

function headerBlock(status: number | undefined, headers: http.OutgoingHttpHeaders): Buffer {
  if (!Object.isFrozen(headers)) return encodeHeaders(status, fieldsOf(headers));
  let byStatus = frozenBlocks.get(headers);
  if (!byStatus) frozenBlocks.set(headers, (byStatus = new Map<number | undefined, Buffer>()));
  let block = byStatus.get(status);
  if (!block) byStatus.set(status, (block = encodeHeaders(status, fieldsOf(headers))));
  return block;
}

/** An answer's headers as fields: numbers as text, each value of an array its own field, HTTP/1.1's connection headers left out. */
function fieldsOf(headers: http.OutgoingHttpHeaders): [string, string][] {
  const fields: [string, string][] = [];
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined) continue;
    const lower = name.toLowerCase();
    if (NOT_SENT.has(lower) || lower.startsWith(':')) continue;
    if (Array.isArray(value)) for (const v of value) fields.push([lower, v]);
    else fields.push([lower, typeof value === 'string' ? value : String(value)]);
  }
  return fields;
}

/** How long each phase of a connection may take (ms); past it the connection (or the stream) ends. */
export interface H2Timeouts {
  /** From the connection to the client's preface and first SETTINGS. */
  prefaceMs: number;
  /** From a HEADERS frame to the end of its header block (its CONTINUATION frames). */
  headersMs: number;
  /** From a request's headers to the end of its body: past it the stream is reset (CANCEL). */
  bodyMs: number;
  /** A connection with no open stream: past it, GOAWAY (NO_ERROR) and the connection ends. */
  idleMs: number;
}

/** HTTP/1.1's (node's server as serve sets it): keep-alive 65 s, a request 120 s; a preface or a header block 10 s. */
export const DEFAULT_H2_TIMEOUTS: Readonly<H2Timeouts> = Object.freeze({ prefaceMs: 10_000, headersMs: 10_000, bodyMs: 120_000, idleMs: 65_000 });

/** After a connection ends this side, how long the peer has to close it before it is cut. */
const LINGER_MS = 2000;

export interface H2Options {
  /** A new request stream, its headers complete (and whatever of its body came with them). */
  onStream: (stream: RequestStream) => void;
  /** The limiter's key of the peer's address. */
  address: string;
  /** Each phase's deadline; DEFAULT_H2_TIMEOUTS when not given. */
  timeouts?: H2Timeouts;
}

/** One HTTP/2 connection: the preface, then frames both ways until either side ends it. */
export class H2Connection {
  readonly address: string;
  private readonly socket: net.Socket;
  private readonly onStream: (stream: RequestStream) => void;
  /** Checks each field as it decodes it: once per literal, once per table entry (an indexed field costs nothing). */
  private readonly decoder = new HpackDecoder(4096, fieldWellFormed);
  private readonly streams = new Map<number, H2Stream>();
  private buffered: Buffer = EMPTY;
  private prefaceSeen = false;
  private settingsSeen = false;
  /** The newest stream the peer opened (streams at or under it that are not open are closed). */
  private lastStreamId = 0;
  /** A header block spread over HEADERS and CONTINUATION frames; `cost` counts each frame's overhead too. */
  private partial: { id: number; flags: number; parts: Buffer[]; cost: number; frames: number; since: number } | undefined;
  /** The peer's settings this side follows. */
  private peerInitialWindow = DEFAULT_WINDOW;
  private peerMaxFrame = MAX_FRAME;
  sendWindow = DEFAULT_WINDOW;
  /** Connection-level bytes received and not yet given back. */
  private received = 0;
  /** Streams waiting for the connection's window to send. */
  private readonly blocked = new Set<H2Stream>();
  private goingAway = false;
  private ended = false;
  private earlyResets = 0;
  /** A stream whose HEADERS named itself as its dependency: malformed. */
  private selfDependent = 0;
  /** Streams made in this read, handed out once the whole read is parsed (their bodies with them). */
  private fresh: H2Stream[] = [];
  /** While a read is parsed, what it makes serve send: written at its end, in one write. */
  private readonly batch: Buffer[] = [];
  /** A read is being parsed: what it makes serve send goes into `batch`. */
  private batching = false;
  /** Replies to the peer's control frames written and not yet taken by it. */
  private outstandingControl = 0;
  /** Not read until what was written drains (the peer reads too little of it). */
  private paused = false;
  /** Streams serve closed before the peer ended them: what is still in flight for them is dropped, not an error. */
  private readonly closedEarly = new Set<number>();
  private readonly timeouts: H2Timeouts;
  private readonly startedAt = Date.now();
  /** Since when no stream is open. */
  private idleSince = this.startedAt;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;

  constructor(socket: net.Socket, opts: H2Options) {
    this.socket = socket;
    this.onStream = opts.onStream;
    this.address = opts.address;
    this.timeouts = opts.timeouts ?? DEFAULT_H2_TIMEOUTS;
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', () => socket.destroy());
    socket.on('close', () => this.onSocketClose());
    socket.on('drain', () => this.onDrain());
    const own = [
      [SETTINGS_MAX_CONCURRENT_STREAMS, MAX_CONCURRENT_STREAMS], [SETTINGS_INITIAL_WINDOW_SIZE, STREAM_WINDOW],
      [SETTINGS_MAX_HEADER_LIST_SIZE, MAX_HEADER_LIST], [SETTINGS_ENABLE_CONNECT_PROTOCOL, 1],
    ] as const;
    const settings = Buffer.alloc(9 + 6 * own.length);
    let p = frameHeader(settings, 0, 6 * own.length, SETTINGS, 0, 0);
    for (const [id, value] of own) {
      settings.writeUInt16BE(id, p);
      settings.writeUInt32BE(value, p + 2);
      p += 6;
    }
    this.write(settings);
    this.windowUpdate(0, CONNECTION_WINDOW - DEFAULT_WINDOW);
    this.arm(this.startedAt + this.timeouts.prefaceMs);
  }

  /** Stops taking new streams (GOAWAY); the connection ends once the open ones are answered. */
  shutdown(): void {
    if (this.goingAway || this.ended) return;
    this.goingAway = true;
    this.goAway(H2_ERROR.NO_ERROR);
    if (!this.streams.size) this.end();
  }

  /** Ends the connection now, open streams and all. */
  destroy(): void {
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    // After a connection error nothing more is read: the peer has its GOAWAY.
    if (this.ended) return;
    const buf = this.buffered.length ? Buffer.concat([this.buffered, chunk]) : chunk;
    let pos = 0;
    this.batching = true;
    try {
      if (!this.prefaceSeen) {
        if (buf.length < PREFACE.length) {
          this.buffered = buf;
          this.batching = false;
          return;
        }
        if (!buf.subarray(0, PREFACE.length).equals(PREFACE)) throw new ConnectionError(H2_ERROR.PROTOCOL_ERROR, 'no connection preface');
        this.prefaceSeen = true;
        pos = PREFACE.length;
      }
      while (buf.length - pos >= 9 && !this.ended) {
        const length = (buf[pos]! << 16) | (buf[pos + 1]! << 8) | buf[pos + 2]!;
        if (length > MAX_FRAME) throw new ConnectionError(H2_ERROR.FRAME_SIZE_ERROR, `a frame of ${length} bytes`);
        if (buf.length - pos - 9 < length) break;
        const type = buf[pos + 3]!;
        const flags = buf[pos + 4]!;
        const id = buf.readUInt32BE(pos + 5) & 0x7fffffff;
        const payload = buf.subarray(pos + 9, pos + 9 + length);
        pos += 9 + length;
        this.frame(type, flags, id, payload);
      }
      this.buffered = pos === buf.length ? EMPTY : Buffer.from(buf.subarray(pos));
    } catch (err) {
      this.buffered = EMPTY;
      // Anything else thrown is a bug of this file's; it ends the connection, not serve.
      this.fail(err instanceof ConnectionError ? err.code : err instanceof HpackError ? H2_ERROR.COMPRESSION_ERROR : H2_ERROR.INTERNAL_ERROR);
    }
    this.flushBatch();
    this.handOut();
  }

  /** What this read made serve send, in one write. */
  private flushBatch(): void {
    this.batching = false;
    const batch = this.batch;
    if (!batch.length) return;
    const out = batch.length === 1 ? batch[0]! : Buffer.concat(batch);
    batch.length = 0;
    this.write(out);
  }

  private onDrain(): void {
    this.outstandingControl = 0;
    if (this.paused && !this.ended) {
      this.paused = false;
      this.socket.resume();
    }
  }

  private handOut(): void {
    if (!this.fresh.length) return;
    const fresh = this.fresh;
    this.fresh = [];
    for (const stream of fresh) {
      if (stream.closed) continue;
      try {
        this.onStream(stream);
      } catch {
        stream.reset(H2_ERROR.INTERNAL_ERROR);
      }
    }
  }

  private frame(type: number, flags: number, id: number, payload: Buffer): void {
    if (!this.settingsSeen && type !== SETTINGS) throw new ConnectionError(H2_ERROR.PROTOCOL_ERROR, 'the first frame must be SETTINGS');
    if (this.partial && type !== CONTINUATION) throw new ConnectionError(H2_ERROR.PROTOCOL_ERROR, 'a header block was cut by another frame');
    switch (type) {
      case DATA: return this.onDataFrame(flags, id, payload);
      case HEADERS: return this.onHeaders(flags, id, payload);
      case CONTINUATION: return this.onContinuation(flags, id, payload);
      case PRIORITY:
        if (id === 0) throw new ConnectionError(H2_ERROR.PROTOCOL_ERROR, 'PRIORITY on stream 0');
        if (payload.length !== 5) this.streamError(id, H2_ERROR.FRAME_SIZE_ERROR);
        else if ((payload.readUInt32BE(0) & 0x7fffffff) === id) this.streamError(id, H2_ERROR.PROTOCOL_ERROR);
        return;
      case RST_STREAM: return this.onReset(id, payload);
      case SETTINGS: return this.onSettings(flags, id, payload);
      case PUSH_PROMISE: throw new ConnectionError(H2_ERROR.PROTOCOL_ERROR, 'a client may not push');
      case PING:
        if (id !== 0) throw new ConnectionError(H2_ERROR.PROTOCOL_ERROR, 'PING on a stream');
        if (payload.length !== 8) throw new ConnectionError(H2_ERROR.FRAME_SIZE_ERROR, 'PING of the wrong size');
        if (!(flags & ACK)) {
          const out = Buffer.allocUnsafe(17);
          frameHeader(out, 0, 8, PING, ACK, 0);
          payload.copy(out, 9);
          this.control(out);
        }
        return;
      case GOAWAY:
        if (id !== 0) throw new ConnectionError(H2_ERROR.PROTOCOL_ERROR, 'GOAWAY on a stream');
        if (payload.length < 8) throw new ConnectionError(H2_ERROR.FRAME_SIZE_ERROR, 'GOAWAY too short');
        // No new streams come; the peer closes the connection (or the idle deadline does).
        this.goingAway = true;
        return;
      case WINDOW_UPDATE: return this.onWindowUpdate(id, payload);
      default: return; // Unknown frame types are ignored (§5.5).
    }
  }

  private onSettings(flags: number, id: number, payload: Buffer): void {
    if (id !== 0) throw new ConnectionError(H2_ERROR.PROTOCOL_ERROR, 'SETTINGS on a stream');
    if (flags & ACK) {
      if (payload.length) throw new ConnectionError(H2_ERROR.FRAME_SIZE_ERROR, 'SETTINGS ack with a payload');
      return;
    }
    if (payload.length % 6) throw new ConnectionError(H2_ERROR.FRAME_SIZE_ERROR, 'SETTINGS of the wrong size');
    this.settingsSeen = true;
    for (let p = 0; p < payload.length; p += 6) {
      const key = payload.readUInt16BE(p);
      const value = payload.readUInt32BE(p + 2);
      if (key === SETTINGS_ENABLE_PUSH && value > 1) throw new ConnectionError(H2_ERROR.PROTOCOL_ERROR, 'ENABLE_PUSH not 0 or 1');
      if (key === SETTINGS_INITIAL_WINDOW_SIZE) {
        if (value > MAX_WINDOW) throw new ConnectionError(H2_ERROR.FLOW_CONTROL_ERROR, 'INITIAL_WINDOW_SIZE too large');
        const delta = value - this.peerInitialWindow;
        this.peerInitialWindow = value;
        for (const stream of this.streams.values()) {
          stream.sendWindow += delta;
          if (stream.sendWindow > MAX_WINDOW) throw new ConnectionError(H2_ERROR.FLOW_CONTROL_ERROR, 'a stream window over 2^31-1');
        }
      }
      if (key === SETTINGS_MAX_FRAME_SIZE) {
        if (value < MAX_FRAME || value > 16_777_215) throw new ConnectionError(H2_ERROR.PROTOCOL_ERROR, 'MAX_FRAME_SIZE out of range');
        this.peerMaxFrame = value;
      }
      // HEADER_TABLE_SIZE and MAX_CONCURRENT_STREAMS: serve's encoder keeps no table and it pushes nothing.
    }
    const ack = Buffer.allocUnsafe(9);
    frameHeader(ack, 0, 0, SETTINGS, ACK, 0);
    this.control(ack);
    for (const stream of this.streams.values()) stream.flush();
  }

  private onHeaders(flags: number, id: number, payload: Buffer): void {
    if (id === 0) throw new ConnectionError(H2_ERROR.PROTOCOL_ERROR, 'HEADERS on stream 0');
    let start = 0;
    let end = payload.length;
    if (flags & PADDED) {
      if (!payload.length) throw new ConnectionError(H2_ERROR.PROTOCOL_ERROR, 'padding longer than the frame');
      end -= payload[0]!;
      start = 1;
    }
    if (flags & PRIORITY_FLAG) {
      if (end - start < 5) throw new ConnectionError(H2_ERROR.FRAME_SIZE_ERROR, 'HEADERS too short for its priority');
      // A stream cannot depend on itself (§5.3.1): the block is still decoded (the table is the connection's).
      if ((payload.readUInt32BE(start) & 0x7fffffff) === id) this.selfDependent = id;
      start += 5;
    }
    if (end < start) throw new ConnectionError(H2_ERROR.PROTOCOL_ERROR, 'padding longer than the frame');
    const fragment = payload.subarray(start, end);
    if (flags & END_HEADERS) return this.headerBlock(id, flags, fragment);
    const since = Date.now();
    this.partial = { id, flags, parts: [Buffer.from(fragment)], cost: fragment.length + FRAGMENT_OVERHEAD, frames: 0, since };
    this.arm(since + this.timeouts.headersMs);
  }

  private onContinuation(flags: number, id: number, payload: Buffer): void {
    const partial = this.partial;
    if (!partial || partial.id !== id) throw new ConnectionError(H2_ERROR.PROTOCOL_ERROR, 'CONTINUATION without its HEADERS');
    partial.cost += payload.length + FRAGMENT_OVERHEAD;
    if (partial.cost > MAX_HEADER_BLOCK || ++partial.frames > MAX_CONTINUATIONS) throw new ConnectionError(H2_ERROR.ENHANCE_YOUR_CALM, 'a header block too large');
    // An empty fragment adds nothing to the block: nothing of it is kept.
    if (payload.length) partial.parts.push(Buffer.from(payload));
    if (flags & END_HEADERS) {
      this.partial = undefined;
      this.headerBlock(id, partial.flags, Buffer.concat(partial.parts));
    }
  }

  private headerBlock(id: number, flags: number, block: Buffer): void {
    // Decoded whatever becomes of the stream: the table is the connection's.
    const fields = this.decoder.decode(block);
    const existing = this.streams.get(id);
    if (existing) {
      // A stream the peer already ended (half-closed remote) takes no more frames (§5.1).
      if (existing.ended) return this.streamError(id, H2_ERROR.STREAM_CLOSED);
      // Trailers of a request: they end its body, and serve reads nothing else of them (§8.1: no pseudo-headers).
      if (!(flags & END_STREAM) || this.decoder.failedCheck || fields.some(([name]) => name.charCodeAt(0) === 58)) return this.streamError(id, H2_ERROR.PROTOCOL_ERROR);
      this.guard(existing, () => existing.push(EMPTY, true));
      this.release(existing);
      return;
    }
    if (id % 2 === 0) throw new ConnectionError(H2_ERROR.PROTOCOL_ERROR, 'a client stream with an even id');
    if (id <= this.lastStreamId) {
      // Trailers in flight when serve closed the stream early are dropped (§5.1); a closed
      // or skipped (implicitly closed) stream's id used again is an error of the connection's.
      if (flags & END_STREAM && this.closedEarly.has(id)) return;
      throw new ConnectionError(H2_ERROR.PROTOCOL_ERROR, 'HEADERS on a closed stream');
    }
    this.lastStreamId = id;
    if (this.goingAway) return this.streamError(id, H2_ERROR.REFUSED_STREAM);
    if (this.streams.size >= MAX_CONCURRENT_STREAMS) return this.streamError(id, H2_ERROR.REFUSED_STREAM);
    const parsed = this.selfDependent === id || this.decoder.failedCheck ? undefined : requestHeaders(fields);
    if (!parsed) return this.streamError(id, H2_ERROR.PROTOCOL_ERROR);
    const stream = new H2Stream(id, this, parsed.headers, parsed.size > MAX_HEADER_LIST, this.peerInitialWindow);
    this.streams.set(id, stream);
    if (flags & END_STREAM) this.guard(stream, () => stream.push(EMPTY, true));
    if (stream.closed) return;
    if (!stream.ended) {
      stream.openedAt = Date.now();
      this.arm(stream.openedAt + this.timeouts.bodyMs);
      const length = stream.announcedLength;
      // A body that fits the stream's first window is waited for whole before anyone sees the request.
      if (length !== undefined && length <= HOLD_BODY_UP_TO && !stream.headersTooLarge) {
        stream.held = true;
        return;
      }
    }
    this.fresh.push(stream);
  }

  /** A held stream whose body came whole is handed out with this read's new streams. */
  private release(stream: H2Stream): void {
    if (!stream.held || !stream.ended || stream.closed) return;
    stream.held = false;
    this.fresh.push(stream);
  }

  private onDataFrame(flags: number, id: number, payload: Buffer): void {
    if (id === 0) throw new ConnectionError(H2_ERROR.PROTOCOL_ERROR, 'DATA on stream 0');
    // Every DATA frame counts against the connection's window, padding and all, whatever its stream.
    this.received += payload.length;
    if (this.received >= CONNECTION_WINDOW / 2) {
      this.windowUpdate(0, this.received);
      this.received = 0;
    }
    let data = payload;
    if (flags & PADDED) {
      if (!payload.length || payload[0]! >= payload.length) throw new ConnectionError(H2_ERROR.PROTOCOL_ERROR, 'padding longer than the frame');
      data = payload.subarray(1, payload.length - payload[0]!);
    }
    const stream = this.streams.get(id);
    if (!stream) {
      if (id > this.lastStreamId) throw new ConnectionError(H2_ERROR.PROTOCOL_ERROR, 'DATA on an idle stream');
      // A stream serve closed (reset, or answered before its body ended): what was in flight is
      // dropped (§5.1); on a stream the peer had closed, it is an error of that stream's.
      if (!this.closedEarly.has(id)) this.streamError(id, H2_ERROR.STREAM_CLOSED);
      return;
    }
    if (stream.ended) return this.streamError(id, H2_ERROR.STREAM_CLOSED);
    // The frame is copied out of the read buffer (which the next read reuses) only when kept.
    this.guard(stream, () => stream.push(data.length ? Buffer.from(data) : EMPTY, (flags & END_STREAM) !== 0));
    this.release(stream);
  }

  private onReset(id: number, payload: Buffer): void {
    if (id === 0) throw new ConnectionError(H2_ERROR.PROTOCOL_ERROR, 'RST_STREAM on stream 0');
    if (payload.length !== 4) throw new ConnectionError(H2_ERROR.FRAME_SIZE_ERROR, 'RST_STREAM of the wrong size');
    if (id > this.lastStreamId) throw new ConnectionError(H2_ERROR.PROTOCOL_ERROR, 'RST_STREAM on an idle stream');
    const stream = this.streams.get(id);
    if (!stream) return;
    if (!stream.headersSent && ++this.earlyResets > MAX_EARLY_RESETS) throw new ConnectionError(H2_ERROR.ENHANCE_YOUR_CALM, 'too many streams reset before their answer');
    stream.close(undefined, false);
  }

  private onWindowUpdate(id: number, payload: Buffer): void {
    if (payload.length !== 4) throw new ConnectionError(H2_ERROR.FRAME_SIZE_ERROR, 'WINDOW_UPDATE of the wrong size');
    const increment = payload.readUInt32BE(0) & 0x7fffffff;
    if (id === 0) {
      if (increment === 0) throw new ConnectionError(H2_ERROR.PROTOCOL_ERROR, 'a WINDOW_UPDATE of 0');
      this.sendWindow += increment;
      if (this.sendWindow > MAX_WINDOW) throw new ConnectionError(H2_ERROR.FLOW_CONTROL_ERROR, 'the connection window over 2^31-1');
      const blocked = [...this.blocked];
      this.blocked.clear();
      for (const stream of blocked) stream.flush();
      return;
    }
    const stream = this.streams.get(id);
    if (!stream) {
      if (id > this.lastStreamId) throw new ConnectionError(H2_ERROR.PROTOCOL_ERROR, 'WINDOW_UPDATE on an idle stream');
      return;
    }
    if (increment === 0) return this.streamError(id, H2_ERROR.PROTOCOL_ERROR);
    stream.sendWindow += increment;
    if (stream.sendWindow > MAX_WINDOW) return this.streamError(id, H2_ERROR.FLOW_CONTROL_ERROR);
    stream.flush();
  }

  /** Runs a step of a stream's; a stream error it throws resets that stream alone. */
  private guard(stream: H2Stream, step: () => void): void {
    try {
      step();
    } catch (err) {
      if (!(err instanceof StreamError)) throw err;
      stream.close(err.code);
    }
  }

  private streamError(id: number, code: number): void {
    const stream = this.streams.get(id);
    if (stream) stream.close(code);
    else {
      this.sendReset(id, code);
      if (id <= this.lastStreamId) this.closedEarlyAdd(id);
    }
    this.countControl();
  }

  // ---- sending ----

  private write(buf: Buffer): void {
    if (this.ended) return;
    if (this.batching) {
      this.batch.push(buf);
      return;
    }
    // Each answer is one buffer: written at once (corking them would cost a writev of several).
    const socket = this.socket;
    socket.write(buf);
    const unread = socket.writableLength;
    if (unread === 0) {
      this.outstandingControl = 0;
      return;
    }
    // A peer that reads nothing of what it asked for does not get serve's memory: past the
    // high-water mark it is not read until it takes what it has; past MAX_UNREAD it is cut.
    if (unread > MAX_UNREAD) socket.destroy();
    else if (unread > HIGH_WATER && !this.paused) {
      this.paused = true;
      socket.pause();
    }
  }

  /** A reply to a control frame of the peer's: the peer may leave at most MAX_OUTSTANDING_CONTROL of them unread. */
  private control(buf: Buffer): void {
    this.write(buf);
    this.countControl();
  }

  private countControl(): void {
    if (this.batching && ++this.outstandingControl > MAX_OUTSTANDING_CONTROL) {
      throw new ConnectionError(H2_ERROR.ENHANCE_YOUR_CALM, 'too many control frames left unanswered');
    }
  }

  /**
   * @internal A whole answer in one buffer and one write: its HEADERS, DATA and trailers'
   * frames. False, sending nothing, when it does not fit the connection's window or a header
   * block needs CONTINUATION frames (the stream then sends it part by part).
   */
  sendAnswer(id: number, block: Buffer, data: Buffer | undefined, trailers: Buffer | undefined): boolean {
    const max = this.peerMaxFrame;
    const size = data ? data.length : 0;
    if (size > this.sendWindow || block.length > max || (trailers && trailers.length > max)) return false;
    const dataFrames = Math.ceil(size / max);
    const out = Buffer.allocUnsafe(9 + block.length + size + 9 * dataFrames + (trailers ? 9 + trailers.length : 0));
    const endsWithHeaders = !data && !trailers;
    let o = frameHeader(out, 0, block.length, HEADERS, END_HEADERS | (endsWithHeaders ? END_STREAM : 0), id);
    o += block.copy(out, o);
    if (data) {
      for (let p = 0; p < size; p += max) {
        const n = Math.min(max, size - p);
        o = frameHeader(out, o, n, DATA, !trailers && p + n === size ? END_STREAM : 0, id);
        o += data.copy(out, o, p, p + n);
      }
    }
    if (trailers) {
      o = frameHeader(out, o, trailers.length, HEADERS, END_HEADERS | END_STREAM, id);
      trailers.copy(out, o);
    }
    this.sendWindow -= size;
    this.write(out);
    return true;
  }

  /** @internal */
  sendHeaders(id: number, block: Buffer, endStream: boolean): void {
    const max = this.peerMaxFrame;
    if (block.length <= max) {
      const out = Buffer.allocUnsafe(9 + block.length);
      frameHeader(out, 0, block.length, HEADERS, END_HEADERS | (endStream ? END_STREAM : 0), id);
      block.copy(out, 9);
      this.write(out);
      return;
    }
    for (let p = 0; p < block.length; p += max) {
      const part = block.subarray(p, p + max);
      const last = p + max >= block.length;
      const out = Buffer.allocUnsafe(9 + part.length);
      const type = p === 0 ? HEADERS : CONTINUATION;
      frameHeader(out, 0, part.length, type, (last ? END_HEADERS : 0) | (p === 0 && endStream ? END_STREAM : 0), id);
      part.copy(out, 9);
      this.write(out);
    }
  }

  /** @internal DATA frames of `data` (within the windows the stream checked), END_STREAM on the last when `end`. */
  sendData(id: number, data: Buffer, end: boolean): void {
    this.sendWindow -= data.length;
    const max = this.peerMaxFrame;
    if (data.length <= max) {
      const out = Buffer.allocUnsafe(9 + data.length);
      frameHeader(out, 0, data.length, DATA, end ? END_STREAM : 0, id);
      data.copy(out, 9);
      this.write(out);
      return;
    }
    const frames = Math.ceil(data.length / max);
    const out = Buffer.allocUnsafe(data.length + 9 * frames);
    let o = 0;
    for (let p = 0; p < data.length; p += max) {
      const part = data.subarray(p, p + max);
      o = frameHeader(out, o, part.length, DATA, end && p + max >= data.length ? END_STREAM : 0, id);
      o += part.copy(out, o);
    }
    this.write(out);
  }

  /** @internal A stream waits for the connection's window. */
  waitWindow(stream: H2Stream): void {
    this.blocked.add(stream);
  }

  /** @internal */
  sendReset(id: number, code: number): void {
    const out = Buffer.allocUnsafe(13);
    frameHeader(out, 0, 4, RST_STREAM, 0, id);
    out.writeUInt32BE(code, 9);
    this.write(out);
  }

  /** @internal Gives `n` bytes of window back to the peer, for stream `id` (0: the connection). */
  windowUpdate(id: number, n: number): void {
    if (n <= 0 || this.ended) return;
    const out = Buffer.allocUnsafe(13);
    frameHeader(out, 0, 4, WINDOW_UPDATE, 0, id);
    out.writeUInt32BE(n, 9);
    this.write(out);
  }

  /** @internal A stream closed: forgotten, and the connection ends if it was going away. */
  forget(stream: H2Stream, byPeer: boolean): void {
    this.streams.delete(stream.id);
    this.blocked.delete(stream);
    if (!stream.ended && !byPeer && !this.ended) this.closedEarlyAdd(stream.id);
    if (this.streams.size) return;
    if (this.goingAway && !this.ended) this.end();
    this.idleSince = Date.now();
    this.arm(this.idleSince + this.timeouts.idleMs);
  }

  /** A stream serve closed whose frames may still come; the oldest are forgotten (the peer has had time to see the reset). */
  private closedEarlyAdd(id: number): void {
    if (this.closedEarly.size >= MAX_CLOSED_EARLY) this.closedEarly.delete(this.closedEarly.values().next().value!);
    this.closedEarly.add(id);
  }

  /** Ends the connection this side; a peer that does not close its side in LINGER_MS is cut. */
  private end(): void {
    const socket = this.socket;
    socket.end();
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  }

  // ---- deadlines ----

  /** The deadline check runs by `at` (it may run earlier, and then looks again). */
  private arm(at: number): void {
    if (at >= this.timerAt || this.ended) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => this.onTimer(), Math.max(0, at - Date.now()));
    this.timer.unref();
  }

  private onTimer(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    if (this.ended) return;
    const now = Date.now();
    const t = this.timeouts;
    let next = Infinity;
    const due = (at: number) => {
      if (at <= now) return true;
      next = Math.min(next, at);
      return false;
    };
    if (!this.settingsSeen && due(this.startedAt + t.prefaceMs)) return this.expire(H2_ERROR.PROTOCOL_ERROR);
    if (this.partial && due(this.partial.since + t.headersMs)) return this.expire(H2_ERROR.PROTOCOL_ERROR);
    for (const stream of [...this.streams.values()]) {
      if (stream.openedAt && due(stream.openedAt + t.bodyMs)) stream.close(H2_ERROR.CANCEL);
    }
    if (this.settingsSeen && !this.streams.size && !this.partial && due(this.idleSince + t.idleMs)) return this.expire(H2_ERROR.NO_ERROR);
    if (next < Infinity) this.arm(next);
  }

  /** A deadline passed: GOAWAY with `code`, and the connection ends. */
  private expire(code: number): void {
    this.fail(code);
  }

  private goAway(code: number): void {
    const out = Buffer.allocUnsafe(17);
    frameHeader(out, 0, 8, GOAWAY, 0, 0);
    out.writeUInt32BE(this.lastStreamId, 9);
    out.writeUInt32BE(code, 13);
    this.write(out);
  }

  /** A connection error: GOAWAY with its code, then the connection ends. */
  private fail(code: number): void {
    if (this.ended) return;
    // What this read would have sent is dropped: the peer gets the GOAWAY alone.
    this.batch.length = 0;
    this.goAway(code);
    this.flushBatch();
    this.ended = true;
    this.end();
    this.closeStreams();
    this.stopTimer();
  }

  private onSocketClose(): void {
    this.ended = true;
    this.closeStreams();
    this.stopTimer();
  }

  private stopTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private closeStreams(): void {
    for (const stream of [...this.streams.values()]) stream.close(undefined, false);
  }
}

/** Writes a frame header at `offset`; returns the offset after it. */
function frameHeader(out: Buffer, offset: number, length: number, type: number, flags: number, id: number): number {
  out[offset] = length >>> 16;
  out[offset + 1] = (length >>> 8) & 0xff;
  out[offset + 2] = length & 0xff;
  out[offset + 3] = type;
  out[offset + 4] = flags;
  out.writeUInt32BE(id, offset + 5);
  return offset + 9;
}

/** A field value HTTP/2 calls malformed (RFC 9113 §8.2.1): NUL, CR or LF, or whitespace (SP, HTAB) at either end. */
function badValue(value: string): boolean {
  if (!value) return false;
  const first = value.charCodeAt(0);
  const last = value.charCodeAt(value.length - 1);
  return first === 32 || first === 9 || last === 32 || last === 9 || hasNulOrLineBreak(value);
}

/**
 * What of a field's rules depends on the field alone: its value (badValue), a regular field's
 * name a lowercase token, a content-length digits. The HPACK decoder asks it of each field
 * (requestHeaders takes only blocks whose fields all passed).
 */
function fieldWellFormed(name: string, value: string): boolean {
  if (badValue(value)) return false;
  if (name.charCodeAt(0) === 58 /* : */) return true;
  if (!name || BAD_NAME.test(name)) return false;
  return name !== 'content-length' || /^\d{1,15}$/.test(value);
}

/**
 * A request's fields (each of them well formed: fieldWellFormed) as node's headers object, or
 * undefined when together they make a malformed request (RFC 9113 §8.3: pseudo-headers
 * missing, repeated, unknown or after a regular field; a connection-specific header; `te`
 * other than trailers).
 */
function requestHeaders(fields: [string, string][]): { headers: Headers; size: number } | undefined {
  const headers: Record<string, string | string[]> = {};
  let size = 0;
  let regular = false;
  for (const [name, value] of fields) {
    size += name.length + value.length + 32;
    if (name.charCodeAt(0) === 58 /* : */) {
      if (regular || !REQUEST_PSEUDO.has(name) || headers[name] !== undefined) return undefined;
      headers[name] = value;
      continue;
    }
    regular = true;
    if (CONNECTION_SPECIFIC.has(name) || (name === 'te' && value !== 'trailers')) return undefined;
    const existing = headers[name];
    if (existing === undefined) headers[name] = name === 'set-cookie' ? [value] : value;
    else if (name === 'cookie') headers[name] = `${existing as string}; ${value}`;
    else if (name === 'set-cookie') (existing as string[]).push(value);
    else if (!SINGLE_VALUE.has(name)) headers[name] = `${existing as string}, ${value}`;
  }
  const method = headers[':method'];
  if (typeof method !== 'string' || !method) return undefined;
  if (headers[':protocol'] !== undefined) {
    // An extended CONNECT (RFC 8441 §4) has all four pseudo-headers besides :protocol.
    if (method !== 'CONNECT' || headers[':authority'] === undefined || headers[':scheme'] === undefined || typeof headers[':path'] !== 'string') return undefined;
    return { headers, size };
  }
  if (method === 'CONNECT') {
    if (headers[':authority'] === undefined || headers[':path'] !== undefined || headers[':scheme'] !== undefined) return undefined;
    return { headers, size };
  }
  const path = headers[':path'];
  if (typeof path !== 'string' || headers[':scheme'] === undefined) return undefined;
  // An origin-form path, or `*` for OPTIONS (RFC 9113 §8.3.1).
  if (path.charCodeAt(0) !== 47 /* / */ && !(path === '*' && method === 'OPTIONS')) return undefined;
  return { headers, size };
}

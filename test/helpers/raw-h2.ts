// A TCP connection to serve that speaks HTTP/2 frame by frame (what it sends is written by
// hand, what comes back is parsed), and the frames and header blocks tests write with it.
import type { ExecutionContext } from 'ava';
import net from 'node:net';
import { HpackDecoder } from '../../src/server/transport/h2/hpack.js';

export type Fields = [string, string][];

export const DATA = 0x0;
export const HEADERS = 0x1;
export const RST_STREAM = 0x3;
export const SETTINGS = 0x4;
export const PING = 0x6;
export const CONTINUATION = 0x9;
export const GOAWAY = 0x7;
export const END_STREAM = 0x1;
export const ACK = 0x1;
export const END_HEADERS = 0x4;
export const PROTOCOL_ERROR = 0x1;
export const FRAME_SIZE_ERROR = 0x6;
export const REFUSED_STREAM = 0x7;
export const CANCEL = 0x8;
export const COMPRESSION_ERROR = 0x9;
export const ENHANCE_YOUR_CALM = 0xb;
export const NO_ERROR = 0x0;
export const PREFACE = 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n';

export interface Frame { type: number; flags: number; id: number; payload: Buffer }

export function frame(type: number, flags: number, id: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(9);
  head.writeUIntBE(payload.length, 0, 3);
  head[3] = type;
  head[4] = flags;
  head.writeUInt32BE(id, 5);
  return Buffer.concat([head, payload]);
}

/** An HPACK integer with a `prefix`-bit prefix (RFC 7541 §5.1). */
function hpackInt(value: number, prefix: number): number[] {
  const max = (1 << prefix) - 1;
  if (value < max) return [value];
  const out = [max];
  for (value -= max; value >= 0x80; value = Math.floor(value / 0x80)) out.push((value & 0x7f) | 0x80);
  return [...out, value];
}

/** A header block of literal fields without indexing, names as given (no lowercasing, no Huffman). */
export function headerBlock(fields: Fields): Buffer {
  const bytes: number[] = [];
  for (const [name, value] of fields) {
    bytes.push(0x00, ...hpackInt(name.length, 7), ...Buffer.from(name, 'latin1'), ...hpackInt(value.length, 7), ...Buffer.from(value, 'latin1'));
  }
  return Buffer.from(bytes);
}

/** How long a test waits for a frame serve owes it before it fails (a guard, never a synchronization). */
const GUARD_MS = 10_000;

/** A TCP connection to serve that speaks HTTP/2 frame by frame: what it sends is written by hand, what comes back is parsed. */
export class RawH2 {
  private readonly frames: Frame[] = [];
  private buffered = Buffer.alloc(0);
  private readonly waiters = new Set<() => void>();
  private readonly decoder = new HpackDecoder();
  /** Every byte serve sent, as it came. */
  received = Buffer.alloc(0);
  isClosed = false;
  readonly closed: Promise<void>;

  private constructor(readonly socket: net.Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.received = Buffer.concat([this.received, chunk]);
      this.buffered = Buffer.concat([this.buffered, chunk]);
      while (this.buffered.length >= 9) {
        const length = this.buffered.readUIntBE(0, 3);
        if (this.buffered.length < 9 + length) break;
        this.frames.push({
          type: this.buffered[3]!, flags: this.buffered[4]!, id: this.buffered.readUInt32BE(5) & 0x7fffffff, payload: this.buffered.subarray(9, 9 + length),
        });
        this.buffered = this.buffered.subarray(9 + length);
      }
      this.wake();
    });
    // Serve may end the connection while a test still writes to it: the end is what the test checks.
    socket.on('error', () => {});
    this.closed = new Promise((resolve) => socket.once('close', () => {
      this.isClosed = true;
      this.wake();
      resolve();
    }));
  }

  /** A connection to serve on `port`; with `preface` (the default) the client preface and an empty SETTINGS are sent first. */
  static async open(t: ExecutionContext, port: number, preface = true): Promise<RawH2> {
    const socket = net.connect(port, '127.0.0.1');
    t.teardown(() => void socket.destroy());
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    const raw = new RawH2(socket);
    if (preface) raw.send(Buffer.from(PREFACE, 'latin1'), frame(SETTINGS, 0, 0));
    return raw;
  }

  send(...parts: Buffer[]): void {
    this.socket.write(Buffer.concat(parts));
  }

  private wake(): void {
    for (const w of [...this.waiters]) w();
  }

  /** The first frame not yet taken that `match` accepts, as soon as it is there; rejects when the connection ends first. */
  next(what: string, match: (f: Frame) => boolean): Promise<Frame> {
    return new Promise((resolve, reject) => {
      const guard = setTimeout(() => done(new Error(`no ${what} within ${GUARD_MS} ms`)), GUARD_MS);
      const check = () => {
        const i = this.frames.findIndex(match);
        if (i >= 0) done(undefined, this.frames.splice(i, 1)[0]);
        else if (this.isClosed) done(new Error(`the connection ended before ${what}`));
      };
      const done = (err: Error | undefined, f?: Frame) => {
        clearTimeout(guard);
        this.waiters.delete(check);
        if (err) reject(err);
        else resolve(f!);
      };
      this.waiters.add(check);
      check();
    });
  }

  /** Frames received and not taken, of stream `id` or of any stream when undefined. */
  pending(type: number, id?: number): Frame[] {
    return this.frames.filter((f) => f.type === type && (id === undefined || f.id === id));
  }

  /** A PING and its ACK: every frame serve sent for what came before it is here by then. */
  async roundTrip(data = 'sync-pin'): Promise<void> {
    const payload = Buffer.from(data, 'latin1');
    this.send(frame(PING, 0, 0, payload));
    await this.next('PING ACK', (f) => f.type === PING && (f.flags & ACK) !== 0 && f.payload.equals(payload));
  }

  /** The answer on stream `id`: its status and body. */
  async answer(id: number): Promise<{ status: number; text: string }> {
    const head = await this.next(`HEADERS on stream ${id}`, (f) => f.type === HEADERS && f.id === id);
    if (!(head.flags & END_HEADERS)) throw new Error('the answer\'s headers came in CONTINUATION frames; this client reads one HEADERS frame');
    const fields = this.decoder.decode(head.payload);
    const status = Number(fields.find(([name]) => name === ':status')?.[1]);
    const body: Buffer[] = [];
    for (let f = head; !(f.flags & END_STREAM);) {
      f = await this.next(`the rest of stream ${id}`, (g) => g.id === id && (g.type === DATA || g.type === HEADERS));
      if (f.type === DATA) body.push(f.payload);
    }
    return { status, text: Buffer.concat(body).toString('utf8') };
  }
}

const goawayCode = (f: Frame) => f.payload.readUInt32BE(4);
const goawayLastStream = (f: Frame) => f.payload.readUInt32BE(0) & 0x7fffffff;

/** Waits for serve's GOAWAY, checks its code and last stream, then that the connection closes. */
export async function expectGoaway(t: ExecutionContext, raw: RawH2, code: number, lastStream: number): Promise<Frame> {
  const goaway = await raw.next('GOAWAY', (f) => f.type === GOAWAY);
  t.is(goawayCode(goaway), code);
  t.is(goawayLastStream(goaway), lastStream);
  await raw.closed;
  t.true(raw.isClosed);
  return goaway;
}


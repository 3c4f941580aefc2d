// HPACK (RFC 7541), HTTP/2's header compression: the decoder of a connection's request header
// blocks (its dynamic table lives as long as the connection) and a stateless encoder of
// serve's answers. Header bytes are Latin-1 text, as node's own HTTP servers give them.

/** A header block that breaks HPACK: a COMPRESSION_ERROR, which ends the connection. */
export class HpackError extends Error {}

/** The static table (RFC 7541 Appendix A); index 1 is the first entry. */
const STATIC: readonly (readonly [string, string])[] = [
  [":authority", ""],
  [":method", "GET"],
  [":method", "POST"],
  [":path", "/"],
  [":path", "/index.html"],
  [":scheme", "http"],
  [":scheme", "https"],
  [":status", "200"],
  [":status", "204"],
  [":status", "206"],
  [":status", "304"],
  [":status", "400"],
  [":status", "404"],
  [":status", "500"],
  ["accept-charset", ""],
  ["accept-encoding", "gzip, deflate"],
  ["accept-language", ""],
  ["accept-ranges", ""],
  ["accept", ""],
  ["access-control-allow-origin", ""],
  ["age", ""],
  ["allow", ""],
  ["authorization", ""],
  ["cache-control", ""],
  ["content-disposition", ""],
  ["content-encoding", ""],
  ["content-language", ""],
  ["content-length", ""],
  ["content-location", ""],
  ["content-range", ""],
  ["content-type", ""],
  ["cookie", ""],
  ["date", ""],
  ["etag", ""],
  ["expect", ""],
  ["expires", ""],
  ["from", ""],
  ["host", ""],
  ["if-match", ""],
  ["if-modified-since", ""],
  ["if-none-match", ""],
  ["if-range", ""],
  ["if-unmodified-since", ""],
  ["last-modified", ""],
  ["link", ""],
  ["location", ""],
  ["max-forwards", ""],
  ["proxy-authenticate", ""],
  ["proxy-authorization", ""],
  ["range", ""],
  ["referer", ""],
  ["refresh", ""],
  ["retry-after", ""],
  ["server", ""],
  ["set-cookie", ""],
  ["strict-transport-security", ""],
  ["transfer-encoding", ""],
  ["user-agent", ""],
  ["vary", ""],
  ["via", ""],
  ["www-authenticate", ""],
];

/** Each symbol's Huffman code and its length in bits (RFC 7541 Appendix B); 256 is EOS. */
const HUFFMAN = [
  0x1ff8,13, 0x7fffd8,23, 0xfffffe2,28, 0xfffffe3,28, 0xfffffe4,28, 0xfffffe5,28, 0xfffffe6,28, 0xfffffe7,28,
  0xfffffe8,28, 0xffffea,24, 0x3ffffffc,30, 0xfffffe9,28, 0xfffffea,28, 0x3ffffffd,30, 0xfffffeb,28, 0xfffffec,28,
  0xfffffed,28, 0xfffffee,28, 0xfffffef,28, 0xffffff0,28, 0xffffff1,28, 0xffffff2,28, 0x3ffffffe,30, 0xffffff3,28,
  0xffffff4,28, 0xffffff5,28, 0xffffff6,28, 0xffffff7,28, 0xffffff8,28, 0xffffff9,28, 0xffffffa,28, 0xffffffb,28,
  0x14,6, 0x3f8,10, 0x3f9,10, 0xffa,12, 0x1ff9,13, 0x15,6, 0xf8,8, 0x7fa,11,
  0x3fa,10, 0x3fb,10, 0xf9,8, 0x7fb,11, 0xfa,8, 0x16,6, 0x17,6, 0x18,6,
  0x0,5, 0x1,5, 0x2,5, 0x19,6, 0x1a,6, 0x1b,6, 0x1c,6, 0x1d,6,
  0x1e,6, 0x1f,6, 0x5c,7, 0xfb,8, 0x7ffc,15, 0x20,6, 0xffb,12, 0x3fc,10,
  0x1ffa,13, 0x21,6, 0x5d,7, 0x5e,7, 0x5f,7, 0x60,7, 0x61,7, 0x62,7,
  0x63,7, 0x64,7, 0x65,7, 0x66,7, 0x67,7, 0x68,7, 0x69,7, 0x6a,7,
  0x6b,7, 0x6c,7, 0x6d,7, 0x6e,7, 0x6f,7, 0x70,7, 0x71,7, 0x72,7,
  0xfc,8, 0x73,7, 0xfd,8, 0x1ffb,13, 0x7fff0,19, 0x1ffc,13, 0x3ffc,14, 0x22,6,
  0x7ffd,15, 0x3,5, 0x23,6, 0x4,5, 0x24,6, 0x5,5, 0x25,6, 0x26,6,
  0x27,6, 0x6,5, 0x74,7, 0x75,7, 0x28,6, 0x29,6, 0x2a,6, 0x7,5,
  0x2b,6, 0x76,7, 0x2c,6, 0x8,5, 0x9,5, 0x2d,6, 0x77,7, 0x78,7,
  0x79,7, 0x7a,7, 0x7b,7, 0x7ffe,15, 0x7fc,11, 0x3ffd,14, 0x1ffd,13, 0xffffffc,28,
  0xfffe6,20, 0x3fffd2,22, 0xfffe7,20, 0xfffe8,20, 0x3fffd3,22, 0x3fffd4,22, 0x3fffd5,22, 0x7fffd9,23,
  0x3fffd6,22, 0x7fffda,23, 0x7fffdb,23, 0x7fffdc,23, 0x7fffdd,23, 0x7fffde,23, 0xffffeb,24, 0x7fffdf,23,
  0xffffec,24, 0xffffed,24, 0x3fffd7,22, 0x7fffe0,23, 0xffffee,24, 0x7fffe1,23, 0x7fffe2,23, 0x7fffe3,23,
  0x7fffe4,23, 0x1fffdc,21, 0x3fffd8,22, 0x7fffe5,23, 0x3fffd9,22, 0x7fffe6,23, 0x7fffe7,23, 0xffffef,24,
  0x3fffda,22, 0x1fffdd,21, 0xfffe9,20, 0x3fffdb,22, 0x3fffdc,22, 0x7fffe8,23, 0x7fffe9,23, 0x1fffde,21,
  0x7fffea,23, 0x3fffdd,22, 0x3fffde,22, 0xfffff0,24, 0x1fffdf,21, 0x3fffdf,22, 0x7fffeb,23, 0x7fffec,23,
  0x1fffe0,21, 0x1fffe1,21, 0x3fffe0,22, 0x1fffe2,21, 0x7fffed,23, 0x3fffe1,22, 0x7fffee,23, 0x7fffef,23,
  0xfffea,20, 0x3fffe2,22, 0x3fffe3,22, 0x3fffe4,22, 0x7ffff0,23, 0x3fffe5,22, 0x3fffe6,22, 0x7ffff1,23,
  0x3ffffe0,26, 0x3ffffe1,26, 0xfffeb,20, 0x7fff1,19, 0x3fffe7,22, 0x7ffff2,23, 0x3fffe8,22, 0x1ffffec,25,
  0x3ffffe2,26, 0x3ffffe3,26, 0x3ffffe4,26, 0x7ffffde,27, 0x7ffffdf,27, 0x3ffffe5,26, 0xfffff1,24, 0x1ffffed,25,
  0x7fff2,19, 0x1fffe3,21, 0x3ffffe6,26, 0x7ffffe0,27, 0x7ffffe1,27, 0x3ffffe7,26, 0x7ffffe2,27, 0xfffff2,24,
  0x1fffe4,21, 0x1fffe5,21, 0x3ffffe8,26, 0x3ffffe9,26, 0xffffffd,28, 0x7ffffe3,27, 0x7ffffe4,27, 0x7ffffe5,27,
  0xfffec,20, 0xfffff3,24, 0xfffed,20, 0x1fffe6,21, 0x3fffe9,22, 0x1fffe7,21, 0x1fffe8,21, 0x7ffff3,23,
  0x3fffea,22, 0x3fffeb,22, 0x1ffffee,25, 0x1ffffef,25, 0xfffff4,24, 0xfffff5,24, 0x3ffffea,26, 0x7ffff4,23,
  0x3ffffeb,26, 0x7ffffe6,27, 0x3ffffec,26, 0x3ffffed,26, 0x7ffffe7,27, 0x7ffffe8,27, 0x7ffffe9,27, 0x7ffffea,27,
  0x7ffffeb,27, 0xffffffe,28, 0x7ffffec,27, 0x7ffffed,27, 0x7ffffee,27, 0x7ffffef,27, 0x7fffff0,27, 0x3ffffee,26,
  0x3fffffff,30,
];

/**
 * The Huffman code as a binary tree: node n's children at [2n] (bit 0) and [2n + 1] (bit 1);
 * a child ≥ 0 is a node, -1 is no code, and -(sym + 2) is the leaf of symbol `sym`.
 */
const TREE = (() => {
  const tree: number[] = [-1, -1];
  for (let sym = 0; sym <= 256; sym++) {
    const code = HUFFMAN[sym * 2]!;
    const bits = HUFFMAN[sym * 2 + 1]!;
    let node = 0;
    for (let i = bits - 1; i >= 0; i--) {
      const slot = node * 2 + ((code >>> i) & 1);
      if (i === 0) tree[slot] = -(sym + 2);
      else {
        if (tree[slot] === -1) {
          tree[slot] = tree.length / 2;
          tree.push(-1, -1);
        }
        node = tree[slot]!;
      }
    }
  }
  return Int32Array.from(tree);
})();

/**
 * Huffman-coded values seen lately, by their coded bytes: a client sends the same ones on every
 * request, and those it keeps out of the table (nghttp2 never indexes `authorization`, a bearer
 * token of hundreds of bytes) would otherwise be decoded bit by bit each time.
 */
const decoded = new Map<string, string>();
const DECODED_KEPT = 512;

function huffmanDecode(bytes: Buffer, start: number, end: number): string {
  if (end - start < 16) return huffmanDecodeBits(bytes, start, end);
  const key = bytes.toString('latin1', start, end);
  let text = decoded.get(key);
  if (text === undefined) {
    text = huffmanDecodeBits(bytes, start, end);
    if (decoded.size >= DECODED_KEPT) decoded.clear();
    decoded.set(key, text);
  }
  return text;
}

function huffmanDecodeBits(bytes: Buffer, start: number, end: number): string {
  // The shortest code is 5 bits: at most 8/5 symbols a byte.
  const out = Buffer.allocUnsafe(Math.ceil(((end - start) * 8) / 5));
  let n = 0;
  let node = 0;
  // Bits read since the last whole symbol, all of them 1 so far: what may pad the end.
  let tail = 0;
  let tailOnes = true;
  for (let i = start; i < end; i++) {
    const byte = bytes[i]!;
    for (let b = 7; b >= 0; b--) {
      const bit = (byte >>> b) & 1;
      const next = TREE[node * 2 + bit]!;
      tail++;
      tailOnes &&= bit === 1;
      if (next >= 0) {
        node = next;
        continue;
      }
      if (next === -1) throw new HpackError('invalid Huffman code');
      const sym = -next - 2;
      if (sym === 256) throw new HpackError('EOS in a Huffman-coded string');
      out[n++] = sym;
      node = 0;
      tail = 0;
      tailOnes = true;
    }
  }
  // Padding is the most significant bits of EOS (all ones), fewer than 8 of them.
  if (tail > 7 || !tailOnes) throw new HpackError('invalid Huffman padding');
  return out.toString('latin1', 0, n);
}

/** An entry's size in the dynamic table's accounting (RFC 7541 §4.1). */
const entrySize = (name: string, value: string) => name.length + value.length + 32;

/** Integers over this are refused: no header block of a sane peer comes near it. */
const MAX_INT = 2 ** 28;

/** A dynamic table entry: its field, and whether the decoder's check passed it (once, when it came). */
interface Entry {
  readonly field: [string, string];
  readonly passes: boolean;
}

/**
 * What the decoder asks of every field it hands out (the caller's rules of a well-formed field;
 * HPACK has none), a function of the field alone: asked once per dynamic table entry when it
 * is added (a field sent again by its index costs nothing) and of each literal kept out of the
 * table unless the same one passed lately.
 */
export type FieldCheck = (name: string, value: string) => boolean;

const ANY_FIELD: FieldCheck = () => true;

/** Characters of literal values a decoder remembers as having passed its check (its table's default size). */
const PASSED_LITERALS_KEPT = 4096;

/** Of each check, which static table entries pass it (worked out once per check). */
const staticPasses = new WeakMap<FieldCheck, boolean[]>();

export class HpackDecoder {
  /** Which static table entries pass the check (a static `content-length` with no value may not). */
  private readonly staticPasses: boolean[];
  /** The dynamic table, newest first. */
  private readonly table: Entry[] = [];
  private size = 0;
  private maxSize: number;
  private pos = 0;
  private block: Buffer = Buffer.alloc(0);
  /** The last block decoded held a field the check refused. */
  failedCheck = false;
  /**
   * Fields kept out of the table that passed the check, the last value by name: a client sends
   * the same ones with every request (nghttp2 never indexes `authorization`, a bearer token of
   * hundreds of bytes). At most PASSED_LITERALS_KEPT characters of values: the table's size.
   */
  private readonly passedLiterals = new Map<string, string>();
  private passedChars = 0;

  /**
   * `limit`: the SETTINGS_HEADER_TABLE_SIZE this side announced, the most a peer may make the
   * table; `check`: the fields' rules (none by default).
   */
  constructor(private readonly limit = 4096, private readonly check: FieldCheck = ANY_FIELD) {
    this.maxSize = limit;
    let passes = staticPasses.get(check);
    if (!passes) staticPasses.set(check, (passes = STATIC.map(([name, value]) => check(name, value))));
    this.staticPasses = passes;
  }

  /**
   * One header block's fields, in order; throws HpackError when the block breaks HPACK.
   * `failedCheck` tells afterwards whether any of them failed the check.
   */
  decode(block: Buffer): [string, string][] {
    this.block = block;
    this.pos = 0;
    const fields: [string, string][] = [];
    let passes = true;
    let first = true;
    while (this.pos < block.length) {
      const byte = block[this.pos]!;
      if (byte & 0x80) {
        const index = this.integer(7);
        if (index <= STATIC.length) {
          fields.push(this.staticField(index));
          passes &&= this.staticPasses[index - 1]!;
        } else {
          const entry = this.dynamic(index);
          passes &&= entry.passes;
          fields.push(entry.field);
        }
      } else if (byte & 0x40) {
        const field = this.literal(6);
        const ok = this.check(field[0], field[1]);
        passes &&= ok;
        this.insert(field, ok);
        fields.push(field);
      } else if (byte & 0x20) {
        // A table size update is allowed only at the start of a block (§4.2).
        if (!first) throw new HpackError('a dynamic table size update after a header field');
        const size = this.integer(5);
        if (size > this.limit) throw new HpackError('a dynamic table size over the announced limit');
        this.maxSize = size;
        this.evict(0);
        continue;
      } else {
        // Without indexing (0000) and never indexed (0001): the same to a decoder.
        const field = this.literal(4);
        passes &&= this.checkLiteral(field[0], field[1]);
        fields.push(field);
      }
      first = false;
    }
    this.failedCheck = !passes;
    return fields;
  }

  private checkLiteral(name: string, value: string): boolean {
    if (this.passedLiterals.get(name) === value) return true;
    if (!this.check(name, value)) return false;
    if (value.length <= PASSED_LITERALS_KEPT) {
      if (this.passedChars + value.length > PASSED_LITERALS_KEPT) {
        this.passedLiterals.clear();
        this.passedChars = 0;
      }
      this.passedChars += value.length - (this.passedLiterals.get(name)?.length ?? 0);
      this.passedLiterals.set(name, value);
    }
    return true;
  }

  private staticField(index: number): [string, string] {
    if (index === 0) throw new HpackError('index 0');
    return STATIC[index - 1] as [string, string];
  }

  private dynamic(index: number): Entry {
    const entry = this.table[index - STATIC.length - 1];
    if (!entry) throw new HpackError(`index ${index} is past the tables`);
    return entry;
  }

  private literal(prefix: number): [string, string] {
    const index = this.integer(prefix);
    const name = index === 0 ? this.string() : index <= STATIC.length ? this.staticField(index)[0] : this.dynamic(index).field[0];
    return [name, this.string()];
  }

  private insert(field: [string, string], passes: boolean): void {
    const size = entrySize(field[0], field[1]);
    // An entry larger than the table empties it and is not added (§4.4).
    this.evict(size);
    if (size <= this.maxSize) {
      this.table.unshift({ field, passes });
      this.size += size;
    }
  }

  /** Evicts the oldest entries until `room` more fits. */
  private evict(room: number): void {
    while (this.table.length && this.size + room > this.maxSize) {
      const [name, value] = this.table.pop()!.field;
      this.size -= entrySize(name, value);
    }
  }

  private integer(prefix: number): number {
    const block = this.block;
    if (this.pos >= block.length) throw new HpackError('truncated integer');
    const max = (1 << prefix) - 1;
    let value = block[this.pos++]! & max;
    if (value < max) return value;
    // MAX_INT (2^28) takes at most 4 continuation bytes: a fifth, even of zeros, is an
    // overflow (RFC 7541 §5.1), not a number to read on (past 2^1023 it turned into NaN).
    for (let shift = 0; ; shift += 7) {
      if (shift > 21) throw new HpackError('integer too large');
      if (this.pos >= block.length) throw new HpackError('truncated integer');
      const byte = block[this.pos++]!;
      value += (byte & 0x7f) * 2 ** shift;
      if (value > MAX_INT) throw new HpackError('integer too large');
      if (!(byte & 0x80)) return value;
    }
  }

  private string(): string {
    if (this.pos >= this.block.length) throw new HpackError('truncated string');
    const huffman = (this.block[this.pos]! & 0x80) !== 0;
    const length = this.integer(7);
    const start = this.pos;
    const end = start + length;
    if (end > this.block.length) throw new HpackError('truncated string');
    this.pos = end;
    if (huffman) return huffmanDecode(this.block, start, end);
    return this.block.toString('latin1', start, end);
  }
}

/** `:status` values with an entry of their own in the static table. */
const STATUS_INDEX = new Map<number, number>([[200, 8], [204, 9], [206, 10], [304, 11], [400, 12], [404, 13], [500, 14]]);
/** The first static index of each name. */
const NAME_INDEX = new Map<string, number>();
STATIC.forEach(([name], i) => {
  if (!NAME_INDEX.has(name)) NAME_INDEX.set(name, i + 1);
});

const NUL_OR_LINE_BREAK = /[\0\r\n]/;

/**
 * Whether a field's text holds a byte no field may (RFC 9113 §8.2.1): NUL, CR or LF, which
 * would split or end it. A short text by a character class; a longer one by three indexOf
 * scans, several times faster than the class over a bearer token (~35 vs ~230 ns here).
 */
export function hasNulOrLineBreak(text: string): boolean {
  if (text.length < 32) return NUL_OR_LINE_BREAK.test(text);
  return text.indexOf('\n') !== -1 || text.indexOf('\r') !== -1 || text.indexOf('\0') !== -1;
}

/**
 * An answer's header block, `:status` first (absent for trailers): each field a literal never
 * put in the peer's table, so the encoder keeps no state and a connection's answers can be
 * encoded in any order. Names are lowercased; a value holding NUL, CR or LF is an error.
 */
export function encodeHeaders(status: number | undefined, fields: readonly (readonly [string, string])[]): Buffer {
  // A status literal takes 5 bytes (name index, length, three digits).
  let estimate = 8;
  for (const [name, value] of fields) estimate += name.length + value.length + 12;
  const out = Buffer.allocUnsafe(estimate);
  let pos = 0;
  const integer = (value: number, prefix: number, mask: number) => {
    const max = (1 << prefix) - 1;
    if (value < max) {
      out[pos++] = mask | value;
      return;
    }
    out[pos++] = mask | max;
    value -= max;
    while (value >= 0x80) {
      out[pos++] = (value & 0x7f) | 0x80;
      value = Math.floor(value / 0x80);
    }
    out[pos++] = value;
  };
  const string = (text: string) => {
    integer(text.length, 7, 0);
    pos += out.write(text, pos, 'latin1');
  };
  if (status !== undefined) {
    const indexed = STATUS_INDEX.get(status);
    if (indexed) out[pos++] = 0x80 | indexed;
    else {
      integer(8, 4, 0);
      string(String(status));
    }
  }
  for (const [rawName, value] of fields) {
    const name = rawName.toLowerCase();
    if (hasNulOrLineBreak(value) || hasNulOrLineBreak(name)) throw new TypeError(`Invalid character in header "${name}"`);
    const index = NAME_INDEX.get(name);
    if (index !== undefined) integer(index, 4, 0);
    else {
      out[pos++] = 0;
      string(name);
    }
    string(value);
  }
  return out.subarray(0, pos);
}

// The hot reads of the published services (a resource's List and Get, vendor.ts) encoded
// straight to protobuf: each record's message is encoded once and kept while the record and
// what its wire form reads are unchanged (as wire.ts's WireJson keeps REST's JSON), and a page
// is the list response's own fields followed by the items' cached bytes (protobuf messages
// concatenate).
import { fromBinary, toBinary, toJson, type DescField, type DescMessage, type Message } from '@bufbuild/protobuf';
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import type { Kind, Record_, Store } from '../../store/store.js';

/** Each record's message bytes, encoded once per record and version of what its wire form reads. */
export class EncodedRecords {
  private readonly cache = new WeakMap<Record_, { version: string; bytes: Uint8Array; asField?: { no: number; bytes: Uint8Array }; json?: string }>();
  /** A page's items joined, by its records array: the list engine hands a page served again as the same array. */
  private readonly pages = new WeakMap<readonly Record_[], { version: string; no: number; bytes: Uint8Array }>();

  constructor(
    private readonly store: Store,
    private readonly schema: DescMessage,
    private readonly messageOf: (r: Record_) => Message,
    private readonly reads: readonly Kind[],
  ) {}

  private version(): string {
    return this.reads.length ? this.store.versionOf(this.reads) : '';
  }

  private entry(r: Record_, version = this.version()) {
    let hit = this.cache.get(r);
    if (!hit || hit.version !== version) {
      hit = { version, bytes: toBinary(this.schema, this.messageOf(r)) };
      this.cache.set(r, hit);
    }
    return hit;
  }

  encode(r: Record_): Uint8Array {
    return this.entry(r).bytes;
  }

  /** The record's message as proto3 JSON text, made once per record and version as its bytes are. */
  json(r: Record_, version = this.version()): string {
    const hit = this.entry(r, version);
    hit.json ??= JSON.stringify(toJson(this.schema, fromBinary(this.schema, hit.bytes)));
    return hit.json;
  }

  /**
   * A page as the proto3 JSON of `output`: its envelope's fields (decoded from `envelope`, its
   * bytes), then `field` with the records' cached JSON (absent when empty, as proto3 JSON leaves it).
   */
  pageJson(output: DescMessage, field: DescField, envelope: Uint8Array, records: readonly Record_[]): string {
    const head = JSON.stringify(toJson(output, fromBinary(output, envelope)));
    if (!records.length) return head;
    const version = this.version();
    const items = `${JSON.stringify(field.jsonName)}:[${records.map((r) => this.json(r, version)).join(',')}]`;
    return head === '{}' ? `{${items}}` : `${head.slice(0, -1)},${items}}`;
  }

  /** The record as one element of a repeated field: its tag, length and bytes. */
  private field(field: DescField, r: Record_, version: string): Uint8Array {
    const hit = this.entry(r, version);
    if (hit.asField?.no !== field.number) hit.asField = { no: field.number, bytes: new BinaryWriter().tag(field.number, WireType.LengthDelimited).bytes(hit.bytes).finish() };
    return hit.asField.bytes;
  }

  /** A page's records as the elements of a repeated field, joined once per page and version. */
  fields(field: DescField, records: readonly Record_[]): Uint8Array {
    const version = this.version();
    const hit = this.pages.get(records);
    if (hit && hit.version === version && hit.no === field.number) return hit.bytes;
    const bytes = Buffer.concat(records.map((r) => this.field(field, r, version)));
    this.pages.set(records, { version, no: field.number, bytes });
    return bytes;
  }
}

/**
 * The list response's fields besides its items (next_page_token, total_count, skipped: those
 * it has), encoded; total_count when it is proto3 `optional` (presence) even at 0, as the
 * message built from the page would carry it.
 */
export function envelopeOf(output: DescMessage): (page: { nextPageToken: string; totalCount: number; skipped: number }) => Uint8Array {
  const field = (name: string) => output.fields.find((f) => f.name === name);
  const [token, total, skipped] = [field('next_page_token')?.number, field('total_count'), field('skipped')?.number];
  const totalAlways = Boolean(total?.proto.proto3Optional);
  // Written by hand: protobuf-es's BinaryWriter grows a buffer of its own for each page.
  return (page) => {
    const out = Buffer.allocUnsafe(3 * (5 + 10) + Buffer.byteLength(page.nextPageToken));
    let at = 0;
    const varint = (n: number) => {
      for (; n > 0x7f; n = Math.floor(n / 128)) out[at++] = (n % 128) | 0x80;
      out[at++] = n;
    };
    // proto3: a default value is not written.
    if (token && page.nextPageToken) {
      varint((token << 3) | WireType.LengthDelimited);
      varint(Buffer.byteLength(page.nextPageToken));
      at += out.write(page.nextPageToken, at);
    }
    if (total && (page.totalCount || totalAlways)) {
      varint((total.number << 3) | WireType.Varint);
      varint(page.totalCount);
    }
    if (skipped && page.skipped) {
      varint((skipped << 3) | WireType.Varint);
      varint(page.skipped);
    }
    return out.subarray(0, at);
  };
}

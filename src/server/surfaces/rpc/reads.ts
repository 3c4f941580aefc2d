// The hot reads of every resource over RPC (its List and Get, as the registry declares them),
// answered by the domain operation the REST route calls and encoded straight to protobuf:
// each record's message is encoded once and kept while the record and what its wire form
// reads are unchanged (as models.ts's WireJson keeps its JSON), and a page is the list
// response's own fields followed by the items' cached bytes (protobuf messages concatenate).
import { fromBinary, fromJson, toBinary, toJson, type DescField, type DescMessage, type JsonValue, type Message } from '@bufbuild/protobuf';
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import { resources, type ResourceName } from '../../../api/registry/index.js';
import type { Principal } from '../../auth/principal.js';
import type { Domain } from '../../domain/index.js';
import type { Response } from '../../pipeline/handler.js';
import { createdToWire, wireFormOf } from '../wire.js';
import type { Operations } from '../../pipeline/operations.js';
import type { Kind, Record_, Store } from '../../store/store.js';
import { resolveChanges, updateMaskParam } from '../changes.js';
import type { RestCall, Transcoder } from './transcode.js';

/** An RPC answered by its operation: the caller, the request message, and the REST-equivalent call the rule names it by. */
export type DirectRead = (principal: Principal, request: Message, call: RestCall) => Promise<Response>;

export interface ReadContext {
  domain: Domain;
  operations: Operations;
  store: Store;
}

/**
 * The operation behind a write of serve's own services (a resource's Create, Update, Delete,
 * by the method's rule): its input read from the request message (its proto3 JSON is the
 * create request's JSON; an update's body and update_mask resolved into changes here), its
 * output the resource's wire form (Connect's JSON as REST's, protobuf from it).
 */
export function directWriteOf(rest: ReadContext, transcoder: Transcoder): DirectRead | undefined {
  const { verb, template } = transcoder;
  for (const name of Object.keys(resources) as ResourceName[]) {
    const ops = rest.operations[name];
    const d = ops.resource;
    const toWire = wireFormOf(d.kind).toWire;
    const uidOf = (call: RestCall) => call.path.slice(d.path.length + 1).split('/').map(decodeURIComponent).join('/');
    const item = template.startsWith(`${d.path}/{`) && template.endsWith('=**}');
    const { create, update, delete: remove } = ops;
    if (verb === 'POST' && template === d.path && create) {
      return async (principal, _request, call) => ({ body: createdToWire(d.kind, await create.run(principal, create.parse(call.body())), rest.store) });
    }
    if (verb === 'PATCH' && item && update) {
      return async (principal, _request, call) => ({
        body: toWire(await update.run(principal, { uid: uidOf(call), changes: () => resolveChanges(call.body(), updateMaskParam(call.query), d) }), rest.store),
      });
    }
    if (verb === 'DELETE' && item && remove) return async (principal, _request, call) => (await remove.run(principal, { uid: uidOf(call) }), {});
  }
  return undefined;
}

/** The domain read behind an RPC, when it is a resource's generic List or Get. */
export function directReadOf(rest: ReadContext, output: DescMessage, transcoder: Transcoder): DirectRead | undefined {
  if (transcoder.verb !== 'GET') return undefined;
  for (const [name, d] of Object.entries(resources) as [ResourceName, (typeof resources)[ResourceName]][]) {
    const ops = rest.domain[name] as Partial<Domain['groups']>;
    if (transcoder.template === d.path && d.operations.includes('list') && ops.list) {
      const itemsField = output.fields.find((f) => f.fieldKind === 'list' && f.listKind === 'message');
      if (!itemsField || itemsField.fieldKind !== 'list' || itemsField.listKind !== 'message' || itemsField.message.name !== d.kind) return undefined;
      const form = wireFormOf(d.kind);
      const items = new ProtoCache(rest.store, itemsField.message, (r) => form.toWire(r, rest.store), form.reads);
      const list = ops.list;
      const envelope = envelopeOf(output);
      return async (principal, _request, call) => {
        const page = await list(principal, call.query);
        return protoAnswer(output, [envelope(page), items.fields(itemsField, page.items)]);
      };
    }
    if (transcoder.template === `${d.path}/{uid=**}` && d.operations.includes('get') && ops.get && output.name === d.kind) {
      const form = wireFormOf(d.kind);
      const item = new ProtoCache(rest.store, output, (r) => form.toWire(r, rest.store), form.reads);
      const get = ops.get;
      return async (principal, request) => protoAnswer(output, [item.encode(await get(principal, (request as unknown as { uid: string }).uid))]);
    }
  }
  return undefined;
}

/** The list response's fields besides its items (next_page_token, total_count, skipped: those it has), encoded. */
function envelopeOf(output: DescMessage): (page: { nextPageToken: string; totalCount: number; skipped: number }) => Uint8Array {
  const field = (name: string) => output.fields.find((f) => f.name === name)?.number;
  const [token, total, skipped] = [field('next_page_token'), field('total_count'), field('skipped')];
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
    if (total && page.totalCount) {
      varint((total << 3) | WireType.Varint);
      varint(page.totalCount);
    }
    if (skipped && page.skipped) {
      varint((skipped << 3) | WireType.Varint);
      varint(page.skipped);
    }
    return out.subarray(0, at);
  };
}

function protoAnswer(output: DescMessage, parts: Uint8Array[]): Response {
  // The journal shows the answer as REST would have: its JSON, made only when read. It keeps
  // the parts (the items' cached bytes), not a copy of the page per entry.
  return { proto: parts, journalText: journalJson(output, parts) };
}

function journalJson(output: DescMessage, parts: readonly Uint8Array[]): () => string {
  return () => JSON.stringify(toJson(output, fromBinary(output, Buffer.concat(parts))));
}

/** Each record's message bytes, encoded once per record and version of what its wire form reads. */
class ProtoCache {
  private readonly cache = new WeakMap<Record_, { version: string; bytes: Uint8Array; asField?: { no: number; bytes: Uint8Array } }>();
  /** A page's items joined, by its records array: the list engine hands a page served again as the same array. */
  private readonly pages = new WeakMap<readonly Record_[], { version: string; no: number; bytes: Uint8Array }>();

  constructor(
    private readonly store: Store,
    private readonly schema: DescMessage,
    private readonly toWire: (r: Record_) => unknown,
    private readonly reads: readonly Kind[],
  ) {}

  private version(): string {
    return this.reads.length ? this.store.versionOf(this.reads) : '';
  }

  private entry(r: Record_, version = this.version()) {
    let hit = this.cache.get(r);
    if (!hit || hit.version !== version) {
      hit = { version, bytes: toBinary(this.schema, fromJson(this.schema, this.toWire(r) as JsonValue)) };
      this.cache.set(r, hit);
    }
    return hit;
  }

  encode(r: Record_): Uint8Array {
    return this.entry(r).bytes;
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

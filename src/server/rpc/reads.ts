// The hot reads of every resource over RPC (its List and Get, as the registry declares them),
// answered by the domain operation the REST route calls and encoded straight to protobuf:
// each record's message is encoded once and kept while the record and what its wire form
// reads are unchanged (as models.ts's WireJson keeps its JSON), and a page is the list
// response's own fields followed by the items' cached bytes (protobuf messages concatenate).
import { fromBinary, fromJson, toBinary, toJson, type DescField, type DescMessage, type JsonValue, type Message } from '@bufbuild/protobuf';
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import { resources, type ResourceName } from '../../api/registry/index.js';
import type { Principal } from '../auth/principal.js';
import type { Domain } from '../domain/index.js';
import type { Response } from '../handler.js';
import { TO_WIRE, WIRE_READS } from '../models.js';
import type { Kind, Record_, Store } from '../store/store.js';
import type { Transcoder } from './transcode.js';

/** A read answered by the domain: the caller, the request message, and the query the rule makes of it. */
export type DirectRead = (principal: Principal, request: Message, query: URLSearchParams) => Promise<Response>;

export interface ReadContext {
  domain: Domain;
  store: Store;
}

/** The domain read behind an RPC, when it is a resource's generic List or Get. */
export function directReadOf(rest: ReadContext, output: DescMessage, transcoder: Transcoder): DirectRead | undefined {
  if (transcoder.verb !== 'GET') return undefined;
  for (const [name, d] of Object.entries(resources) as [ResourceName, (typeof resources)[ResourceName]][]) {
    const ops = rest.domain[name] as Partial<Domain['groups']>;
    if (transcoder.template === d.path && d.operations.includes('list') && ops.list) {
      const itemsField = output.fields.find((f) => f.fieldKind === 'list' && f.listKind === 'message');
      if (!itemsField || itemsField.fieldKind !== 'list' || itemsField.listKind !== 'message' || itemsField.message.name !== d.kind) return undefined;
      const items = new ProtoCache(rest.store, itemsField.message, (r) => TO_WIRE[d.kind](r, rest.store), WIRE_READS[d.kind]);
      const list = ops.list;
      const envelope = envelopeOf(output);
      return async (principal, _request, query) => {
        const page = await list(principal, query);
        return protoAnswer(output, concat([envelope(page), ...page.items.map((r) => items.field(itemsField, r))]));
      };
    }
    if (transcoder.template === `${d.path}/{uid=**}` && d.operations.includes('get') && ops.get && output.name === d.kind) {
      const item = new ProtoCache(rest.store, output, (r) => TO_WIRE[d.kind](r, rest.store), WIRE_READS[d.kind]);
      const get = ops.get;
      return async (principal, request) => protoAnswer(output, item.encode(await get(principal, (request as unknown as { uid: string }).uid)));
    }
  }
  return undefined;
}

/** The list response's fields besides its items (next_page_token, total_count, skipped: those it has), encoded. */
function envelopeOf(output: DescMessage): (page: { nextPageToken: string; totalCount: number; skipped: number }) => Uint8Array {
  const field = (name: string) => output.fields.find((f) => f.name === name);
  const [token, total, skipped] = [field('next_page_token'), field('total_count'), field('skipped')];
  return (page) => {
    const w = new BinaryWriter();
    // proto3: a default value is not written.
    if (token && page.nextPageToken) w.tag(token.number, WireType.LengthDelimited).string(page.nextPageToken);
    if (total && page.totalCount) w.tag(total.number, WireType.Varint).int64(page.totalCount);
    if (skipped && page.skipped) w.tag(skipped.number, WireType.Varint).int32(page.skipped);
    return w.finish();
  };
}

function protoAnswer(output: DescMessage, bytes: Uint8Array): Response {
  // The journal shows the answer as REST would have: its JSON, made only when read.
  return { proto: bytes, journalText: journalJson(output, bytes) };
}

function journalJson(output: DescMessage, bytes: Uint8Array): () => string {
  return () => JSON.stringify(toJson(output, fromBinary(output, bytes)));
}

function concat(parts: Uint8Array[]): Uint8Array {
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
}

/** Each record's message bytes, encoded once per record and version of what its wire form reads. */
class ProtoCache {
  private readonly cache = new WeakMap<Record_, { version: string; bytes: Uint8Array; asField?: { no: number; bytes: Uint8Array } }>();

  constructor(
    private readonly store: Store,
    private readonly schema: DescMessage,
    private readonly toWire: (r: Record_) => unknown,
    private readonly reads: readonly Kind[],
  ) {}

  private entry(r: Record_) {
    const version = this.reads.length ? this.store.versionOf(this.reads) : '';
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
  field(field: DescField, r: Record_): Uint8Array {
    const hit = this.entry(r);
    if (hit.asField?.no !== field.number) hit.asField = { no: field.number, bytes: new BinaryWriter().tag(field.number, WireType.LengthDelimited).bytes(hit.bytes).finish() };
    return hit.asField.bytes;
  }
}

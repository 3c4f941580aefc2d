// REST for a resource: parse the request, call one domain operation, render its wire form.
// Every resource gets its declared operations from its declaration and its domain module:
// list and get (the generic reads), create (the create body's resource object and parent),
// update (body and updateMask as changes) and delete. A route module replaces any of them
// (a create whose input is not its body's resource object) and adds custom methods.
import type * as z from 'zod';
import type { Resource } from '../../api/registry/index.js';
import { CREATE_BODIES } from '../../api/schemas.js';
import type { Deferred } from '../domain/context.js';
import type { Domain } from '../domain/index.js';
import type { Changes } from '../domain/patch.js';
import type { ReadOperations } from '../domain/reads.js';
import type { Principal } from '../auth/principal.js';
import type { ResourceRoutes, Response } from '../handler.js';
import { wireFormOf, WireJson, type WireList } from '../models.js';
import type { ListPage } from '../store/list.js';
import type { Record_, Store } from '../store/store.js';
import { listOptionsOf, parseListQuery } from './list-query.js';
import { changesOf, parseBody } from './parse.js';

/** What a REST route needs: the domain, and the store its wire forms read related records from. */
export interface RestContext {
  domain: Domain;
  store: Store;
}

/** A declaration's wire JSON, encoded once per record (see WireJson). */
function wireOf(rest: RestContext, d: Resource): WireJson {
  const form = wireFormOf(d.kind);
  return new WireJson(rest.store, (r: Record_) => form.toWire(r, rest.store), form.reads);
}

/** The writes a domain module offers in the generic shapes (method syntax: a module's own input types fit). */
interface WriteOperations {
  create(principal: Principal, input: { parent: string }): Promise<Record_>;
  update(principal: Principal, uid: string, changes: Deferred<Changes>): Promise<Record_>;
  delete(principal: Principal, uid: string): Promise<void>;
}

/** What the generic routes call: a domain module's operations in the generic shapes. */
export type GenericOperations = Partial<ReadOperations> & Partial<WriteOperations>;

export function resourceRoutes(rest: RestContext, d: Resource, ops: GenericOperations, own: Omit<ResourceRoutes, 'path'> = {}): ResourceRoutes {
  const routes: ResourceRoutes = { path: d.path };
  const wire = wireOf(rest, d);
  const toWire = wireFormOf(d.kind).toWire;
  const has = (op: Resource['operations'][number]) => d.operations.includes(op);
  const { list, get, create, update, delete: remove } = ops;
  if (list && has('list')) {
    const opts = listOptionsOf(d);
    routes.list = async (req) => listResponse(d.plural, await list(req.principal, () => parseListQuery(req.query, opts)), wire);
  }
  if (get && has('get')) routes.get = async (req) => ({ bodyJson: wire.one(await get(req.principal, req.uid)) });
  const body = createBodyOf(d);
  if (create && has('create') && body) {
    routes.create = async (req) => {
      const parsed = parseBody(body.schema, await req.json());
      const input = { ...(parsed[body.key] as Record<string, unknown>), parent: parsed.parent as string };
      return { body: toWire(await create(req.principal, input), rest.store) };
    };
  }
  if (update && has('update')) routes.update = async (req) => ({ body: toWire(await update(req.principal, req.uid, changesOf(req, d)), rest.store) });
  if (remove && has('delete')) routes.remove = async (req) => (await remove(req.principal, req.uid), {});
  return { ...routes, ...own };
}

/** The declaration's create body (`{parent, <key>: {...}}`) and the key of its resource object. */
function createBodyOf(d: Resource): { schema: z.ZodObject; key: string } | undefined {
  const schema = (CREATE_BODIES as Partial<Record<string, z.ZodObject>>)[d.kind];
  const key = schema && Object.keys(schema.shape).find((k) => k !== 'parent');
  return schema && key ? { schema, key } : undefined;
}

/**
 * A list route's response: the plural key, nextPageToken, totalCount as a string, skipped.
 * Sent as JSON spliced from each item's cached JSON, byte for byte what JSON.stringify makes
 * of the same object: for REST, the bytes of the page's items (encoded once per page, see
 * WireJson) between the few of its own fields.
 */
export function listResponse(plural: string, page: ListPage, wire: WireJson): Response {
  const items = wire.encode(page.items);
  const head = headOf(plural);
  const tail = `],"nextPageToken":${JSON.stringify(page.nextPageToken)},"totalCount":"${page.totalCount}","skipped":${page.skipped}}`;
  // The same page asked again within a millisecond has the same token: sent the same bytes.
  let body = bodies.get(items);
  if (body?.tail !== tail) bodies.set(items, (body = { tail, utf8: Buffer.concat([head.utf8, items.utf8, Buffer.from(tail)]) }));
  const { utf8 } = body;
  // The page's text is new for each request; the parts are cached and live on anyway.
  const text = joinLater(head.text, items.parts, tail);
  return { bodyJson: new PageJson(utf8, text), journalText: text };
}

/** A page's JSON as bytes; as text only for whoever asks (an RPC's transcoding, v1, MCP). */
class PageJson {
  constructor(
    readonly utf8: Buffer,
    private readonly textOf: () => string,
  ) {}

  get bytes(): number {
    return this.utf8.length;
  }

  get text(): string {
    return this.textOf();
  }
}

/** Each page's bytes as last sent, with the end they were sent with (its token, its counts). */
const bodies = new WeakMap<WireList, { tail: string; utf8: Buffer }>();

/** `{"<plural>":[`, as text and as bytes, made once per plural. */
const heads = new Map<string, { text: string; utf8: Buffer }>();

function headOf(plural: string): { text: string; utf8: Buffer } {
  let head = heads.get(plural);
  if (!head) {
    const text = `{${JSON.stringify(plural)}:[`;
    heads.set(plural, (head = { text, utf8: Buffer.from(text) }));
  }
  return head;
}

function joinLater(head: string, parts: readonly string[], tail: string): () => string {
  return () => head + parts.join(',') + tail;
}

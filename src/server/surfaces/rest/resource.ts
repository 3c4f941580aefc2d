// REST for a resource: parse the request into an operation's input (pipeline/operations.ts),
// run the one operation, render its output as the resource's wire form. Every resource gets
// the operations its declaration and domain module have: list and get, create (the create
// body), update (body and updateMask resolved here into changes) and delete. A route module
// adds custom methods and the paths beyond the generic ones.
import type { Resource } from '../../../api/registry/index.js';
import type { Domain } from '../../domain/index.js';
import type { Changes } from '../../domain/patch.js';
import type { Request, ResourceRoutes, Response } from '../../pipeline/handler.js';
import { createdToWire, wireFormOf, WireJson, type WireList } from '../wire.js';
import type { Operations, ResourceOperations } from '../../pipeline/operations.js';
import type { ListPage } from '../../store/list.js';
import type { Record_, Store } from '../../store/store.js';
import { resolveChanges, updateMaskParam } from '../changes.js';

/** What a REST route needs: the operations, the domain (custom methods), and the store its wire forms read related records from. */
export interface RestContext {
  domain: Domain;
  operations: Operations;
  store: Store;
}

/** A declaration's wire JSON, encoded once per record (see WireJson). */
function wireOf(rest: RestContext, d: Resource): WireJson {
  const form = wireFormOf(d.kind);
  return new WireJson(rest.store, (r: Record_) => form.toWire(r, rest.store), form.reads);
}

/** A PATCH's changes (body and updateMask), read when the operation asks (after authorizing the caller). */
function changesOf(req: Request, d: Resource): () => Promise<Changes> {
  return async () => resolveChanges(await req.json(), updateMaskParam(req.query), d);
}

export function resourceRoutes(rest: RestContext, ops: ResourceOperations, own: Omit<ResourceRoutes, 'path'> = {}): ResourceRoutes {
  const d = ops.resource;
  const routes: ResourceRoutes = { path: d.path };
  const wire = wireOf(rest, d);
  const toWire = wireFormOf(d.kind).toWire;
  const { list, get, create, update, delete: remove } = ops;
  if (list) routes.list = async (req) => listResponse(d.plural, await list.run(req.principal, { params: req.query }), wire);
  if (get) routes.get = async (req) => ({ bodyJson: wire.one(await get.run(req.principal, { uid: req.uid })) });
  if (create) routes.create = async (req) => ({ body: createdToWire(d.kind, await create.run(req.principal, create.parse(await req.json())), rest.store) });
  if (update) routes.update = async (req) => ({ body: toWire(await update.run(req.principal, { uid: req.uid, changes: changesOf(req, d) }), rest.store) });
  if (remove) routes.remove = async (req) => (await remove.run(req.principal, { uid: req.uid }), {});
  return { ...routes, ...own };
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

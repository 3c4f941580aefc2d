// REST for a resource: parse the request, call one domain operation, render its wire form.
// Every resource gets list and get from its declaration (the domain's generic reads); a
// route module adds create, update, delete and custom methods.
import type { Resource } from '../../api/registry/index.js';
import type { Domain } from '../domain/index.js';
import type { ReadOperations } from '../domain/reads.js';
import type { ResourceRoutes, Response } from '../handler.js';
import { TO_WIRE, WIRE_READS, WireJson } from '../models.js';
import type { ListPage } from '../store/list.js';
import type { Record_, Store } from '../store/store.js';

/** What a REST route needs: the domain, and the store its wire forms read related records from. */
export interface RestContext {
  domain: Domain;
  store: Store;
}

/** A declaration's wire JSON, encoded once per record (see WireJson). */
function wireOf(rest: RestContext, d: Resource): WireJson {
  return new WireJson(rest.store, (r: Record_) => TO_WIRE[d.kind](r, rest.store), WIRE_READS[d.kind]);
}

export function resourceRoutes(rest: RestContext, d: Resource, reads: Partial<ReadOperations>, own: Omit<ResourceRoutes, 'path'> = {}): ResourceRoutes {
  const routes: ResourceRoutes = { path: d.path };
  const wire = wireOf(rest, d);
  const { list, get } = reads;
  if (list && d.operations.includes('list')) routes.list = async (req) => listResponse(d.plural, await list(req.principal, req.query), wire);
  if (get && d.operations.includes('get')) routes.get = async (req) => ({ bodyJson: wire.encode([await get(req.principal, req.uid)]) });
  return { ...routes, ...own };
}

/**
 * A list route's response: the plural key, nextPageToken, totalCount as a string, skipped.
 * Sent as JSON spliced from each item's cached JSON, byte for byte what JSON.stringify makes
 * of the same object.
 */
export function listResponse(plural: string, page: ListPage, wire: WireJson): Response {
  const items = wire.encode(page.items);
  const head = `{${JSON.stringify(plural)}:[`;
  const tail = `],"nextPageToken":${JSON.stringify(page.nextPageToken)},"totalCount":"${page.totalCount}","skipped":${page.skipped}}`;
  return {
    bodyJson: { text: head + items.text + tail, bytes: Buffer.byteLength(head) + items.bytes + Buffer.byteLength(tail) },
    // The page's text is new for each request; the parts are cached and live on anyway.
    journalText: joinLater(head, items.parts, tail),
  };
}

function joinLater(head: string, parts: string[], tail: string): () => string {
  return () => head + parts.join(',') + tail;
}

// The shared list parameters of the spec, and (re-exported) the resource registry of
// src/api/registry/, where each resource is declared once.
import type { AnyResource } from './registry/index.js';

export type ResourceDescriptor = AnyResource;
export * from './registry/index.js';

// ---- shared list parameters (spec: "Shared List parameters") ----

export const PAGE_SIZE_DEFAULT = 50;
export const PAGE_SIZE_MAX = 200;
/** Page tokens older than this restart the query from the beginning (spec rule 5). */
export const PAGE_TOKEN_TTL_MS = 3 * 24 * 60 * 60 * 1000;

/** order_by keys and the field each sorts on; `created_at` is the spec's spelling of createTime. */
export const ORDER_FIELDS: Record<string, 'uid' | 'name' | 'createTime' | 'updateTime'> = {
  uid: 'uid',
  name: 'name',
  createTime: 'createTime',
  create_time: 'createTime',
  created_at: 'createTime',
  updateTime: 'updateTime',
  update_time: 'updateTime',
  updated_at: 'updateTime',
};

export interface ListQuery {
  pageSize?: number;
  pageToken?: string;
  orderBy?: string;
  skip?: number;
  descendantsOf?: string;
  childrenOf?: string;
  name?: string;
  /** Resource-specific filters (artifactNames, advisoryIds), each a list of exact values. */
  filters?: Record<string, string[]>;
}

/** Query-string form of a ListQuery, with the wire parameter names. */
export function listQueryParams(q: ListQuery): [string, string][] {
  const out: [string, string][] = [];
  if (q.pageSize !== undefined) out.push(['page_size', String(q.pageSize)]);
  if (q.pageToken) out.push(['page_token', q.pageToken]);
  if (q.orderBy) out.push(['order_by', q.orderBy]);
  if (q.skip) out.push(['skip', String(q.skip)]);
  if (q.descendantsOf) out.push(['uidp.descendants_of', q.descendantsOf]);
  if (q.childrenOf) out.push(['uidp.children_of', q.childrenOf]);
  if (q.name !== undefined) out.push(['name', q.name]);
  for (const [key, values] of Object.entries(q.filters ?? {})) for (const v of values) out.push([key, v]);
  return out;
}

/**
 * The order pctl's lists ask for when the caller names none, in the CLI and the MCP tools alike:
 * by name, as a person reads a list (the API's own default is uid order).
 */
export const DEFAULT_LIST_ORDER = 'name';

/** The query with the declaration's listDefaults (a filter the API requires) for the filters it leaves unset. */
export function withListDefaults(d: AnyResource, q: ListQuery): ListQuery {
  if (!d.listDefaults) return q;
  const filters = { ...q.filters };
  for (const [key, values] of Object.entries(d.listDefaults)) filters[key] ??= [...values];
  return { ...q, filters };
}

/** Percent-encodes each `/`-separated segment of a uid, keeping the separators (the server accepts both). */
export function encodeUidPath(uid: string): string {
  return uid.split('/').map(encodeURIComponent).join('/');
}

/** The path of one item of `d`: `${d.path}/${uid}`. */
export function itemPath(d: AnyResource, uid: string): string {
  return `${d.path}/${encodeUidPath(uid)}`;
}

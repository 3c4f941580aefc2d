// Resource descriptors: the small table that client, CLI and server all read, so that a
// resource's paths, plural key, filters and writable fields are stated once.
import type { z } from 'zod';
import * as s from './schemas.js';

export interface ResourceDescriptor<T extends z.ZodType = z.ZodType> {
  /** Singular, as used in messages: "Group". */
  kind: string;
  /** The list envelope key and the last segment of the collection path. */
  plural: string;
  /** Collection path; a single resource lives at `${path}/${uid}`. */
  path: string;
  schema: T;
  /** Query filters this list accepts beyond the shared ones. Repeatable filters take `a,b` or repeats. */
  extraFilters: readonly string[];
  /** Fields an update may name in updateMask (dotted for nested fields). */
  updatable: readonly string[];
  /** Fields the server sets; in a PATCH body without a mask they are ignored, in a mask they are an error. */
  outputOnly: readonly string[];
}

function descriptor<T extends z.ZodType>(d: ResourceDescriptor<T>): ResourceDescriptor<T> {
  return d;
}

export const groups = descriptor({
  kind: 'Group', plural: 'groups', path: '/iam/v2/groups', schema: s.Group,
  extraFilters: [], updatable: ['name', 'description'],
  outputOnly: ['uid', 'createTime', 'updateTime', 'verified', 'resourceLimits'],
});

export const identities = descriptor({
  kind: 'Identity', plural: 'identities', path: '/iam/v2/identities', schema: s.Identity,
  extraFilters: [], updatable: ['name', 'description', 'claimMatch', 'claimMatch.issuer', 'claimMatch.subject'],
  outputOnly: ['uid', 'createTime', 'updateTime', 'lastSeenTime'],
});

export const roles = descriptor({
  kind: 'Role', plural: 'roles', path: '/iam/v2/roles', schema: s.Role,
  extraFilters: [], updatable: ['name', 'description', 'capabilities'],
  outputOnly: ['uid', 'createTime', 'updateTime'],
});

export const roleBindings = descriptor({
  kind: 'RoleBinding', plural: 'roleBindings', path: '/iam/v2/roleBindings', schema: s.RoleBinding,
  extraFilters: [], updatable: [],
  outputOnly: ['uid', 'createTime', 'identity', 'group', 'role'],
});

export const repos = descriptor({
  kind: 'Repo', plural: 'repos', path: '/registry/v2/repos', schema: s.Repo,
  extraFilters: [], updatable: ['name', 'description'],
  outputOnly: ['uid', 'createTime', 'updateTime'],
});

export const tags = descriptor({
  kind: 'Tag', plural: 'tags', path: '/registry/v2/tags', schema: s.Tag,
  extraFilters: [], updatable: [],
  outputOnly: ['uid', 'createTime', 'updateTime'],
});

export const advisories = descriptor({
  kind: 'Advisory', plural: 'advisories', path: '/vulnerabilities/v2/advisories', schema: s.Advisory,
  extraFilters: ['artifactNames', 'advisoryIds'], updatable: [],
  outputOnly: ['uid', 'createTime', 'updateTime'],
});

export const resources = { groups, identities, roles, roleBindings, repos, tags, advisories } as const;
export type ResourceName = keyof typeof resources;

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

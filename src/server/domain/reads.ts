// The reads every resource gets from its registry declaration: list (scoped by the caller's
// `.list` grants, filtered by the declared filters) and get (404, then 403).
import { capability, type Resource } from '../../api/registry/index.js';
import type { Principal } from '../auth/principal.js';
import type { FilterColumns, ListPage } from '../store/list.js';
import type { Kind, Record_ } from '../store/store.js';
import { readable, type DomainContext } from './context.js';

/** The spec's shared list parameters (page_size, page_token, order_by, skip, uidp.*, name) and a resource's filters, by name. */
export type ListParams = URLSearchParams;

export interface ReadOperations<K extends Kind = Kind> {
  /** A page of what the caller may see; the records are the store's shared ones: read-only. */
  list: (principal: Principal, params: ListParams) => Promise<ListPage>;
  /** One resource the caller may read (404, then 403); read-only. */
  get: (principal: Principal, uid: string) => Promise<Record_<K>>;
}

function filterColumnsOf(d: Resource): FilterColumns {
  return Object.fromEntries(Object.entries(d.filters).map(([param, f]) => [param, f.column]));
}

export function readOperations<K extends Kind>(ctx: DomainContext, d: Resource & { storeKind: K }): ReadOperations<K> {
  const filterColumns = filterColumnsOf(d);
  const cap = d.operations.includes('list') ? capability(d, 'list') : '';
  return {
    list: async (principal, params) =>
      ctx.lists.list(params, { kind: d.storeKind, filterColumns, scope: ctx.authz.scope(principal, cap, d.visibility === 'global') }),
    get: async (principal, uid) => readable(ctx, principal, d, uid),
  };
}

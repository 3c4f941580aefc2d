// The reads every resource gets from its registry declaration: list (scoped by the caller's
// `.list` grants, filtered by the declared filters) and get (404, then 403).
import { capability, type Resource } from '../../api/registry/index.js';
import type { Principal } from '../auth/principal.js';
import type { FilterColumns, ListPage, ListQuery } from '../store/list.js';
import type { Kind, Record_ } from '../store/store.js';
import { readable, resolve, type Deferred, type DomainContext } from './context.js';

/**
 * What a list asks for (page, order, uidp scope, name, the resource's filters), parsed by the
 * surface; deferred, so that a caller without access learns nothing from how it is judged.
 */
export type ListInput = Deferred<ListQuery>;

export interface ReadOperations<K extends Kind = Kind> {
  /** A page of what the caller may see; the records are the store's shared ones: read-only. */
  list: (principal: Principal, query: ListInput) => Promise<ListPage>;
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
    list: async (principal, query) => {
      const scope = ctx.authz.scope(principal, cap, d.visibility === 'global');
      return ctx.lists.list(await resolve(query), { kind: d.storeKind, filterColumns, scope });
    },
    get: async (principal, uid) => readable(ctx, principal, d, uid),
  };
}

// The routes every resource gets from its registry declaration: list (scoped by the
// caller's `.list` grants, filtered by the declared filters) and get (404, then 403), each
// answering the resource's typed wire form. A route module adds create, update and delete,
// and may wrap these.
import { capability, type Resource } from '../../api/registry/index.js';
import { listResponse, readable, type ServerContext } from '../context.js';
import type { ResourceRoutes } from '../http.js';
import type { FilterColumns } from '../store/list.js';
import { TO_WIRE, WIRE_READS, WireJson } from '../models.js';
import type { Record_ } from '../store/store.js';

export function resourceRoutes(ctx: ServerContext, d: Resource, own: Omit<ResourceRoutes, 'path'> = {}): ResourceRoutes {
  const toWire = (r: Record_) => TO_WIRE[d.kind](r, ctx.store);
  const filterColumns: FilterColumns = Object.fromEntries(Object.entries(d.filters).map(([param, f]) => [param, f.column]));
  const routes: ResourceRoutes = { path: d.path };
  const wire = new WireJson(ctx.store, toWire, WIRE_READS[d.kind]);
  if (d.operations.includes('list')) {
    const cap = capability(d, 'list');
    routes.list = (req) =>
      listResponse(ctx, d.plural, req.query, { kind: d.storeKind, filterColumns, scope: ctx.authz.scope(req.principal, cap, d.visibility === 'global') }, wire);
  }
  if (d.operations.includes('get')) routes.get = (req) => ({ bodyJson: wire.encode([readable(ctx, req.principal, d, req.uid)]) });
  return { ...routes, ...own };
}

// /vulnerabilities/v2/: advisories (list, get). Advisories are flat (uid: 32 lower-case
// hex) and come from seeds. They keep artifactName in the `name` column and advisoryId in
// `alt_key`, so the list engine's exact-match filters serve `artifactNames` and `advisoryIds`
// (each repeatable and comma-separated).
import * as R from '../../api/resources.js';
import { permissionDenied } from '../auth/authorize.js';
import { listResponse, mustGet, type ServerContext } from '../context.js';
import type { ResourceRoutes } from '../http.js';
import type { FilterColumns } from '../list.js';
import { advisoryToWire } from '../models.js';

export const ADVISORY_FILTERS: FilterColumns = { artifactNames: 'name', advisoryIds: 'alt_key' };

export function vulnerabilityRoutes(ctx: ServerContext): ResourceRoutes[] {
  const { authz } = ctx;
  // Advisories lie outside the group hierarchy: advisories.list held on any group lets a caller read them all.
  const advisories: ResourceRoutes = {
    path: R.advisories.path,
    list: (req) =>
      listResponse(ctx, 'advisories', req.query, {
        kind: 'advisory', filterColumns: ADVISORY_FILTERS, scope: authz.scope(req.principal, 'advisories.list', true),
      }, advisoryToWire),
    get: (req) => {
      const rec = mustGet(ctx, 'advisory', 'Advisory', req.uid);
      if (!authz.canAnywhere(req.principal, 'advisories.list')) throw permissionDenied('advisories.list', 'any group');
      return { body: advisoryToWire(rec) };
    },
  };
  return [advisories];
}

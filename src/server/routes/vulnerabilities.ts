// /vulnerabilities/v2/: advisories (list, get). Advisories are flat (uid: 32 lower-case
// hex) and come from seeds. They keep artifactName in the `name` column and advisoryId in
// `alt_key`, so the list engine's exact-match filters serve `artifactNames` and `advisoryIds`
// (each repeatable and comma-separated).
import * as R from '../../api/resources.js';
import { listResponse, mustGet, type ServerContext } from '../context.js';
import type { ResourceRoutes } from '../http.js';
import type { FilterColumns } from '../list.js';
import { advisoryToWire } from '../models.js';

export const ADVISORY_FILTERS: FilterColumns = { artifactNames: 'name', advisoryIds: 'alt_key' };

export function vulnerabilityRoutes(ctx: ServerContext): ResourceRoutes[] {
  const advisories: ResourceRoutes = {
    path: R.advisories.path,
    list: (req) => listResponse(ctx, 'advisories', req.query, { kind: 'advisory', filterColumns: ADVISORY_FILTERS }, advisoryToWire),
    get: (req) => ({ body: advisoryToWire(mustGet(ctx, 'advisory', 'Advisory', req.uid)) }),
  };
  return [advisories];
}

// /vulnerabilities/v2/: advisories (list, get), from seeds. Everything they need is in their
// registry declaration: outside the group tree (`.list` held on any group reads them all),
// and their filters (artifactNames, advisoryIds) match stored columns exactly.
import { advisories } from '../../api/registry/index.js';
import type { ServerContext } from '../context.js';
import type { ResourceRoutes } from '../http.js';
import { resourceRoutes } from './resource.js';

export function vulnerabilityRoutes(ctx: ServerContext): ResourceRoutes[] {
  return [resourceRoutes(ctx, advisories)];
}

// Roles are named by users (`viewer`) and addressed by uid on the wire; the rule is
// src/api/references.ts's.
import type { Role } from '../../api/schemas.js';
import type { ApiClient } from '../../client/index.js';
import { cliReferences } from './resolve.js';

/** A role by uid or by exact name; a NOT_FOUND ApiError (exit 3) when neither matches. */
export async function resolveRole(client: ApiClient, uidOrName: string): Promise<Role> {
  return (await cliReferences(async () => client).role(uidOrName)) as Role;
}

// Roles are named by users (`viewer`) and addressed by uid on the wire; the rule is
// src/api/references.ts's.
import type { Role } from '../../api/schemas.js';
import type { ApiClient } from '../../client/index.js';
import { cliErrors, cliReferences } from './resolve.js';

/** A role by uid, exact name or uid suffix: not found (exit 3) when none matches, a usage error (exit 2) when several do. */
export async function resolveRole(client: ApiClient, ref: string, flag?: string): Promise<Role> {
  return (await cliErrors(cliReferences(async () => client).role(ref, flag))) as Role;
}

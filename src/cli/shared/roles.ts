// Roles are named by users (`viewer`) and addressed by uid on the wire.
import { ApiError, Code } from '../../api/errors.js';
import { roles } from '../../api/resources.js';
import type { Role } from '../../api/schemas.js';
import type { ApiClient } from '../../client/index.js';

/** A role by uid or by exact name; a NOT_FOUND ApiError (exit 3) when neither matches. */
export async function resolveRole(client: ApiClient, uidOrName: string): Promise<Role> {
  // Roles are few: one listing resolves both spellings without guessing which one was meant.
  let byName: Role | undefined;
  for await (const role of client.list(roles)) {
    if (role.uid === uidOrName) return role;
    if (role.name === uidOrName) byName ??= role;
  }
  if (byName) return byName;
  throw new ApiError(Code.NOT_FOUND, `Role not found: ${uidOrName} (see: pctl roles list)`, {
    reason: 'NOT_FOUND',
    fieldViolations: [{ field: 'role', description: `no role has the uid or name ${uidOrName}` }],
  });
}

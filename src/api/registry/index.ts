// The resource registry: every resource of the API, declared once (one file each), in the
// order the CLI lists them. Adding a resource is a file here and a line below.
import { accountAssociations } from './account-associations.js';
import { advisories } from './advisories.js';
import { artifacts } from './artifacts.js';
import type { Operation, ResourceDecl, WireName } from './define.js';
import { groupInvites } from './group-invites.js';
import { groups } from './groups.js';
import { identities } from './identities.js';
import { identityProviders } from './identity-providers.js';
import { repos } from './repos.js';
import { roleBindings } from './role-bindings.js';
import { roles } from './roles.js';
import { subscriptions } from './subscriptions.js';
import { tags } from './tags.js';

export const resources = { groups, identities, roles, roleBindings, identityProviders, groupInvites, accountAssociations, repos, tags, advisories, artifacts, subscriptions } as const;
export type ResourceName = keyof typeof resources;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a registry entry whatever its wire type, so entries can be listed together
export type AnyResource = ResourceDecl<WireName, any>;

/** Every declaration, in registry order. */
export const registry: readonly AnyResource[] = Object.values(resources);

/** The declaration whose store kind is `kind`. */
export function byStoreKind(kind: string): AnyResource | undefined {
  return registry.find((r) => r.storeKind === kind);
}

/** The capability an operation needs: a get needs `.list` (the vendor's naming: `identity.list`). */
export function capability(d: AnyResource, op: Operation): string {
  const verb = op === 'get' ? 'list' : op;
  if (!d.operations.includes(op)) throw new Error(`${d.kind} has no ${op} operation`);
  return `${d.capability}.${verb}`;
}

export type { AnyResource as Resource };
export { accountAssociations, advisories, artifacts, groupInvites, groups, identities, identityProviders, repos, roleBindings, roles, subscriptions, tags };

// The resource registry: every resource of the API, declared once (one file each), in the
// order the CLI lists them. Adding a resource is a file here and a line below.
import { accountAssociations } from './account-associations.js';
import { advisories } from './advisories.js';
import { artifacts } from './artifacts.js';
import type { Operation, ResourceDecl, WireName } from './define.js';
import { PUBLISHED_RULES, type PublishedRule } from './published-rules.js';
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

/** A standard operation, or a method of the resource's published service beyond them (`UpdateRoleBinding`). */
type OperationOrMethod = Operation | (string & {});

const pascal = (s: string) => s[0]!.toUpperCase() + s.slice(1);

/**
 * The published method answering an operation (`chainguard.platform.iam.v2.GroupsService/ListGroups`),
 * or one of the service's other methods by name (`UpdateRoleBinding`).
 */
export function publishedMethod(d: AnyResource, op: OperationOrMethod): string {
  const standard = ['list', 'get', 'create', 'update', 'delete'].includes(op);
  const own = standard ? d.published.methods?.[op as Operation] : undefined;
  if (own) return own;
  return `${d.published.service}/${standard ? `${pascal(op)}${op === 'list' ? pascal(d.plural) : d.kind}` : op}`;
}

/** The vendor's rule of an operation or a method: its `chainguard.annotations.iam` and `.events`; none when it publishes no such method. */
export function publishedRule(d: AnyResource, op: OperationOrMethod): PublishedRule | undefined {
  return PUBLISHED_RULES[publishedMethod(d, op)];
}

/**
 * The capabilities an operation (or a method beyond the standard ones) needs, every one: its
 * published method's `chainguard.annotations.iam`; where the vendor publishes no method, serve's
 * own `<prefix>.<verb>` (a get needs `.list`).
 */
export function capabilities(d: AnyResource, op: OperationOrMethod): readonly string[] {
  const rule = publishedRule(d, op);
  if (rule) return rule.capabilities;
  if (!(d.operations as readonly string[]).includes(op)) throw new Error(`${d.kind} has no ${op} operation and the vendor publishes no ${publishedMethod(d, op)}`);
  return [`${d.capability}.${op === 'get' ? 'list' : op}`];
}

/** The capability an operation is known by: the first it needs (what a list is scoped by). */
export function capability(d: AnyResource, op: OperationOrMethod): string {
  const caps = capabilities(d, op);
  if (!caps[0]) throw new Error(`${publishedMethod(d, op)} needs no capability`);
  return caps[0];
}

export type { AnyResource as Resource };
export { accountAssociations, advisories, artifacts, groupInvites, groups, identities, identityProviders, repos, roleBindings, roles, subscriptions, tags };

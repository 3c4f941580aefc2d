// What every resource that hands out a role checks (role bindings, identity providers'
// default role, invites): the role is one the caller can see, usable on the group (built in,
// or defined on the group or an ancestor), and made of capabilities the caller holds there
// itself, so that nobody grants more than they have (ensureCouldGrant). Changing who an
// identity is, or deleting it, hands its bindings to someone else or takes them away, so it
// is held to the same rule for each of them (ensureCouldGrantBindingsOf).
import { ApiError, Code, invalidField } from '../../api/errors.js';
import { capability, roleBindings, roles } from '../../api/registry/index.js';
import { within } from '../auth/authorize.js';
import type { Principal } from '../auth/principal.js';
import type { Record_ } from '../store/store.js';
import type { DomainContext } from './context.js';

/** Built-in roles are outside the hierarchy: anyone holding roles.list somewhere sees them. */
export function roleVisible(ctx: DomainContext, principal: Principal, role: Record_<'role'>): boolean {
  const cap = capability(roles, 'list');
  return role.parent ? ctx.authz.can(principal, cap, role.uid) : ctx.authz.canAnywhere(principal, cap);
}

/** 403 naming what is missing unless the caller holds every one of `capabilities` on the group. */
export function ensureHolds(ctx: DomainContext, principal: Principal, groupUid: string, capabilities: readonly string[], what: string): void {
  const missing = missingOn(ctx, principal, groupUid, capabilities);
  if (missing.length) throw denied(`to ${what} you must hold ${missing.join(', ')} on ${groupUid}`, missing, groupUid);
}

/**
 * No escalation, the one rule: granting `role` on `groupUid` needs every capability of the
 * role held there by the caller itself. Otherwise PERMISSION_DENIED naming `binding` (the
 * grant, in words) and what the caller lacks.
 */
export function ensureCouldGrant(ctx: DomainContext, principal: Principal, groupUid: string, role: Record_<'role'> | undefined, binding: string, what: string): void {
  const missing = missingOn(ctx, principal, groupUid, role?.data.capabilities ?? []);
  if (missing.length) throw denied(`to ${what} you must be able to grant ${binding}, and you do not hold ${missing.join(', ')} on ${groupUid}`, missing, groupUid);
}

/**
 * No escalation through identities: whoever may change which tokens act as `identity` (its
 * claimMatch) or delete it must be able to grant every role binding it holds, each on its own
 * group, as if creating them. Call inside the write that changes the identity.
 */
export function ensureCouldGrantBindingsOf(ctx: DomainContext, principal: Principal, identity: Record_<'identity'>, what: string): void {
  for (const binding of ctx.store.findByAltKeyFirstPart(roleBindings.storeKind, identity.uid)) {
    const role = ctx.store.get(binding.data.roleUid, roles.storeKind);
    const named = `its role binding ${binding.uid} (role ${role?.name ?? binding.data.roleUid} on ${binding.parent!})`;
    ensureCouldGrant(ctx, principal, binding.parent!, role, named, what);
  }
}

function missingOn(ctx: DomainContext, principal: Principal, groupUid: string, capabilities: readonly string[]): string[] {
  const held = ctx.authz.capabilitiesOn(principal, groupUid);
  return capabilities.filter((c) => !held.has(c));
}

function denied(why: string, missing: string[], groupUid: string): ApiError {
  return new ApiError(Code.PERMISSION_DENIED, `Permission denied: ${why}`, {
    reason: 'PERMISSION_DENIED',
    metadata: { capability: missing.join(','), resource: groupUid },
  });
}

/**
 * The role `roleUid` names, for handing out on `groupUid`: code 3 on `field` when it is no role
 * the caller can see (saying nothing more), or one defined elsewhere; 403 when it holds more
 * than the caller does there.
 */
export function grantableRole(ctx: DomainContext, principal: Principal, groupUid: string, roleUid: string, field: string): Record_<'role'> {
  const role = ctx.store.get(roleUid, roles.storeKind);
  if (!role || !roleVisible(ctx, principal, role)) throw invalidField(field, `names no role: ${roleUid}`);
  if (role.parent && !within(groupUid, role.parent)) {
    throw invalidField(field, `role ${role.name} is defined on group ${role.parent} and can only be used there or below`);
  }
  ensureCouldGrant(ctx, principal, groupUid, role, `role ${role.name} on ${groupUid}`, 'hand out this role');
  return role;
}

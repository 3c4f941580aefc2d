// What every resource that hands out a role checks (role bindings, identity providers'
// default role, invites): the role is one the caller can see, usable on the group (built in,
// or defined on the group or an ancestor), and made of capabilities the caller holds there
// itself, so that nobody grants more than they have.
import { ApiError, Code, invalidField } from '../../api/errors.js';
import { capability, roles } from '../../api/registry/index.js';
import type { Principal } from '../auth/principal.js';
import { within } from '../auth/authorize.js';
import type { Record_ } from '../store/store.js';
import type { DomainContext } from './context.js';

/** Built-in roles are outside the hierarchy: anyone holding roles.list somewhere sees them. */
export function roleVisible(ctx: DomainContext, principal: Principal, role: Record_): boolean {
  const cap = capability(roles, 'list');
  return role.parent ? ctx.authz.can(principal, cap, role.uid) : ctx.authz.canAnywhere(principal, cap);
}

/** 403 naming what is missing unless the caller holds every one of `capabilities` on the group. */
export function ensureHolds(ctx: DomainContext, principal: Principal, groupUid: string, capabilities: readonly string[], what: string): void {
  const held = ctx.authz.capabilitiesOn(principal, groupUid);
  const missing = capabilities.filter((c) => !held.has(c));
  if (missing.length) {
    throw new ApiError(Code.PERMISSION_DENIED, `Permission denied: to ${what} you must hold ${missing.join(', ')} on ${groupUid}`, {
      reason: 'PERMISSION_DENIED',
      metadata: { capability: missing.join(','), resource: groupUid },
    });
  }
}

export function roleCapabilities(role: Record_): string[] {
  return Array.isArray(role.data.capabilities) ? (role.data.capabilities as string[]) : [];
}

/**
 * The role `roleUid` names, for handing out on `groupUid`: code 3 on `field` when it is no role
 * the caller can see (saying nothing more), or one defined elsewhere; 403 when it holds more
 * than the caller does there.
 */
export function grantableRole(ctx: DomainContext, principal: Principal, groupUid: string, roleUid: string, field: string): Record_ {
  const role = ctx.store.get(roleUid, roles.storeKind);
  if (!role || !roleVisible(ctx, principal, role)) throw invalidField(field, `names no role: ${roleUid}`);
  if (role.parent && !within(groupUid, role.parent)) {
    throw invalidField(field, `role ${role.name} is defined on group ${role.parent} and can only be used there or below`);
  }
  ensureHolds(ctx, principal, groupUid, roleCapabilities(role), 'hand out this role');
  return role;
}

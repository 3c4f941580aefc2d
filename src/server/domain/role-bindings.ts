// Role bindings: identity I holds role R on group G (and everything below it). The one
// place a binding is made, whoever makes it: a caller (POST /iam/v2/roleBindings), an invite
// being redeemed, a seed, bootstrap.
import { alreadyExists, invalidField, notFound } from '../../api/errors.js';
import { capabilities, capability, groups as G, identities as I, roleBindings as RB, roles as RL } from '../../api/registry/index.js';
import { within } from '../auth/authorize.js';
import type { Principal } from '../auth/principal.js';
import type { Record_ } from '../store/store.js';
import { authorize, commit, mustGet, now, type DomainContext } from './context.js';
import { ensureCouldGrant, roleVisible } from './grants.js';
import { readOperations } from './reads.js';
import { records } from './kinds/index.js';
import { bindingKey, newChildUid } from './records.js';

export interface NewRoleBinding {
  parent: string;
  identityUid: string;
  roleUid: string;
}

/**
 * Whose authority a binding is made on:
 * - `caller`: the principal's own. The identity and the role must be ones it may read (any
 *   other answers as one that does not exist), the role usable on the group, and every
 *   capability of the role held by the principal there (no escalation); an existing binding
 *   of the identity and role on the group is code 6.
 * - `invite`: an invite's, being redeemed by the principal for itself. The invite's creator
 *   passed the caller's checks when making it, so the redeemer needs neither to see the role
 *   nor to hold it; redeeming twice leaves the one binding (returned as it is).
 */
export type BindingAuthority = 'caller' | 'invite';

export function roleBindingOperations(ctx: DomainContext) {
  return {
    ...readOperations(ctx, RB),

    async create(principal: Principal, input: NewRoleBinding): Promise<Record_<'roleBinding'>> {
      authorize(ctx, principal, capabilities(RB, 'create'), G, input.parent, 'parent');
      return commit(ctx, principal, 'roleBindings.create', () => bindRole(ctx, principal, input, 'caller'));
    },

    /**
     * Several bindings under one group, atomically (the published BatchCreateRoleBindings: all
     * or none, one write, one event). Its rule is checked on each binding's group, then each is
     * held to create's checks (the identity and role readable, no escalation, no duplicate).
     */
    async batchCreate(principal: Principal, inputs: readonly NewRoleBinding[]): Promise<Record_<'roleBinding'>[]> {
      for (const [i, input] of inputs.entries()) authorize(ctx, principal, capabilities(RB, 'BatchCreateRoleBindings'), G, input.parent, `requests[${i}].parent`);
      return commit(ctx, principal, 'roleBindings.BatchCreateRoleBindings', () => inputs.map((input) => bindRole(ctx, principal, input, 'caller')));
    },

    /**
     * A binding's identity and role changed in place (the published UpdateRoleBinding), keeping
     * its uid and creation time: the method's rule (role_bindings.update) on the binding, and
     * the new grant held to create's checks (the identity and role readable, no escalation, no
     * duplicate).
     */
    async replace(principal: Principal, uid: string, change: { identityUid?: string; roleUid?: string }): Promise<Record_<'roleBinding'>> {
      authorize(ctx, principal, capabilities(RB, 'UpdateRoleBinding'), RB, uid);
      return commit(ctx, principal, 'roleBindings.update', () => {
        const old = mustGet(ctx, RB, uid);
        ctx.store.remove(uid);
        const input = { parent: old.parent!, identityUid: change.identityUid || String(old.data.identityUid), roleUid: change.roleUid || String(old.data.roleUid) };
        return bindRole(ctx, principal, input, 'caller', { uid, createTime: old.createTime });
      });
    },

    async delete(principal: Principal, uid: string): Promise<void> {
      authorize(ctx, principal, capabilities(RB, 'delete'), RB, uid);
      await commit(ctx, principal, 'roleBindings.delete', () => {
        mustGet(ctx, RB, uid);
        ctx.store.remove(uid);
      });
    },
  };
}

/** In a write: binds the role on `authority` (see BindingAuthority). */
export function bindRole(ctx: DomainContext, principal: Principal, input: NewRoleBinding, authority: BindingAuthority, replacing?: { uid: string; createTime: string }): Record_<'roleBinding'> {
  const { parent, identityUid, roleUid } = input;
  const byCaller = authority === 'caller';
  mustGet(ctx, G, parent, 'parent');
  // A binding names only an identity (or the caller itself) and a role the caller may read;
  // any other answers exactly as one that does not exist, so creating a binding discloses nothing.
  const mayRead = !byCaller || identityUid === principal.identityUid || ctx.authz.can(principal, capability(I, 'list'), identityUid);
  if (!ctx.store.get(identityUid, I.storeKind) || !mayRead) throw notFound(I.kind, identityUid, 'identityUid');
  const role = ctx.store.get(roleUid, RL.storeKind);
  if (!role || (byCaller && !roleVisible(ctx, principal, role))) throw notFound(RL.kind, roleUid, 'roleUid');
  if (role.parent && !within(parent, role.parent)) {
    throw invalidField('roleUid', `role ${role.name} is defined on group ${role.parent} and can only be bound there or below`);
  }
  // No escalation: nobody grants what they do not hold themselves.
  if (byCaller) ensureCouldGrant(ctx, principal, parent, role, `role ${role.name} on ${parent}`, 'bind this role');
  const duplicate = ctx.store.findByAltKey(RB.storeKind, bindingKey(identityUid, roleUid)).find((b) => b.parent === parent);
  if (duplicate && !byCaller) return duplicate;
  if (duplicate) {
    const named = ctx.authz.can(principal, capability(RB, 'list'), duplicate.uid) ? `: ${duplicate.uid}` : '';
    throw alreadyExists(`This identity already has this role on this group${named}`);
  }
  // Role bindings sort by role name, the closest thing they have to a name.
  const rec = records.roleBinding({ uid: replacing?.uid ?? newChildUid(ctx.random, parent), parent, identityUid, roleUid, roleName: role.name, createTime: replacing?.createTime ?? now(ctx) });
  ctx.store.insert(rec);
  return rec;
}

// Roles: custom roles on a group, made of known capabilities the creator holds there itself;
// built-in roles (outside the hierarchy) are read-only. A role still bound cannot go.
import { BUILTIN_ROLES, CAPABILITIES } from '../../api/capabilities.js';
import { alreadyExists, failedPrecondition, invalidArgument, invalidField } from '../../api/errors.js';
import { capabilities as capabilitiesOf, groups as G, roleBindings as RB, roles as RL } from '../../api/registry/index.js';
import { UPDATE_RULES } from '../../api/schemas.js';
import type { Principal } from '../auth/principal.js';
import type { Record_ } from '../store/store.js';
import { authorize, commit, insertChild, mustGet, now, patchRecord, resolve, type Deferred, type DomainContext } from './context.js';
import { ensureHolds } from './grants.js';
import { ruledChanges, type Changes } from './patch.js';
import { readOperations } from './reads.js';
import { records } from './kinds/index.js';
import { builtinRoleUid } from './records.js';

export interface NewRole {
  parent: string;
  name: string;
  description?: string | undefined;
  capabilities: string[];
}

export function roleOperations(ctx: DomainContext) {
  /** Built-in roles are read-only (code 9); custom roles need the capability on their own uid. */
  const builtinGuard = (principal: Principal, uid: string, caps: readonly string[]): Record_<'role'> => {
    const rec = mustGet(ctx, RL, uid);
    if (!rec.parent) {
      throw failedPrecondition(`Role ${rec.name} is built in and cannot be changed`, [
        { type: 'BUILTIN_ROLE', subject: uid, description: 'built-in roles are read-only; create a custom role instead' },
      ]);
    }
    ctx.authz.require(principal, caps, uid);
    return rec;
  };

  return {
    ...readOperations(ctx, RL),

    async create(principal: Principal, input: NewRole): Promise<Record_<'role'>> {
      checkCapabilityNames(input.capabilities);
      authorize(ctx, principal, capabilitiesOf(RL, 'create'), G, input.parent, 'parent');
      ensureHolds(ctx, principal, input.parent, input.capabilities, 'create a role with these capabilities');
      checkNotBuiltinName(input.name);
      return commit(ctx, principal, 'roles.create', () => insertRole(ctx, input));
    },

    async update(principal: Principal, uid: string, changes: Deferred<Changes>): Promise<Record_<'role'>> {
      const role = builtinGuard(principal, uid, capabilitiesOf(RL, 'update'));
      const patch = await resolve(changes);
      const { name, description } = ruledChanges(patch, UPDATE_RULES.role);
      let capabilities: string[] | undefined;
      if (patch.has('capabilities')) {
        const raw = patch.get('capabilities') ?? [];
        if (!Array.isArray(raw) || raw.some((c) => typeof c !== 'string')) throw invalidField('capabilities', 'must be an array of strings');
        capabilities = [...new Set(raw as string[])];
        checkCapabilityNames(capabilities);
        ensureHolds(ctx, principal, role.parent!, capabilities, 'give a role these capabilities');
      }
      if (name) checkNotBuiltinName(name);
      return commit(ctx, principal, 'roles.update', () => patchRecord(ctx, RL, uid, patch, (rec) => {
        if (name !== undefined) rec.name = name;
        if (description !== undefined) rec.data.description = description;
        if (capabilities !== undefined) rec.data.capabilities = capabilities;
      }));
    },

    async delete(principal: Principal, uid: string): Promise<void> {
      builtinGuard(principal, uid, capabilitiesOf(RL, 'delete'));
      await commit(ctx, principal, 'roles.delete', () => {
        const rec = mustGet(ctx, RL, uid);
        const inUse = ctx.store.countByAltKeyLastPart(RB.storeKind, rec.uid);
        if (inUse > 0) {
          throw failedPrecondition(`Role ${rec.name} is still bound by ${inUse} role binding${inUse === 1 ? '' : 's'}; delete them first`, [
            { type: 'RESOURCE_IN_USE', subject: rec.uid, description: `the role is bound by ${inUse} role binding(s)` },
          ]);
        }
        ctx.store.remove(rec.uid);
      });
    },
  };
}

/** In a write: a custom role on an existing group (the caller's checks done: see create). */
export function insertRole(ctx: DomainContext, input: NewRole): Record_<'role'> {
  checkCapabilityNames(input.capabilities);
  checkNotBuiltinName(input.name);
  return insertChild(ctx, records.role({ parent: input.parent, name: input.name, description: input.description, capabilities: input.capabilities, createTime: now(ctx) }));
}

/** In a write, for serve alone (bootstrap): the built-in roles, with the uids every data dir gives them. */
export function insertBuiltinRoles(ctx: DomainContext): void {
  for (const role of BUILTIN_ROLES) {
    ctx.store.insert(records.role({ uid: builtinRoleUid(role.name), parent: null, ...role, builtin: true, createTime: now(ctx) }));
  }
}

/**
 * The built-in roles whose stored capabilities are not what this serve declares (a data dir
 * an older serve made, before a published rule named a capability it now grants).
 */
export function staleBuiltinRoles(ctx: DomainContext): Record_<'role'>[] {
  return BUILTIN_ROLES.flatMap((role) => {
    const rec = ctx.store.get(builtinRoleUid(role.name), RL.storeKind);
    return rec && JSON.stringify(rec.data.capabilities) !== JSON.stringify(role.capabilities) ? [{ ...rec, data: { ...rec.data, capabilities: [...role.capabilities] } }] : [];
  });
}

function checkNotBuiltinName(name: string): void {
  if (BUILTIN_ROLES.some((r) => r.name === name)) throw alreadyExists(`${name} is the name of a built-in role`);
}

/** Capability names must be known ones; each unknown name is its own violation. */
function checkCapabilityNames(names: readonly string[]): void {
  const known = new Set<string>(CAPABILITIES);
  const violations = names
    .map((name, i) => ({ name, i }))
    .filter(({ name }) => !known.has(name))
    .map(({ name, i }) => ({ field: `capabilities[${i}]`, description: `${JSON.stringify(name)} is not a known capability` }));
  if (violations.length) throw invalidArgument(violations);
}

// /iam/v2/: groups, identities, roles and role bindings.
import { BUILTIN_ROLES, CAPABILITIES } from '../../api/capabilities.js';
import { alreadyExists, failedPrecondition, invalidArgument, invalidField, notFound, type FieldViolation } from '../../api/errors.js';
import { byStoreKind, capability, groups as G, identities as I, roleBindings as RB, roles as RL } from '../../api/registry/index.js';
import * as S from '../../api/schemas.js';
import { authorize, insertChild, mustGet, now, parseBody, updateRecord, type ServerContext } from '../context.js';
import { within } from '../auth/authorize.js';
import type { Principal, ResourceRoutes } from '../http.js';
import { claimKey, groupToWire, identityToWire, records, roleBindingToWire, roleToWire } from '../models.js';
import type { Record_ } from '../store/store.js';
import { resolveChanges, ruledChanges, updateMaskParam } from '../update.js';
import { ensureCouldGrant, ensureCouldGrantBindingsOf, ensureHolds, roleVisible } from './grants.js';
import { resourceRoutes } from './resource.js';


/** A group name's violation on create: a missing name breaks the spec's pattern too, and is worded so. */
export function groupNameViolation(name: unknown): FieldViolation | undefined {
  const problem = typeof name === 'string' ? S.groupNameProblem(name) : S.GROUP_NAME_RULE;
  return problem ? { field: 'name', description: problem } : undefined;
}

/**
 * A claimMatch names one identity across the whole data dir (a token maps to one identity),
 * so a taken pair is always refused; the identity holding it is named only to a caller who
 * may read it. Others learn that the pair is taken, and nothing about who holds it.
 */
function ensureClaimUnique(ctx: ServerContext, principal: Principal, issuer: string, subject: string, selfUid?: string): void {
  const clash = ctx.store.findByAltKey(I.storeKind, claimKey(issuer, subject)).find((r) => r.uid !== selfUid);
  if (!clash) return;
  if (ctx.authz.can(principal, capability(I, 'list'), clash.uid)) throw alreadyExists(`An identity with this claimMatch already exists: ${clash.uid}`);
  throw alreadyExists('An identity with this claimMatch already exists (each issuer and subject pair can belong to one identity only)');
}

/** A group may be deleted only when it holds nothing: no resource of any kind lives in it. */
function ensureEmpty(ctx: ServerContext, group: Record_): void {
  const counts = ctx.store.childCounts(group.uid);
  const parts = Object.entries(counts).map(([kind, n]) => {
    const nouns = byStoreKind(kind)?.nouns ?? { one: kind, many: kind };
    return `${n} ${n === 1 ? nouns.one : nouns.many}`;
  });
  if (!parts.length) return;
  const what = parts.join(', ');
  throw failedPrecondition(`Group ${group.uid} is not empty: it still contains ${what}`, [
    { type: 'RESOURCE_NOT_EMPTY', subject: group.uid, description: `the group still contains ${what}; delete them first` },
  ]);
}

/** Capability names must be known ones; each unknown name is its own violation. */
function checkCapabilityNames(names: string[]): void {
  const known = new Set<string>(CAPABILITIES);
  const violations = names
    .map((name, i) => ({ name, i }))
    .filter(({ name }) => !known.has(name))
    .map(({ name, i }) => ({ field: `capabilities[${i}]`, description: `${JSON.stringify(name)} is not a known capability` }));
  if (violations.length) throw invalidArgument(violations);
}

export function iamRoutes(ctx: ServerContext): ResourceRoutes[] {
  const { store, authz } = ctx;

  const groups = resourceRoutes(ctx, G, {
    create: async (req) => {
      const raw = await req.json();
      const nameProblem = groupNameViolation((raw as { group?: { name?: unknown } } | null)?.group?.name);
      const body = parseBody(S.CreateGroupBody, raw, nameProblem ? [nameProblem] : []);
      authorize(ctx, req.principal, capability(G, 'create'), G, body.parent, 'parent');
      const rec = records.group({ parent: body.parent, name: body.group.name, description: body.group.description, createTime: now(ctx) });
      return { body: groupToWire(await insertChild(ctx, rec)) };
    },
    update: async (req) => {
      authorize(ctx, req.principal, capability(G, 'update'), G, req.uid);
      const changes = resolveChanges(await req.json(), updateMaskParam(req.query), G);
      const { name, description } = ruledChanges(changes, S.UPDATE_RULES.group);
      return {
        body: groupToWire(await updateRecord(ctx, G, req.uid, changes, (rec) => {
          if (name !== undefined) rec.name = name;
          if (description !== undefined) rec.data.description = description;
        })),
      };
    },
    remove: async (req) => {
      authorize(ctx, req.principal, capability(G, 'delete'), G, req.uid);
      await store.write(() => {
        const rec = mustGet(ctx, G, req.uid);
        ensureEmpty(ctx, rec);
        store.remove(rec.uid);
      });
      return {};
    },
  });

  const identities = resourceRoutes(ctx, I, {
    create: async (req) => {
      const body = parseBody(S.CreateIdentityBody, await req.json());
      authorize(ctx, req.principal, capability(I, 'create'), G, body.parent, 'parent');
      const { issuer, subject } = body.identity.claimMatch;
      const rec = records.identity({
        parent: body.parent, name: body.identity.name, description: body.identity.description, issuer, subject, createTime: now(ctx),
      });
      return { body: identityToWire(await insertChild(ctx, rec, () => ensureClaimUnique(ctx, req.principal, issuer, subject))) };
    },
    update: async (req) => {
      authorize(ctx, req.principal, capability(I, 'update'), I, req.uid);
      const changes = resolveChanges(await req.json(), updateMaskParam(req.query), I);
      const { name, description, 'claimMatch.issuer': issuer, 'claimMatch.subject': subject } = ruledChanges(changes, S.UPDATE_RULES.identity);
      return {
        body: identityToWire(await updateRecord(ctx, I, req.uid, changes, (rec) => {
          const claim = rec.data.claimMatch as { issuer: string; subject: string };
          const next = { issuer: issuer ?? claim.issuer, subject: subject ?? claim.subject };
          if (next.issuer !== claim.issuer || next.subject !== claim.subject) {
            ensureCouldGrantBindingsOf(ctx, req.principal, rec, `change the claimMatch of identity ${rec.uid}`);
            claim.issuer = next.issuer;
            claim.subject = next.subject;
            ensureClaimUnique(ctx, req.principal, claim.issuer, claim.subject, rec.uid);
            rec.altKey = claimKey(claim.issuer, claim.subject);
          }
          if (name !== undefined) rec.name = name;
          if (description !== undefined) rec.data.description = description;
        })),
      };
    },
    remove: async (req) => {
      authorize(ctx, req.principal, capability(I, 'delete'), I, req.uid);
      await store.write(() => {
        const rec = mustGet(ctx, I, req.uid);
        ensureCouldGrantBindingsOf(ctx, req.principal, rec, `delete identity ${rec.uid}`);
        // A binding of a deleted identity grants nothing; it goes with the identity.
        for (const binding of store.findByAltKeyFirstPart(RB.storeKind, rec.uid)) store.remove(binding.uid);
        store.remove(rec.uid);
      });
      return {};
    },
  });

  const roles = resourceRoutes(ctx, RL, {
    create: async (req) => {
      const body = parseBody(S.CreateRoleBody, await req.json());
      const { name, description, capabilities } = body.role;
      checkCapabilityNames(capabilities);
      authorize(ctx, req.principal, capability(RL, 'create'), G, body.parent, 'parent');
      ensureHolds(ctx, req.principal, body.parent, capabilities, 'create a role with these capabilities');
      if (BUILTIN_ROLES.some((r) => r.name === name)) throw alreadyExists(`${name} is the name of a built-in role`);
      const rec = records.role({ parent: body.parent, name, description, capabilities, createTime: now(ctx) });
      return { body: roleToWire(await insertChild(ctx, rec)) };
    },
    update: async (req) => {
      const role = builtinGuard(req.uid, capability(RL, 'update'), req.principal);
      const changes = resolveChanges(await req.json(), updateMaskParam(req.query), RL);
      const { name, description } = ruledChanges(changes, S.UPDATE_RULES.role);
      let capabilities: string[] | undefined;
      if (changes.has('capabilities')) {
        const raw = changes.get('capabilities') ?? [];
        if (!Array.isArray(raw) || raw.some((c) => typeof c !== 'string')) throw invalidField('capabilities', 'must be an array of strings');
        capabilities = [...new Set(raw as string[])];
        checkCapabilityNames(capabilities);
        ensureHolds(ctx, req.principal, role.parent!, capabilities, 'give a role these capabilities');
      }
      if (name && BUILTIN_ROLES.some((r) => r.name === name)) throw alreadyExists(`${name} is the name of a built-in role`);
      return {
        body: roleToWire(await updateRecord(ctx, RL, req.uid, changes, (rec) => {
          if (name !== undefined) rec.name = name;
          if (description !== undefined) rec.data.description = description;
          if (capabilities !== undefined) rec.data.capabilities = capabilities;
        })),
      };
    },
    remove: async (req) => {
      builtinGuard(req.uid, capability(RL, 'delete'), req.principal);
      await store.write(() => {
        const rec = mustGet(ctx, RL, req.uid);
        const inUse = store.countByAltKeyLastPart(RB.storeKind, rec.uid);
        if (inUse > 0) {
          throw failedPrecondition(`Role ${rec.name} is still bound by ${inUse} role binding${inUse === 1 ? '' : 's'}; delete them first`, [
            { type: 'RESOURCE_IN_USE', subject: rec.uid, description: `the role is bound by ${inUse} role binding(s)` },
          ]);
        }
        store.remove(rec.uid);
      });
      return {};
    },
  });

  /** Built-in roles are read-only (code 9); custom roles need the capability on their own uid. */
  function builtinGuard(uid: string, capability: string, principal: Principal): Record_ {
    const rec = mustGet(ctx, RL, uid);
    if (!rec.parent) {
      throw failedPrecondition(`Role ${rec.name} is built in and cannot be changed`, [
        { type: 'BUILTIN_ROLE', subject: uid, description: 'built-in roles are read-only; create a custom role instead' },
      ]);
    }
    authz.require(principal, capability, uid);
    return rec;
  }

  const roleBindings = resourceRoutes(ctx, RB, {
    create: async (req) => {
      const body = parseBody(S.CreateRoleBindingBody, await req.json());
      const { identityUid, roleUid } = body.roleBinding;
      authorize(ctx, req.principal, capability(RB, 'create'), G, body.parent, 'parent');
      const rec = records.roleBinding({ parent: body.parent, identityUid, roleUid, roleName: '', createTime: now(ctx) });
      await insertChild(ctx, rec, () => {
        // A binding names only an identity (or the caller itself) and a role the caller may read;
        // any other answers exactly as one that does not exist, so creating a binding discloses nothing.
        const mayRead = identityUid === req.principal.identityUid || authz.can(req.principal, capability(I, 'list'), identityUid);
        if (!store.get(identityUid, I.storeKind) || !mayRead) throw notFound(I.kind, identityUid, 'identityUid');
        const role = store.get(roleUid, RL.storeKind);
        if (!role || !roleVisible(ctx, req.principal, role)) throw notFound(RL.kind, roleUid, 'roleUid');
        if (role.parent && !within(body.parent, role.parent)) {
          throw invalidField('roleUid', `role ${role.name} is defined on group ${role.parent} and can only be bound there or below`);
        }
        // No escalation: nobody grants what they do not hold themselves.
        ensureCouldGrant(ctx, req.principal, body.parent, role, `role ${role.name} on ${body.parent}`, 'bind this role');
        const duplicate = store.findByAltKey(RB.storeKind, rec.altKey!).find((b) => b.parent === body.parent);
        if (duplicate) {
          const named = authz.can(req.principal, capability(RB, 'list'), duplicate.uid) ? `: ${duplicate.uid}` : '';
          throw alreadyExists(`This identity already has this role on this group${named}`);
        }
        // Role bindings sort by role name, the closest thing they have to a name.
        rec.name = role.name;
      });
      return { body: roleBindingToWire(rec, store) };
    },
    remove: async (req) => {
      authorize(ctx, req.principal, capability(RB, 'delete'), RB, req.uid);
      await store.write(() => {
        mustGet(ctx, RB, req.uid);
        store.remove(req.uid);
      });
      return {};
    },
  });

  return [groups, identities, roles, roleBindings];
}

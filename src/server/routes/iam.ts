// /iam/v2/: groups, identities, roles and role bindings.
import { BUILTIN_ROLES, CAPABILITIES, type Capability } from '../../api/capabilities.js';
import { alreadyExists, ApiError, Code, failedPrecondition, invalidArgument, invalidField, notFound, type FieldViolation } from '../../api/errors.js';
import * as R from '../../api/resources.js';
import * as S from '../../api/schemas.js';
import { authorize, insertChild, listResponse, mustGet, now, parseBody, updateRecord, type ServerContext } from '../context.js';
import { permissionDenied, within } from '../auth/authorize.js';
import type { Principal, ResourceRoutes } from '../http.js';
import { groupToWire, identityToWire, roleBindingToWire, roleToWire } from '../models.js';
import type { Kind, Record_ } from '../store/store.js';
import { resolveChanges, ruledChanges, updateMaskParam } from '../update.js';

/** A group name's violation on create: a missing name breaks the spec's pattern too, and is worded so. */
export function groupNameViolation(name: unknown): FieldViolation | undefined {
  const problem = typeof name === 'string' ? S.groupNameProblem(name) : S.GROUP_NAME_RULE;
  return problem ? { field: 'name', description: problem } : undefined;
}

/** Identities are found by their claimMatch; the pair is kept unique so a token maps to one identity. */
export function claimKey(issuer: string, subject: string): string {
  return `${issuer}\n${subject}`;
}

/**
 * A claimMatch names one identity across the whole data dir (a token maps to one identity),
 * so a taken pair is always refused; the identity holding it is named only to a caller who
 * may read it. Others learn that the pair is taken, and nothing about who holds it.
 */
function ensureClaimUnique(ctx: ServerContext, principal: Principal, issuer: string, subject: string, selfUid?: string): void {
  const clash = ctx.store.findByAltKey('identity', claimKey(issuer, subject)).find((r) => r.uid !== selfUid);
  if (!clash) return;
  if (ctx.authz.can(principal, 'identity.list', clash.uid)) throw alreadyExists(`An identity with this claimMatch already exists: ${clash.uid}`);
  throw alreadyExists('An identity with this claimMatch already exists (each issuer and subject pair can belong to one identity only)');
}

/** A group may be deleted only when it holds nothing: no groups, identities, role bindings, repos, roles. */
function ensureEmpty(ctx: ServerContext, group: Record_): void {
  const counts = ctx.store.childCounts(group.uid);
  const names: Record<Kind, [string, string]> = {
    group: ['group', 'groups'], identity: ['identity', 'identities'], roleBinding: ['role binding', 'role bindings'],
    repo: ['repo', 'repos'], role: ['role', 'roles'], tag: ['tag', 'tags'], advisory: ['advisory', 'advisories'],
  };
  const parts = Object.entries(counts).map(([kind, n]) => `${n} ${names[kind as Kind][n === 1 ? 0 : 1]}`);
  if (!parts.length) return;
  const what = parts.join(', ');
  throw failedPrecondition(`Group ${group.uid} is not empty: it still contains ${what}`, [
    { type: 'RESOURCE_NOT_EMPTY', subject: group.uid, description: `the group still contains ${what}; delete them first` },
  ]);
}

function roleCapabilities(role: Record_): string[] {
  return Array.isArray(role.data.capabilities) ? (role.data.capabilities as string[]) : [];
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

  function ensureHolds(principal: Principal, groupUid: string, capabilities: string[], what: string): void {
    const held = authz.capabilitiesOn(principal, groupUid);
    const missing = capabilities.filter((c) => !held.has(c));
    if (missing.length) {
      throw new ApiError(Code.PERMISSION_DENIED, `Permission denied: to ${what} you must hold ${missing.join(', ')} on ${groupUid}`, {
        reason: 'PERMISSION_DENIED',
        metadata: { capability: missing.join(','), resource: groupUid },
      });
    }
  }

  const groups: ResourceRoutes = {
    path: R.groups.path,
    list: (req) => listResponse(ctx, 'groups', req.query, { kind: 'group', scope: authz.scope(req.principal, 'groups.list') }, groupToWire),
    get: (req) => {
      return { body: groupToWire(authorize(ctx, req.principal, 'groups.list', 'group', 'Group', req.uid)) };
    },
    create: async (req) => {
      const raw = await req.json();
      const nameProblem = groupNameViolation((raw as { group?: { name?: unknown } } | null)?.group?.name);
      const body = parseBody(S.CreateGroupBody, raw, nameProblem ? [nameProblem] : []);
      authorize(ctx, req.principal, 'groups.create', 'group', 'Group', body.parent, 'parent');
      const t = now(ctx);
      const rec: Record_ = {
        uid: '', kind: 'group', parent: body.parent, name: body.group.name, altKey: null, createTime: t, updateTime: t,
        data: { description: body.group.description ?? '', verified: false },
      };
      return { body: groupToWire(await insertChild(ctx, rec)) };
    },
    update: async (req) => {
      authorize(ctx, req.principal, 'groups.update', 'group', 'Group', req.uid);
      const changes = resolveChanges(await req.json(), updateMaskParam(req.query), R.groups);
      const { name, description } = ruledChanges(changes, S.UPDATE_RULES.group);
      return {
        body: groupToWire(await updateRecord(ctx, 'group', 'Group', req.uid, changes, (rec) => {
          if (name !== undefined) rec.name = name;
          if (description !== undefined) rec.data.description = description;
        })),
      };
    },
    remove: async (req) => {
      authorize(ctx, req.principal, 'groups.delete', 'group', 'Group', req.uid);
      await store.write(() => {
        const rec = mustGet(ctx, 'group', 'Group', req.uid);
        ensureEmpty(ctx, rec);
        store.remove(rec.uid);
      });
      return {};
    },
  };

  const identities: ResourceRoutes = {
    path: R.identities.path,
    list: (req) => listResponse(ctx, 'identities', req.query, { kind: 'identity', scope: authz.scope(req.principal, 'identity.list') }, identityToWire),
    get: (req) => {
      return { body: identityToWire(authorize(ctx, req.principal, 'identity.list', 'identity', 'Identity', req.uid)) };
    },
    create: async (req) => {
      const body = parseBody(S.CreateIdentityBody, await req.json());
      authorize(ctx, req.principal, 'identity.create', 'group', 'Group', body.parent, 'parent');
      const { issuer, subject } = body.identity.claimMatch;
      const t = now(ctx);
      const rec: Record_ = {
        uid: '', kind: 'identity', parent: body.parent, name: body.identity.name, altKey: claimKey(issuer, subject),
        createTime: t, updateTime: t,
        data: { description: body.identity.description ?? '', claimMatch: { issuer, subject }, lastSeenTime: t },
      };
      return { body: identityToWire(await insertChild(ctx, rec, () => ensureClaimUnique(ctx, req.principal, issuer, subject))) };
    },
    update: async (req) => {
      authorize(ctx, req.principal, 'identity.update', 'identity', 'Identity', req.uid);
      const changes = resolveChanges(await req.json(), updateMaskParam(req.query), R.identities);
      const { name, description, 'claimMatch.issuer': issuer, 'claimMatch.subject': subject } = ruledChanges(changes, S.UPDATE_RULES.identity);
      return {
        body: identityToWire(await updateRecord(ctx, 'identity', 'Identity', req.uid, changes, (rec) => {
          const claim = rec.data.claimMatch as { issuer: string; subject: string };
          if (issuer !== undefined || subject !== undefined) {
            claim.issuer = issuer ?? claim.issuer;
            claim.subject = subject ?? claim.subject;
            ensureClaimUnique(ctx, req.principal, claim.issuer, claim.subject, rec.uid);
            rec.altKey = claimKey(claim.issuer, claim.subject);
          }
          if (name !== undefined) rec.name = name;
          if (description !== undefined) rec.data.description = description;
        })),
      };
    },
    remove: async (req) => {
      authorize(ctx, req.principal, 'identity.delete', 'identity', 'Identity', req.uid);
      await store.write(() => {
        const rec = mustGet(ctx, 'identity', 'Identity', req.uid);
        // A binding of a deleted identity grants nothing; it goes with the identity.
        for (const binding of store.findByAltKeyFirstPart('roleBinding', rec.uid)) store.remove(binding.uid);
        store.remove(rec.uid);
      });
      return {};
    },
  };


  /** Built-in roles are outside the hierarchy: anyone holding roles.list somewhere sees them. */
  function roleVisible(principal: Principal, uid: string): boolean {
    const builtin = !uid.includes('/');
    return builtin ? authz.canAnywhere(principal, 'roles.list') : authz.can(principal, 'roles.list', uid);
  }

  function requireRoleVisible(principal: Principal, uid: string): void {
    if (!roleVisible(principal, uid)) throw permissionDenied('roles.list', uid);
  }


  const roles: ResourceRoutes = {
    path: R.roles.path,
    list: (req) => listResponse(ctx, 'roles', req.query, { kind: 'role', scope: authz.scope(req.principal, 'roles.list', true) }, roleToWire),
    get: (req) => {
      const rec = mustGet(ctx, 'role', 'Role', req.uid);
      requireRoleVisible(req.principal, req.uid);
      return { body: roleToWire(rec) };
    },
    create: async (req) => {
      const body = parseBody(S.CreateRoleBody, await req.json());
      const { name, description, capabilities } = body.role;
      checkCapabilityNames(capabilities);
      authorize(ctx, req.principal, 'roles.create', 'group', 'Group', body.parent, 'parent');
      ensureHolds(req.principal, body.parent, capabilities, 'create a role with these capabilities');
      if (BUILTIN_ROLES.some((r) => r.name === name)) throw alreadyExists(`${name} is the name of a built-in role`);
      const t = now(ctx);
      const rec: Record_ = {
        uid: '', kind: 'role', parent: body.parent, name, altKey: null, createTime: t, updateTime: t,
        data: { description: description ?? '', capabilities: [...new Set(capabilities)] },
      };
      return { body: roleToWire(await insertChild(ctx, rec)) };
    },
    update: async (req) => {
      const role = builtinGuard(req.uid, 'roles.update', req.principal);
      const changes = resolveChanges(await req.json(), updateMaskParam(req.query), R.roles);
      const { name, description } = ruledChanges(changes, S.UPDATE_RULES.role);
      let capabilities: string[] | undefined;
      if (changes.has('capabilities')) {
        const raw = changes.get('capabilities') ?? [];
        if (!Array.isArray(raw) || raw.some((c) => typeof c !== 'string')) throw invalidField('capabilities', 'must be an array of strings');
        capabilities = [...new Set(raw as string[])];
        checkCapabilityNames(capabilities);
        ensureHolds(req.principal, role.parent!, capabilities, 'give a role these capabilities');
      }
      if (name && BUILTIN_ROLES.some((r) => r.name === name)) throw alreadyExists(`${name} is the name of a built-in role`);
      return {
        body: roleToWire(await updateRecord(ctx, 'role', 'Role', req.uid, changes, (rec) => {
          if (name !== undefined) rec.name = name;
          if (description !== undefined) rec.data.description = description;
          if (capabilities !== undefined) rec.data.capabilities = capabilities;
        })),
      };
    },
    remove: async (req) => {
      builtinGuard(req.uid, 'roles.delete', req.principal);
      await store.write(() => {
        const rec = mustGet(ctx, 'role', 'Role', req.uid);
        const inUse = store.prepare("SELECT count(*) AS n FROM resources WHERE kind = 'roleBinding' AND alt_key LIKE ? ESCAPE '!'")
          .get(`%\n${rec.uid.replace(/[!%_]/g, '!$&')}`) as { n: number };
        if (inUse.n > 0) {
          throw failedPrecondition(`Role ${rec.name} is still bound by ${inUse.n} role binding${inUse.n === 1 ? '' : 's'}; delete them first`, [
            { type: 'RESOURCE_IN_USE', subject: rec.uid, description: `the role is bound by ${inUse.n} role binding(s)` },
          ]);
        }
        store.remove(rec.uid);
      });
      return {};
    },
  };

  /** Built-in roles are read-only (code 9); custom roles need the capability on their own uid. */
  function builtinGuard(uid: string, capability: Capability, principal: Principal): Record_ {
    const rec = mustGet(ctx, 'role', 'Role', uid);
    if (!rec.parent) {
      throw failedPrecondition(`Role ${rec.name} is built in and cannot be changed`, [
        { type: 'BUILTIN_ROLE', subject: uid, description: 'built-in roles are read-only; create a custom role instead' },
      ]);
    }
    authz.require(principal, capability, uid);
    return rec;
  }

  const roleBindings: ResourceRoutes = {
    path: R.roleBindings.path,
    list: (req) => listResponse(
      ctx, 'roleBindings', req.query, { kind: 'roleBinding', scope: authz.scope(req.principal, 'role_bindings.list') },
      (r) => roleBindingToWire(r, store),
    ),
    get: (req) => {
      return { body: roleBindingToWire(authorize(ctx, req.principal, 'role_bindings.list', 'roleBinding', 'RoleBinding', req.uid), store) };
    },
    create: async (req) => {
      const body = parseBody(S.CreateRoleBindingBody, await req.json());
      const { identityUid, roleUid } = body.roleBinding;
      authorize(ctx, req.principal, 'role_bindings.create', 'group', 'Group', body.parent, 'parent');
      const t = now(ctx);
      const rec: Record_ = {
        uid: '', kind: 'roleBinding', parent: body.parent, name: '', altKey: `${identityUid}\n${roleUid}`,
        createTime: t, updateTime: t, data: { identityUid, roleUid },
      };
      await insertChild(ctx, rec, () => {
        // A binding names only an identity (or the caller itself) and a role the caller may read;
        // any other answers exactly as one that does not exist, so creating a binding discloses nothing.
        const readable = identityUid === req.principal.identityUid || authz.can(req.principal, 'identity.list', identityUid);
        if (!store.get(identityUid, 'identity') || !readable) {
          throw notFound('Identity', identityUid, 'identityUid');
        }
        const role = store.get(roleUid, 'role');
        if (!role || !roleVisible(req.principal, roleUid)) throw notFound('Role', roleUid, 'roleUid');
        if (role.parent && !within(body.parent, role.parent)) {
          throw invalidField('roleUid', `role ${role.name} is defined on group ${role.parent} and can only be bound there or below`);
        }
        // No escalation: nobody grants what they do not hold themselves.
        ensureHolds(req.principal, body.parent, roleCapabilities(role), 'bind this role');
        const duplicate = store.findByAltKey('roleBinding', rec.altKey!).find((b) => b.parent === body.parent);
        if (duplicate) {
          const named = authz.can(req.principal, 'role_bindings.list', duplicate.uid) ? `: ${duplicate.uid}` : '';
          throw alreadyExists(`This identity already has this role on this group${named}`);
        }
        // Role bindings sort by role name, the closest thing they have to a name.
        rec.name = role.name;
      });
      return { body: roleBindingToWire(rec, store) };
    },
    remove: async (req) => {
      authorize(ctx, req.principal, 'role_bindings.delete', 'roleBinding', 'RoleBinding', req.uid);
      await store.write(() => {
        mustGet(ctx, 'roleBinding', 'RoleBinding', req.uid);
        store.remove(req.uid);
      });
      return {};
    },
  };

  return [groups, identities, roles, roleBindings];
}

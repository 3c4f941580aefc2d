// /iam/v2/: groups, identities, roles and role bindings.
import { alreadyExists, failedPrecondition, invalidArgument, invalidField, notFound, type FieldViolation } from '../../api/errors.js';
import * as R from '../../api/resources.js';
import * as S from '../../api/schemas.js';
import { listResponse, mustGet, now, parseBody, type ServerContext } from '../context.js';
import type { ResourceRoutes } from '../http.js';
import { groupToWire, identityToWire, newChildUid, roleBindingToWire, roleToWire } from '../models.js';
import type { Kind, Record_ } from '../store/store.js';
import { resolveChanges, stringChange } from '../update.js';

export function groupNameViolation(name: unknown): FieldViolation | undefined {
  return typeof name === 'string' && S.GROUP_NAME_RE.test(name) ? undefined : { field: 'name', description: S.GROUP_NAME_RULE };
}

/** Identities are found by their claimMatch; the pair is kept unique so a token maps to one identity. */
export function claimKey(issuer: string, subject: string): string {
  return `${issuer}\n${subject}`;
}

function checkIssuer(issuer: string): void {
  if (!URL.canParse(issuer)) throw invalidField('claimMatch.issuer', 'must be an absolute URL (the token issuer)');
}

function ensureClaimUnique(ctx: ServerContext, issuer: string, subject: string, selfUid?: string): void {
  const clash = ctx.store.findByAltKey('identity', claimKey(issuer, subject)).find((r) => r.uid !== selfUid);
  if (clash) throw alreadyExists(`An identity with this claimMatch already exists: ${clash.uid}`);
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

export function iamRoutes(ctx: ServerContext): ResourceRoutes[] {
  const { store } = ctx;

  const groups: ResourceRoutes = {
    path: R.groups.path,
    list: (req) => listResponse(ctx, 'groups', req.query, { kind: 'group' }, groupToWire),
    get: (req) => ({ body: groupToWire(mustGet(ctx, 'group', 'Group', req.uid)) }),
    create: async (req) => {
      const raw = await req.json();
      const nameProblem = groupNameViolation((raw as { group?: { name?: unknown } } | null)?.group?.name);
      const body = parseBody(S.CreateGroupBody, raw, nameProblem ? [nameProblem] : []);
      const t = now(ctx);
      const rec: Record_ = {
        uid: '', kind: 'group', parent: body.parent, name: body.group.name, altKey: null, createTime: t, updateTime: t,
        data: { description: body.group.description ?? '', verified: false },
      };
      store.transaction(() => {
        mustGet(ctx, 'group', 'Group', body.parent, 'parent');
        rec.uid = newChildUid(body.parent);
        store.insert(rec);
      });
      return { body: groupToWire(rec) };
    },
    update: async (req) => {
      const changes = resolveChanges(await req.json(), req.query.get('updateMask') ?? req.query.get('update_mask'), R.groups);
      const name = stringChange(changes, 'name');
      const description = stringChange(changes, 'description');
      if (name !== undefined) {
        const problem = groupNameViolation(name);
        if (problem) throw invalidArgument([problem]);
      }
      return {
        body: groupToWire(store.transaction(() => {
          const rec = mustGet(ctx, 'group', 'Group', req.uid);
          if (changes.size === 0) return rec;
          if (name !== undefined) rec.name = name;
          if (description !== undefined) rec.data.description = description;
          rec.updateTime = now(ctx);
          store.update(rec);
          return rec;
        })),
      };
    },
    remove: (req) => {
      store.transaction(() => {
        const rec = mustGet(ctx, 'group', 'Group', req.uid);
        ensureEmpty(ctx, rec);
        store.remove(rec.uid);
      });
      return {};
    },
  };

  const identities: ResourceRoutes = {
    path: R.identities.path,
    list: (req) => listResponse(ctx, 'identities', req.query, { kind: 'identity' }, identityToWire),
    get: (req) => ({ body: identityToWire(mustGet(ctx, 'identity', 'Identity', req.uid)) }),
    create: async (req) => {
      const body = parseBody(S.CreateIdentityBody, await req.json());
      const { issuer, subject } = body.identity.claimMatch;
      checkIssuer(issuer);
      const t = now(ctx);
      const rec: Record_ = {
        uid: '', kind: 'identity', parent: body.parent, name: body.identity.name, altKey: claimKey(issuer, subject),
        createTime: t, updateTime: t,
        data: { description: body.identity.description ?? '', claimMatch: { issuer, subject }, lastSeenTime: t },
      };
      store.transaction(() => {
        mustGet(ctx, 'group', 'Group', body.parent, 'parent');
        ensureClaimUnique(ctx, issuer, subject);
        rec.uid = newChildUid(body.parent);
        store.insert(rec);
      });
      return { body: identityToWire(rec) };
    },
    update: async (req) => {
      const changes = resolveChanges(await req.json(), req.query.get('updateMask') ?? req.query.get('update_mask'), R.identities);
      const name = stringChange(changes, 'name');
      const description = stringChange(changes, 'description');
      const issuer = stringChange(changes, 'claimMatch.issuer');
      const subject = stringChange(changes, 'claimMatch.subject');
      if (name === '') throw invalidField('name', 'must not be empty');
      if (subject === '') throw invalidField('claimMatch.subject', 'must not be empty');
      if (issuer !== undefined) checkIssuer(issuer);
      return {
        body: identityToWire(store.transaction(() => {
          const rec = mustGet(ctx, 'identity', 'Identity', req.uid);
          if (changes.size === 0) return rec;
          const claim = rec.data.claimMatch as { issuer: string; subject: string };
          if (issuer !== undefined || subject !== undefined) {
            claim.issuer = issuer ?? claim.issuer;
            claim.subject = subject ?? claim.subject;
            ensureClaimUnique(ctx, claim.issuer, claim.subject, rec.uid);
            rec.altKey = claimKey(claim.issuer, claim.subject);
          }
          if (name !== undefined) rec.name = name;
          if (description !== undefined) rec.data.description = description;
          rec.updateTime = now(ctx);
          store.update(rec);
          return rec;
        })),
      };
    },
    remove: (req) => {
      store.transaction(() => {
        const rec = mustGet(ctx, 'identity', 'Identity', req.uid);
        // A binding of a deleted identity grants nothing; it goes with the identity.
        for (const binding of bindingsOfIdentity(rec.uid)) store.remove(binding.uid);
        store.remove(rec.uid);
      });
      return {};
    },
  };

  function bindingsOfIdentity(identityUid: string): Record_[] {
    return store.db
      .prepare("SELECT uid FROM resources WHERE kind = 'roleBinding' AND alt_key > ? AND alt_key < ?")
      .all(`${identityUid}\n`, `${identityUid}\u000b`)
      .map((row) => store.get((row as { uid: string }).uid)!)
      .filter(Boolean);
  }

  const roles: ResourceRoutes = {
    path: R.roles.path,
    list: (req) => listResponse(ctx, 'roles', req.query, { kind: 'role' }, roleToWire),
    get: (req) => ({ body: roleToWire(mustGet(ctx, 'role', 'Role', req.uid)) }),
  };

  const roleBindings: ResourceRoutes = {
    path: R.roleBindings.path,
    list: (req) => listResponse(ctx, 'roleBindings', req.query, { kind: 'roleBinding' }, (r) => roleBindingToWire(r, store)),
    get: (req) => ({ body: roleBindingToWire(mustGet(ctx, 'roleBinding', 'RoleBinding', req.uid), store) }),
    create: async (req) => {
      const body = parseBody(S.CreateRoleBindingBody, await req.json());
      const { identityUid, roleUid } = body.roleBinding;
      const t = now(ctx);
      const rec: Record_ = {
        uid: '', kind: 'roleBinding', parent: body.parent, name: '', altKey: `${identityUid}\n${roleUid}`,
        createTime: t, updateTime: t, data: { identityUid, roleUid },
      };
      store.transaction(() => {
        mustGet(ctx, 'group', 'Group', body.parent, 'parent');
        if (!store.get(identityUid, 'identity')) throw notFound('Identity', identityUid, 'identityUid');
        const role = store.get(roleUid, 'role');
        if (!role) throw notFound('Role', roleUid, 'roleUid');
        const duplicate = store.findByAltKey('roleBinding', rec.altKey!).find((b) => b.parent === body.parent);
        if (duplicate) throw alreadyExists(`This identity already has this role on this group: ${duplicate.uid}`);
        rec.uid = newChildUid(body.parent);
        // Role bindings sort by role name, the closest thing they have to a name.
        rec.name = role.name;
        store.insert(rec);
      });
      return { body: roleBindingToWire(rec, store) };
    },
    remove: (req) => {
      store.transaction(() => {
        mustGet(ctx, 'roleBinding', 'RoleBinding', req.uid);
        store.remove(req.uid);
      });
      return {};
    },
  };

  return [groups, identities, roles, roleBindings];
}

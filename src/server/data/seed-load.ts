// Loading a validated seed document (seed.ts): every resource is made by the same domain step
// the API's create runs (same rules), on serve's authority, inside the one bootstrap write,
// so a seed lands completely or not at all. A rule a step enforces that the document's own
// validation did not catch comes back as a SeedValidationError naming the entry's path.
import { ApiError } from '../../api/errors.js';
import { SERVE } from '../auth/principal.js';
import { insertAccountAssociation } from '../domain/account-associations.js';
import { insertAdvisory, insertAdvisoryDocument, insertLibrary, insertVulnerabilityMetadata } from '../domain/catalogue.js';
import type { DomainContext } from '../domain/context.js';
import { insertInvite, inviteCodeHash } from '../domain/group-invites.js';
import { insertGroup, insertOrganization } from '../domain/groups.js';
import { insertIdentity } from '../domain/identities.js';
import { insertIdentityProvider } from '../domain/identity-providers.js';
import { builtinRoleUid, timestamp } from '../domain/records.js';
import { insertRepo, insertTag } from '../domain/registry.js';
import { bindRole } from '../domain/role-bindings.js';
import { insertRole } from '../domain/roles.js';
import { insertSubscription } from '../domain/subscriptions.js';
import { groupKeys, resolveRef, ROLE_NAMES, SeedValidationError, type SeedDocument, type SeedGroup } from '../../api/seed.js';

export interface LoadedSeed {
  /** Uids of the seeded organizations, in document order. */
  organizationUids: string[];
}

const iso = (t: string | undefined) => (t ? timestamp(Date.parse(t)) : undefined);

/** Runs a domain step for the seed entry at `path`; what it refuses becomes a SeedValidationError there. */
function at<T>(path: string, step: () => T): T {
  try {
    return step();
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const violations = err.fieldViolations.length
      ? err.fieldViolations.map((v) => ({ field: `${path}.${v.field}`, description: v.description }))
      : [{ field: path, description: err.message }];
    throw new SeedValidationError(violations);
  }
}

/**
 * Writes a validated seed, inside a write (bootstrap's). Every resource is created at the
 * context's time (`ctx.clock`, held still by bootstrap), unless the seed carries an updateTime.
 */
export function loadSeed(ctx: DomainContext, doc: SeedDocument): LoadedSeed {
  // A large seed is a bulk load: the list indexes are built after its rows (Store.bulkLoad).
  return groupsIn(doc.organizations ?? []) >= BULK_LOAD_GROUPS ? ctx.store.bulkLoad(() => load(ctx, doc)) : load(ctx, doc);
}

/** From this many groups on, a seed loads as a bulk load; below, rebuilding the indexes costs more than it saves. */
const BULK_LOAD_GROUPS = 5_000;

function groupsIn(groups: readonly SeedGroup[]): number {
  let n = 0;
  // A stack, not recursion: a deep tree must not overflow the call stack.
  const stack = [groups];
  for (let next = stack.pop(); next; next = stack.pop()) {
    n += next.length;
    for (const g of next) if (g.groups?.length) stack.push(g.groups);
  }
  return n;
}

function load(ctx: DomainContext, doc: SeedDocument): LoadedSeed {
  const organizationUids: string[] = [];
  // group name path → identity name → uid
  const identityUids = new Map<string, Map<string, string>>();
  const roleUids = new Map<string, Map<string, string>>();
  const pending: { groupUid: string; chain: string[]; group: SeedGroup; path: string }[] = [];
  const { keyOf } = groupKeys(doc);

  const loadGroup = (g: SeedGroup, uid: string, chain: string[], path: string) => {
    const namePath = chain[chain.length - 1]!;
    // Maps only for groups that declare some: a seed of a million groups made two million.
    const ids = new Map<string, string>();
    if (g.identities?.length) identityUids.set(namePath, ids);
    (g.identities ?? []).forEach((identity, i) => {
      const rec = at(`${path}.identities[${i}]`, () => insertIdentity(ctx, SERVE, { parent: uid, ...identity }));
      ids.set(identity.name, rec.uid);
    });
    const roles = new Map<string, string>();
    if (g.roles?.length) roleUids.set(namePath, roles);
    (g.roles ?? []).forEach((role, i) => {
      roles.set(role.name, at(`${path}.roles[${i}]`, () => insertRole(ctx, { parent: uid, ...role })).uid);
    });
    (g.repos ?? []).forEach((repo, r) => {
      const repoUid = at(`${path}.repos[${r}]`, () => insertRepo(ctx, { parent: uid, name: repo.name, description: repo.description })).uid;
      (repo.tags ?? []).forEach((tag, i) => at(`${path}.repos[${r}].tags[${i}]`, () => insertTag(ctx, { parent: repoUid, ...tag, updateTime: iso(tag.updateTime) })));
    });
    if (g.accountAssociation) at(`${path}.accountAssociation`, () => insertAccountAssociation(ctx, { parent: uid, ...g.accountAssociation! }));
    (g.subscriptions ?? []).forEach((s, i) => at(`${path}.subscriptions[${i}]`, () => insertSubscription(ctx, { parent: uid, sink: s.sink })));
    if (g.roleBindings?.length || g.identityProviders?.length || g.invites?.length) pending.push({ groupUid: uid, chain, group: g, path });
    (g.groups ?? []).forEach((child, i) => {
      const childPath = `${path}.groups[${i}]`;
      const rec = at(childPath, () => insertGroup(ctx, { parent: uid, name: child.name, description: child.description, verified: child.verified }));
      loadGroup(child, rec.uid, [...chain, keyOf.get(child)!], childPath);
    });
  };

  (doc.organizations ?? []).forEach((org, i) => {
    const path = `organizations[${i}]`;
    const rec = at(path, () => insertOrganization(ctx, { name: org.name, description: org.description, verified: org.verified, kind: org.kind }));
    organizationUids.push(rec.uid);
    loadGroup(org, rec.uid, [keyOf.get(org)!], path);
  });

  // Bindings, identity providers and invites last: a path reference may name an identity or
  // a role of a group seeded after this one.
  for (const { groupUid, chain, group, path } of pending) {
    const nearestFirst = [...chain].reverse();
    const roleUidOf = (ref: string, field: string): string => {
      if (ROLE_NAMES.has(ref)) return builtinRoleUid(ref);
      const role = resolveRef(ref, nearestFirst, (gp, name) => roleUids.get(gp)?.has(name) ?? false);
      if (!role) throw new SeedValidationError([{ field, description: `names no role: ${ref}` }]);
      return roleUids.get(role[0])!.get(role[1])!;
    };
    (group.identityProviders ?? []).forEach((p, i) => {
      const entry = `${path}.identityProviders[${i}]`;
      const defaultRole = roleUidOf(p.defaultRole, `${entry}.defaultRole`);
      at(entry, () => insertIdentityProvider(ctx, SERVE, { parent: groupUid, name: p.name, description: p.description, defaultRole, oidc: p.oidc }));
    });
    (group.invites ?? []).forEach((inv, i) => {
      const entry = `${path}.invites[${i}]`;
      const roleUid = roleUidOf(inv.role, `${entry}.role`);
      // A seed author's code, or the hash export wrote (the invite keeps taking its old code); else one no one knows.
      const codeHash = inv.codeSha256 ?? inviteCodeHash(inv.code ?? ctx.random.bytes(24).toString('base64url'));
      at(entry, () => insertInvite(ctx, SERVE, {
        parent: groupUid, roleUid, email: inv.email, expirationTime: timestamp(Date.parse(inv.expirationTime)), singleUse: inv.singleUse ?? false, codeHash,
      }));
    });
    (group.roleBindings ?? []).forEach((b, i) => {
      const entry = `${path}.roleBindings[${i}]`;
      const found = resolveRef(b.identity, nearestFirst, (gp, name) => identityUids.get(gp)?.has(name) ?? false);
      if (!found) throw new SeedValidationError([{ field: `${entry}.identity`, description: `names no identity: ${b.identity}` }]);
      const identityUid = identityUids.get(found[0])!.get(found[1])!;
      const roleUid = roleUidOf(b.role, `${entry}.role`);
      at(entry, () => bindRole(ctx, SERVE, { parent: groupUid, identityUid, roleUid }, 'caller'));
    });
  }

  (doc.advisories ?? []).forEach((a, i) => at(`advisories[${i}]`, () => insertAdvisory(ctx, { ...a, updateTime: iso(a.updateTime) })));
  (doc.libraries ?? []).forEach((lib, i) => at(`libraries[${i}]`, () => insertLibrary(ctx, {
    name: lib.name, ecosystem: lib.ecosystem, description: lib.description,
    versions: (lib.versions ?? []).map((v) => ({ ...v, updateTime: iso(v.updateTime) })),
  })));
  (doc.advisoryDocuments ?? []).forEach((d, i) => at(`advisoryDocuments[${i}]`, () => insertAdvisoryDocument(ctx, d)));
  (doc.vulnerabilityMetadata ?? []).forEach((m, i) => at(`vulnerabilityMetadata[${i}]`, () => insertVulnerabilityMetadata(ctx, m)));
  return { organizationUids };
}

// Seed files: loading a document of the seed format (src/api/seed.ts: its schema and
// validation, shared with the manifests of pctl export/diff/apply) into a store, and
// exporting a store as one. Loading runs inside the bootstrap transaction, so a seed lands
// completely or not at all.
import { createHash } from 'node:crypto';
import { groupKeys, resolveRef, ROLE_NAMES, SeedValidationError, validateSeed, type SeedDocument, type SeedGroup, type SeedIdentity, type SeedLibrary, type SeedRepo, type SeedRole, type SeedRoleBinding } from '../api/seed.js';
import type { AccountAssociationFields } from '../api/schemas.js';

import { advisoryDocumentToWire, associationStoreUid, builtinRoleUid, type Oidc, claimKey, newAdvisoryUid, newChildUid, newOrganizationUid, records, timestamp, vulnerabilityMetadataToWire } from './models.js';
import type { Record_, Store } from './store/store.js';
import type { Random } from './random.js';

export { formatPath, SeedDocumentSchema, SeedValidationError, validateSeed } from '../api/seed.js';
export type { SeedAdvisory, SeedDocument, SeedGroup, SeedIdentity, SeedLibrary, SeedRepo, SeedRole, SeedRoleBinding, SeedTag } from '../api/seed.js';

/** `--seed` on a data dir that already holds data. */
export class DataDirNotEmptyError extends Error {
  constructor(readonly dataDir: string) {
    super(`${dataDir} already holds data; a seed only loads into an empty data dir (run: pctl serve reset --data ${dataDir} --yes)`);
    this.name = 'DataDirNotEmptyError';
  }
}

// ---- loading ----

export interface LoadedSeed {
  /** Uids of the seeded organizations, in document order. */
  organizationUids: string[];
}

const iso = (t: string | undefined, fallback: string) => (t ? timestamp(Date.parse(t)) : fallback);

/**
 * Writes a validated seed. Call inside a transaction (bootstrap does); `t` is the time
 * every seeded resource is created at, unless the seed carries an updateTime.
 */
export function loadSeed(store: Store, doc: SeedDocument, t: string, random: Random): LoadedSeed {
  const organizationUids: string[] = [];
  // group name path → identity name → uid
  const identityUids = new Map<string, Map<string, string>>();
  const roleUids = new Map<string, Map<string, string>>();
  const pending: { groupUid: string; chain: string[]; group: SeedGroup; path: string }[] = [];
  const { keyOf } = groupKeys(doc);

  const insertGroup = (g: SeedGroup, parent: string | null, uid: string, chain: string[], path: string) => {
    const namePath = chain[chain.length - 1]!;
    store.insert(records.group({ uid, parent, name: g.name, description: g.description, createTime: t }));
    const ids = new Map<string, string>();
    identityUids.set(namePath, ids);
    (g.identities ?? []).forEach((identity, i) => {
      const { issuer, subject } = identity.claimMatch;
      const altKey = claimKey(issuer, subject);
      if (store.findByAltKey('identity', altKey).length) {
        throw new SeedValidationError([{ field: `${path}.identities[${i}].claimMatch`, description: 'is already used by an identity of this server' }]);
      }
      const rec = records.identity({ uid: newChildUid(random, uid), parent: uid, name: identity.name, description: identity.description, issuer, subject, createTime: t });
      store.insert(rec);
      ids.set(identity.name, rec.uid);
    });
    const roles = new Map<string, string>();
    roleUids.set(namePath, roles);
    for (const role of g.roles ?? []) {
      const roleUid = newChildUid(random, uid);
      store.insert(records.role({ uid: roleUid, parent: uid, ...role, createTime: t }));
      roles.set(role.name, roleUid);
    }
    for (const repo of g.repos ?? []) {
      const repoUid = newChildUid(random, uid);
      store.insert(records.repo({ uid: repoUid, parent: uid, name: repo.name, description: repo.description, createTime: t }));
      for (const tag of repo.tags ?? []) {
        const updated = iso(tag.updateTime, t);
        store.insert(records.tag({ uid: newChildUid(random, repoUid), parent: repoUid, ...tag, createTime: updated < t ? updated : t, updateTime: updated }));
      }
    }
    if (g.accountAssociation) store.insert(records.accountAssociation({ parent: uid, ...g.accountAssociation, createTime: t }));
    if (g.roleBindings?.length || g.identityProviders?.length || g.invites?.length) pending.push({ groupUid: uid, chain, group: g, path });
    (g.groups ?? []).forEach((child, i) =>
      insertGroup(child, uid, newChildUid(random, uid), [...chain, keyOf.get(child)!], `${path}.groups[${i}]`));
  };

  (doc.organizations ?? []).forEach((org, i) => {
    const uid = newOrganizationUid(random);
    organizationUids.push(uid);
    insertGroup(org, null, uid, [keyOf.get(org)!], `organizations[${i}]`);
  });

  // Bindings, identity providers and invites last: a path reference may name an identity or
  // a role of a group seeded after this one.
  for (const { groupUid, chain, group, path } of pending) {
    const nearestFirst = [...chain].reverse();
    const roleUidOf = (ref: string, at: string): { uid: string; name: string } => {
      if (ROLE_NAMES.has(ref)) return { uid: builtinRoleUid(ref), name: ref };
      const role = resolveRef(ref, nearestFirst, (gp, name) => roleUids.get(gp)?.has(name) ?? false);
      if (!role) throw new SeedValidationError([{ field: at, description: `names no role: ${ref}` }]);
      return { uid: roleUids.get(role[0])!.get(role[1])!, name: role[1] };
    };
    (group.identityProviders ?? []).forEach((p, i) => {
      const { clientSecret, additionalScopes, groupsClaim, correlationRule, pkceEnabled, ...oidc } = p.oidc;
      store.insert(records.identityProvider({
        uid: newChildUid(random, groupUid), parent: groupUid, name: p.name, description: p.description, createTime: t,
        defaultRole: roleUidOf(p.defaultRole, `${path}.identityProviders[${i}].defaultRole`).uid,
        oidc: {
          ...oidc, clientSecret: clientSecret ?? '', additionalScopes: additionalScopes ?? [], groupsClaim: groupsClaim ?? '',
          correlationRule: correlationRule ?? 'SUB_EQUALS_EXTERNAL_ID', pkceEnabled: pkceEnabled ?? false,
        },
      }));
    });
    (group.invites ?? []).forEach((inv, i) => {
      const role = roleUidOf(inv.role, `${path}.invites[${i}].role`);
      const codeHash = inv.codeSha256 ?? createHash('sha256').update(inv.code ?? random.bytes(24).toString('base64url')).digest('hex');
      store.insert(records.groupInvite({
        uid: newChildUid(random, groupUid), parent: groupUid, roleUid: role.uid, roleName: role.name, email: inv.email,
        expirationTime: timestamp(Date.parse(inv.expirationTime)), singleUse: inv.singleUse ?? false, codeHash, createTime: t,
      }));
    });
    (group.roleBindings ?? []).forEach((b, i) => {
      const found = resolveRef(b.identity, nearestFirst, (gp, name) => identityUids.get(gp)?.has(name) ?? false);
      if (!found) throw new SeedValidationError([{ field: `${path}.roleBindings[${i}].identity`, description: `names no identity: ${b.identity}` }]);
      const identityUid = identityUids.get(found[0])!.get(found[1])!;
      if (ROLE_NAMES.has(b.role)) {
        bindRole(store, groupUid, identityUid, b.role, t, random);
        return;
      }
      const role = resolveRef(b.role, nearestFirst, (gp, name) => roleUids.get(gp)?.has(name) ?? false);
      if (!role) throw new SeedValidationError([{ field: `${path}.roleBindings[${i}].role`, description: `names no role: ${b.role}` }]);
      bindRoleUid(store, groupUid, identityUid, roleUids.get(role[0])!.get(role[1])!, b.role, t, random);
    });
  }

  for (const a of doc.advisories ?? []) {
    const updated = iso(a.updateTime, t);
    store.insert(records.advisory({ uid: newAdvisoryUid(random), ...a, createTime: updated < t ? updated : t, updateTime: updated }));
  }
  for (const lib of doc.libraries ?? []) {
    const versions = lib.versions ?? [];
    const times = versions.map((v) => iso(v.updateTime, t));
    const newest = times.length ? times.reduce((a, b) => (a > b ? a : b)) : t;
    const oldest = times.length ? times.reduce((a, b) => (a < b ? a : b)) : t;
    const uid = newAdvisoryUid(random);
    store.insert(records.artifact({
      uid, name: lib.name, ecosystem: lib.ecosystem, description: lib.description, latestVersion: versions[versions.length - 1]?.version ?? '',
      versionCount: versions.length, createTime: oldest, updateTime: newest,
    }));
    versions.forEach((v, i) => {
      store.insert(records.artifactVersion({
        uid: newChildUid(random, uid), parent: uid, artifactName: lib.name, version: v.version, description: v.description, sizeBytes: v.sizeBytes ?? '0',
        createTime: times[i]!, updateTime: times[i]!,
      }));
    });
  }
  for (const document of doc.advisoryDocuments ?? []) store.insert(records.advisoryDocument({ uid: newAdvisoryUid(random), document, createTime: t }));
  for (const metadata of doc.vulnerabilityMetadata ?? []) store.insert(records.vulnerabilityMetadata({ uid: newAdvisoryUid(random), metadata, createTime: t }));
  return { organizationUids };
}

/** Inserts a role binding of a built-in role, as POST /iam/v2/roleBindings would store it. */
export function bindRole(store: Store, groupUid: string, identityUid: string, roleName: string, t: string, random: Random): void {
  bindRoleUid(store, groupUid, identityUid, builtinRoleUid(roleName), roleName, t, random);
}

function bindRoleUid(store: Store, groupUid: string, identityUid: string, roleUid: string, roleName: string, t: string, random: Random): void {
  store.insert(records.roleBinding({ uid: newChildUid(random, groupUid), parent: groupUid, identityUid, roleUid, roleName, createTime: t }));
}

// ---- export ----

type Row = Record_;

/**
 * The data of a store as a seed document: everything but the bootstrap owner identity and
 * its bindings (bootstrap recreates them). Deterministic: organizations with the serve's
 * own organization first, then by name; everything else by name (advisories by id).
 * Export → seed into a new dir → export gives the same document.
 */
export function exportSeed(store: Store): SeedDocument {
  const ownerUid = store.getMeta('owner_identity') ?? '';
  const mainOrg = store.getMeta('organization') ?? '';
  const kids = (uid: string, kind: string) => store.children(uid, kind);
  const get = (uid: string): Row | undefined => store.get(uid);
  const data = (r: Row) => r.data;
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  /** Name path of a group: `acme/platform/ci`. */
  const groupPath = (uid: string): string => {
    const names: string[] = [];
    for (let cur = get(uid); cur; cur = cur.parent ? get(cur.parent) : undefined) names.unshift(cur.name);
    return names.join('/');
  };
  /** How a binding in the group chain names a thing (identity or custom role): its name when that resolves to it, else its path. */
  const reference = (target: Row, kind: 'identity' | 'role', chain: string[]): string => {
    for (const groupUid of [...chain].reverse()) {
      const match = kids(groupUid, kind).find((i) => i.name === target.name && i.uid !== ownerUid);
      if (match) {
        if (match.uid === target.uid) return target.name;
        break;
      }
    }
    return `${groupPath(target.parent!)}/${target.name}`;
  };

  const exportGroup = (g: Row, chain: string[]): SeedGroup => {
    const out: SeedGroup = { name: g.name };
    const description = str(data(g).description);
    if (description) out.description = description;
    const identities = kids(g.uid, 'identity').filter((i) => i.uid !== ownerUid);
    if (identities.length) {
      out.identities = identities.map((i) => {
        const d = data(i);
        const claim = (d.claimMatch ?? {}) as { issuer?: string; subject?: string };
        const e: SeedIdentity = { name: i.name, claimMatch: { issuer: str(claim.issuer), subject: str(claim.subject) } };
        if (str(d.description)) return { name: e.name, description: str(d.description), claimMatch: e.claimMatch };
        return e;
      });
    }
    const roles = kids(g.uid, 'role');
    if (roles.length) {
      out.roles = roles.map((r) => {
        const d = data(r);
        const role: SeedRole = { name: r.name, capabilities: Array.isArray(d.capabilities) ? (d.capabilities as string[]) : [] };
        return str(d.description) ? { name: role.name, description: str(d.description), capabilities: role.capabilities } : role;
      });
    }
    const bindings: SeedRoleBinding[] = [];
    for (const b of kids(g.uid, 'roleBinding')) {
      const d = data(b);
      const identityUid = str(d.identityUid);
      const role = get(str(d.roleUid));
      const identity = get(identityUid);
      if (identityUid === ownerUid || !role || !identity?.parent) continue;
      bindings.push({ identity: reference(identity, 'identity', chain), role: role.parent ? reference(role, 'role', chain) : role.name });
    }
    bindings.sort((a, b) => (a.identity === b.identity ? cmp(a.role, b.role) : cmp(a.identity, b.identity)));
    if (bindings.length) out.roleBindings = bindings;
    const providers = kids(g.uid, 'identityProvider');
    if (providers.length) {
      // Never the client secret: a re-seed has none (set it again: pctl identity-providers update NAME --client-secret).
      out.identityProviders = providers.map((p) => {
        const { clientSecret: _secret, ...oidc } = (p.data.oidc ?? {}) as Oidc;
        const role = get(str(p.data.defaultRole));
        return {
          name: p.name, ...(str(p.data.description) ? { description: str(p.data.description) } : {}),
          defaultRole: role ? (role.parent ? reference(role, 'role', chain) : role.name) : str(p.data.defaultRole), oidc,
        };
      });
    }
    const invites = kids(g.uid, 'groupInvite');
    if (invites.length) {
      // Never the code: its hash, which serve keeps anyway, so the re-seeded invite takes the same code.
      out.invites = invites.map((inv) => {
        const role = get(str(inv.data.roleUid));
        return {
          role: role ? (role.parent ? reference(role, 'role', chain) : role.name) : str(inv.data.roleUid),
          ...(str(inv.data.email) ? { email: str(inv.data.email) } : {}),
          expirationTime: str(inv.data.expirationTime), singleUse: inv.data.singleUse === true, codeSha256: str(inv.data.codeHash),
        };
      });
    }
    const association = get(associationStoreUid(g.uid));
    if (association) {
      const { description, ...providersOf } = association.data as Record<string, unknown>;
      out.accountAssociation = { name: association.name, ...(description ? { description: description as string } : {}), ...providersOf } as AccountAssociationFields;
    }
    const repos = kids(g.uid, 'repo');
    if (repos.length) {
      out.repos = repos.map((r) => {
        const repo: SeedRepo = { name: r.name };
        const desc = str(data(r).description);
        if (desc) repo.description = desc;
        const tags = kids(r.uid, 'tag');
        if (tags.length) {
          repo.tags = tags.map((tag) => {
            const d = data(tag);
            return { name: tag.name, digest: str(d.digest), deprecated: d.deprecated === true, updateTime: tag.updateTime };
          });
        }
        return repo;
      });
    }
    const groups = kids(g.uid, 'group');
    if (groups.length) {
      // By name, as children come; siblings that share one by what they hold, not by their
      // random uids, so that an export of an export is the same document.
      const exported = groups.map((c) => exportGroup(c, [...chain, c.uid]));
      out.groups = exported
        .map((doc) => ({ doc, text: JSON.stringify(doc) }))
        .sort((a, b) => cmp(a.doc.name, b.doc.name) || cmp(a.text, b.text))
        .map(({ doc }) => doc);
    }
    return out;
  };

  const orgs = store.roots('group').sort((a, b) => (a.uid === mainOrg ? -1 : b.uid === mainOrg ? 1 : 0));
  const doc: SeedDocument = {};
  if (orgs.length) doc.organizations = orgs.map((o) => exportGroup(o, [o.uid]));
  const advisories = store.allByAltKey('advisory');
  if (advisories.length) {
    doc.advisories = advisories.map((a) => ({ advisoryId: a.altKey ?? '', artifactName: a.name, updateTime: a.updateTime }));
  }
  const libraries = store.allByAltKey('artifact');
  if (libraries.length) {
    doc.libraries = libraries.map((a) => {
      const versions = store.children(a.uid, 'artifactVersion').sort((x, y) => (x.createTime === y.createTime ? cmp(x.uid, y.uid) : cmp(x.createTime, y.createTime)));
      // The latest version last, as a seed lists it.
      const latest = versions.findIndex((v) => v.name === a.data.latestVersion);
      if (latest >= 0) versions.push(...versions.splice(latest, 1));
      const lib: SeedLibrary = { name: a.name, ecosystem: (a.altKey ?? 'JAVA') as SeedLibrary['ecosystem'] };
      if (str(a.data.description)) lib.description = str(a.data.description);
      if (versions.length) {
        lib.versions = versions.map((v) => ({
          version: v.name, ...(str(v.data.description) ? { description: str(v.data.description) } : {}), sizeBytes: str(v.data.sizeBytes), updateTime: v.updateTime,
        }));
      }
      return lib;
    }) as SeedDocument['libraries'];
  }
  const documents = store.roots('advisoryDocument');
  if (documents.length) doc.advisoryDocuments = documents.map(advisoryDocumentToWire);
  const metadata = store.roots('vulnerabilityMetadata');
  if (metadata.length) doc.vulnerabilityMetadata = metadata.map(vulnerabilityMetadataToWire);
  return doc;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A seed document as YAML: block style, with tags, claim matches, bindings and advisories one per line. */
export async function seedToYaml(doc: SeedDocument): Promise<string> {
  const YAML = (await import('yaml')).default;
  const document = new YAML.Document(doc);
  const flowUnder = new Set(['tags', 'advisories', 'roleBindings']);
  YAML.visit(document, {
    Map(_key, node, path) {
      const parent = path[path.length - 1];
      const grand = path[path.length - 2];
      // A map that is an item of a `tags`/`advisories`/`roleBindings` sequence, or a claimMatch.
      if (YAML.isSeq(parent) && YAML.isPair(grand) && YAML.isScalar(grand.key) && flowUnder.has(String(grand.key.value))) node.flow = true;
      if (YAML.isPair(parent) && YAML.isScalar(parent.key) && parent.key.value === 'claimMatch') node.flow = true;
    },
  });
  return document.toString({ lineWidth: 0 });
}

/** Parses seed file text (YAML, and so JSON too); a syntax error becomes a SeedValidationError. */
export async function parseSeedText(text: string): Promise<SeedDocument> {
  const YAML = (await import('yaml')).default;
  let raw: unknown;
  try {
    raw = YAML.parse(text, { prettyErrors: true, uniqueKeys: true });
  } catch (err) {
    const e = err as Error & { linePos?: { line: number; col: number }[] };
    const at = e.linePos?.[0] ? `line ${e.linePos[0].line}, column ${e.linePos[0].col}` : '(document)';
    throw new SeedValidationError([{ field: at, description: `is not valid YAML or JSON: ${e.message.split('\n')[0]}` }]);
  }
  if (raw === null || raw === undefined) raw = {};
  return validateSeed(raw);
}

// A store's data as a seed document (`pctl serve export`), and seed documents as YAML.
import { setClaimMatchFields } from '../../api/schemas.js';
import { associationStoreUid } from '../domain/kinds/account-association.js';
import { advisoryDocumentOf, vulnerabilityMetadataOf } from '../domain/kinds/advisory.js';
import type { SeedDocument, SeedGroup, SeedIdentity, SeedLibrary, SeedRepo, SeedRole, SeedRoleBinding } from './seed.js';
import type { Kind, Record_, Store } from '../store/store.js';

/**
 * The data of a store as a seed document: everything but the bootstrap owner identity and
 * its bindings (bootstrap recreates them). Deterministic: organizations with the serve's
 * own organization first, then by name; everything else by name (advisories by id).
 * Export → seed into a new dir → export gives the same document.
 */
export function exportSeed(store: Store): SeedDocument {
  const ownerUid = store.getMeta('owner_identity') ?? '';
  const mainOrg = store.getMeta('organization') ?? '';
  const kids = <K extends Kind>(uid: string, kind: K) => store.children(uid, kind);
  /** Name path of a group: `acme/platform/ci`. */
  const groupPath = (uid: string): string => {
    const names: string[] = [];
    for (let cur = store.get(uid, 'group'); cur; cur = cur.parent ? store.get(cur.parent, 'group') : undefined) names.unshift(cur.name);
    return names.join('/');
  };
  /** How a binding in the group chain names a thing (identity or custom role): its name when that resolves to it, else its path. */
  const reference = (target: Record_<'identity' | 'role'>, kind: 'identity' | 'role', chain: string[]): string => {
    for (const groupUid of [...chain].reverse()) {
      const match = kids(groupUid, kind).find((i) => i.name === target.name && i.uid !== ownerUid);
      if (match) {
        if (match.uid === target.uid) return target.name;
        break;
      }
    }
    return `${groupPath(target.parent!)}/${target.name}`;
  };

  const exportGroup = (g: Record_<'group'>, chain: string[]): SeedGroup => {
    const out: SeedGroup = { name: g.name };
    if (g.data.description) out.description = g.data.description;
    if (g.data.verified) out.verified = true;
    if (g.data.kind) out.kind = g.data.kind;
    const identities = kids(g.uid, 'identity').filter((i) => i.uid !== ownerUid);
    if (identities.length) {
      out.identities = identities.map((i) => {
        const d = i.data;
        const relationship: Partial<SeedIdentity> = d.staticKeys ? { staticKeys: d.staticKeys } : d.awsIdentity ? { awsIdentity: d.awsIdentity }
          : d.servicePrincipal ? { servicePrincipal: d.servicePrincipal }
            : { claimMatch: setClaimMatchFields({ ...d.claimMatch }) };
        return { name: i.name, ...(d.description ? { description: d.description } : {}), ...(d.email ? { email: d.email } : {}), ...relationship };
      });
    }
    const roles = kids(g.uid, 'role');
    if (roles.length) {
      out.roles = roles.map((r) => {
        const role: SeedRole = { name: r.name, capabilities: r.data.capabilities };
        return r.data.description ? { name: role.name, description: r.data.description, capabilities: role.capabilities } : role;
      });
    }
    const bindings: SeedRoleBinding[] = [];
    for (const b of kids(g.uid, 'roleBinding')) {
      const { identityUid, roleUid } = b.data;
      const role = store.get(roleUid, 'role');
      const identity = store.get(identityUid, 'identity');
      if (identityUid === ownerUid || !role || !identity?.parent) continue;
      bindings.push({ identity: reference(identity, 'identity', chain), role: role.parent ? reference(role, 'role', chain) : role.name });
    }
    bindings.sort((a, b) => (a.identity === b.identity ? cmp(a.role, b.role) : cmp(a.identity, b.identity)));
    if (bindings.length) out.roleBindings = bindings;
    const providers = kids(g.uid, 'identityProvider');
    if (providers.length) {
      // Never the client secret: a re-seed has none (set it again: pctl identity-providers update NAME --client-secret).
      out.identityProviders = providers.map((p) => {
        const { clientSecret: _secret, ...oidc } = p.data.oidc;
        const role = store.get(p.data.defaultRole, 'role');
        return {
          name: p.name, ...(p.data.description ? { description: p.data.description } : {}),
          defaultRole: role ? (role.parent ? reference(role, 'role', chain) : role.name) : p.data.defaultRole, oidc,
        };
      });
    }
    const subscriptions = kids(g.uid, 'subscription');
    if (subscriptions.length) out.subscriptions = subscriptions.map((s) => ({ sink: s.name }));
    const invites = kids(g.uid, 'groupInvite');
    if (invites.length) {
      // Never the code: its hash, which serve keeps anyway, so the re-seeded invite takes the same code.
      out.invites = invites.map((inv) => {
        const role = store.get(inv.data.roleUid, 'role');
        return {
          role: role ? (role.parent ? reference(role, 'role', chain) : role.name) : inv.data.roleUid,
          ...(inv.data.email ? { email: inv.data.email } : {}),
          expirationTime: inv.data.expirationTime, singleUse: inv.data.singleUse, codeSha256: inv.data.codeHash,
        };
      });
    }
    const association = store.get(associationStoreUid(g.uid), 'accountAssociation');
    if (association) {
      const { description, ...providersOf } = association.data;
      out.accountAssociation = { name: association.name, ...(description ? { description } : {}), ...providersOf };
    }
    const repos = kids(g.uid, 'repo');
    if (repos.length) {
      out.repos = repos.map((r) => {
        const repo: SeedRepo = { name: r.name };
        if (r.data.description) repo.description = r.data.description;
        const tags = kids(r.uid, 'tag');
        if (tags.length) {
          repo.tags = tags.map((tag) => ({ name: tag.name, digest: tag.data.digest, deprecated: tag.data.deprecated, updateTime: tag.updateTime }));
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
      if (a.data.description) lib.description = a.data.description;
      if (versions.length) {
        lib.versions = versions.map((v) => ({
          version: v.name, ...(v.data.description ? { description: v.data.description } : {}), sizeBytes: v.data.sizeBytes, updateTime: v.updateTime,
        }));
      }
      return lib;
    });
  }
  const documents = store.roots('advisoryDocument');
  if (documents.length) doc.advisoryDocuments = documents.map(advisoryDocumentOf);
  const metadata = store.roots('vulnerabilityMetadata');
  if (metadata.length) doc.vulnerabilityMetadata = metadata.map(vulnerabilityMetadataOf);
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

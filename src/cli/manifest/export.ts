// The live state of a subtree as a manifest: ordered by name, references by name (the
// nearest group's first, else a path from the organization), without uids, times or other
// server-managed fields (a group's resourceLimits and status), and never a secret (the API
// returns none; a static-keys identity's JWKS holds public keys only; invites are left out:
// a code is shown once, at create). The caller's own identity and its bindings are left
// out too: apply never manages the identity it runs as.
import type { SeedDocument, SeedGroup, SeedIdentity, SeedRoleBinding } from '../../api/seed.js';
import { setClaimMatchFields, type Group, type Identity } from '../../api/schemas.js';
import { groupPath, parentOf, type LiveState } from './live.js';

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const byName = <T extends { name: string }>(items: T[]) => items.sort((a, b) => cmp(a.name, b.name));

/** An identity's relationship as a manifest writes it. */
function relationshipOf(i: Identity): Pick<SeedIdentity, 'claimMatch' | 'staticKeys' | 'awsIdentity' | 'servicePrincipal'> {
  if (i.staticKeys) {
    const { issuer, subject, issuerKeys, expirationTime, audiences } = i.staticKeys as NonNullable<SeedIdentity['staticKeys']>;
    return { staticKeys: { issuer, subject, issuerKeys, ...(expirationTime ? { expirationTime } : {}), ...(audiences?.length ? { audiences } : {}) } };
  }
  if (i.awsIdentity) return { awsIdentity: i.awsIdentity as SeedIdentity['awsIdentity'] };
  if (i.servicePrincipal) return { servicePrincipal: i.servicePrincipal as SeedIdentity['servicePrincipal'] };
  return { claimMatch: setClaimMatchFields(i.claimMatch) };
}

export function exportDocument(live: LiveState, rootUids: readonly string[], self: ReadonlySet<string>): SeedDocument {
  const childrenOf = <T extends { uid: string }>(items: readonly T[]) => {
    const map = new Map<string, T[]>();
    for (const i of items) {
      const p = parentOf(i.uid) ?? '';
      map.set(p, [...(map.get(p) ?? []), i]);
    }
    return map;
  };
  const groupsBelow = childrenOf([...live.groups.values()]);
  const identitiesIn = childrenOf(live.identities.filter((i) => !self.has(i.uid)));
  const rolesIn = childrenOf(live.roles);
  const providersIn = childrenOf(live.providers);
  const reposIn = childrenOf(live.repos);
  const bindingsIn = new Map<string, LiveState['bindings']>();
  for (const b of live.bindings) if (!self.has(b.identity.uid)) bindingsIn.set(b.group.uid, [...(bindingsIn.get(b.group.uid) ?? []), b]);
  const associationOf = new Map(live.associations.map((a) => [a.uid, a]));
  const roleByUid = new Map(live.roles.map((r) => [r.uid, r]));
  const builtinByUid = new Map([...live.builtinRoles].map(([name, uid]) => [uid, name]));
  const inDocument = (uid: string) => rootUids.some((root) => uid === root || uid.startsWith(`${root}/`));
  const pathOf = (groupUid: string) => groupPath(live, groupUid) ?? groupUid;

  /** How a binding in `chain` (nearest group last) names `uid`: its name where that finds it, else its path. */
  const reference = (uid: string, name: string, chain: readonly string[], inGroup: Map<string, { uid: string; name: string }[]>) => {
    for (const g of [...chain].reverse()) {
      const match = inGroup.get(g)?.find((i) => i.name === name);
      if (match) {
        if (match.uid === uid) return name;
        break;
      }
    }
    return `${pathOf(parentOf(uid)!)}/${name}`;
  };
  const roleReference = (uid: string, fallbackName: string, chain: readonly string[]) => {
    const builtin = builtinByUid.get(uid);
    if (builtin) return builtin;
    const name = roleByUid.get(uid)?.name ?? live.outside.get(uid)?.name ?? fallbackName;
    return inDocument(uid) ? reference(uid, name, chain, rolesIn) : `${pathOf(parentOf(uid)!)}/${name}`;
  };

  const exportGroup = (g: Group, name: string, chain: string[]): SeedGroup => {
    const out: SeedGroup = { name };
    if (g.description) out.description = g.description;
    if (g.verified) out.verified = true;
    // A kind is its organization's: a subgroup shows it, inherited, and a manifest sets it on the organization alone.
    if (g.kind && g.kind !== 'ORG_KIND_UNSPECIFIED' && parentOf(g.uid) === null) out.kind = g.kind as SeedGroup['kind'];
    const identities = byName([...(identitiesIn.get(g.uid) ?? [])]);
    if (identities.length) {
      out.identities = identities.map((i) => ({
        name: i.name, ...(i.description ? { description: i.description } : {}), ...(i.email ? { email: i.email } : {}),
        // The relationship that is set: static keys, an AWS identity or a service principal, else the claimMatch.
        ...relationshipOf(i),
      }));
    }
    const roles = byName([...(rolesIn.get(g.uid) ?? [])]);
    if (roles.length) {
      out.roles = roles.map((r) => ({ name: r.name, ...(r.description ? { description: r.description } : {}), capabilities: [...(r.capabilities ?? [])].sort() }));
    }
    const bindings: SeedRoleBinding[] = (bindingsIn.get(g.uid) ?? []).map((b) => ({
      identity: inDocument(b.identity.uid) ? reference(b.identity.uid, b.identity.name, chain, identitiesIn) : `${pathOf(parentOf(b.identity.uid)!)}/${b.identity.name}`,
      role: roleReference(b.role.uid, b.role.name, chain),
    }));
    if (bindings.length) out.roleBindings = bindings.sort((a, b) => cmp(a.identity, b.identity) || cmp(a.role, b.role));
    const providers = byName([...(providersIn.get(g.uid) ?? [])]);
    if (providers.length) {
      out.identityProviders = providers.map((p) => {
        const { issuer, clientId, additionalScopes, groupsClaim, correlationRule, pkceEnabled } = p.oidc;
        return {
          name: p.name, ...(p.description ? { description: p.description } : {}), defaultRole: roleReference(p.defaultRole, p.defaultRole, chain),
          oidc: {
            issuer, clientId, ...(additionalScopes.length ? { additionalScopes } : {}), ...(groupsClaim ? { groupsClaim } : {}),
            correlationRule, pkceEnabled,
          },
        };
      });
    }
    const association = associationOf.get(g.uid);
    if (association) {
      const { name: an, description, amazon, google, azure, github, chainguard } = association;
      out.accountAssociation = {
        name: an, ...(description ? { description } : {}), ...(amazon ? { amazon } : {}), ...(google ? { google } : {}),
        ...(azure ? { azure: { tenantId: azure.tenantId, ...(Object.keys(azure.clientIds).length ? { clientIds: azure.clientIds } : {}) } } : {}),
        ...(github ? { github } : {}), ...(chainguard ? { chainguard } : {}),
      } as SeedGroup['accountAssociation'];
    }
    const repos = byName([...(reposIn.get(g.uid) ?? [])]);
    if (repos.length) out.repos = repos.map((r) => ({ name: r.name, ...(r.description ? { description: r.description } : {}) }));
    const children = byName([...(groupsBelow.get(g.uid) ?? [])]);
    if (children.length) out.groups = children.map((c) => exportGroup(c, c.name, [...chain, c.uid]));
    return out;
  };

  return { organizations: rootUids.map((uid) => exportGroup(live.groups.get(uid)!, pathOf(uid), [uid])) };
}

// How each kind of stored record is built: one builder per kind, used by the domain
// operations alone (every write path goes through them), and the uids and keys records get.
import { createHash } from 'node:crypto';
import type { AccountAssociationFields, AdvisoryDocument, CORRELATION_RULES, VulnerabilityMetadata } from '../../api/schemas.js';
import type { Random } from '../base/random.js';
import { isExact, type ClaimMatch } from '../auth/claim-match.js';
import { bindingKey, claimKey, type Kind, type Record_ } from '../store/record.js';

export { bindingKey, claimKey, timestamp } from '../store/record.js';

/** An organization (root group) uid: 40 lower-case hex characters. */
export function newOrganizationUid(random: Random): string {
  return random.bytes(20).toString('hex');
}

/** A nested uid: the parent's uid, `/`, 16 lower-case hex characters. */
export function newChildUid(random: Random, parentUid: string): string {
  return `${parentUid}/${random.bytes(8).toString('hex')}`;
}

/** An advisory uid: flat, 32 lower-case hex characters. */
export function newAdvisoryUid(random: Random): string {
  return random.bytes(16).toString('hex');
}

/** Built-in roles have flat opaque uids, the same in every data dir. */
export function builtinRoleUid(name: string): string {
  return createHash('sha256').update(`pctl built-in role ${name}`).digest('hex').slice(0, 40);
}

// ---- records: the one place each kind's stored form is built ----

/**
 * An account association's uid is its group's, which the group's own record holds: it is
 * stored at `<group uid>/account-association` (inside the group's uid range, so scoped lists
 * and grants see it where the group is), and sent with the group's uid.
 */
export function associationStoreUid(groupUid: string): string {
  return `${groupUid}/account-association`;
}

/** An identity provider's stored OIDC settings (with the write-only clientSecret). */
export interface Oidc {
  issuer: string;
  clientId: string;
  clientSecret: string;
  additionalScopes: string[];
  groupsClaim: string;
  correlationRule: (typeof CORRELATION_RULES)[number];
  pkceEnabled: boolean;
}

interface Base {
  /** Empty for a record whose uid is made when it is inserted below its parent. */
  uid?: string;
  createTime: string;
  updateTime?: string;
}

function record(kind: Kind, parent: string | null, name: string, altKey: string | null, b: Base, data: Record<string, unknown>): Record_ {
  return { uid: b.uid ?? '', kind, parent, name, altKey, createTime: b.createTime, updateTime: b.updateTime ?? b.createTime, data };
}

export const records = {
  group: (b: Base & { parent: string | null; name: string; description?: string | undefined }) =>
    record('group', b.parent, b.name, null, b, { description: b.description ?? '', verified: false }),

  identity: (b: Base & { parent: string; name: string; description?: string | undefined; email?: string | undefined; claimMatch: ClaimMatch }) =>
    record('identity', b.parent, b.name, isExact(b.claimMatch) ? claimKey(b.claimMatch.issuer!, b.claimMatch.subject!) : null, b, {
      description: b.description ?? '',
      ...(b.email ? { email: b.email } : {}),
      claimMatch: { ...b.claimMatch },
      lastSeenTime: b.createTime,
    }),

  role: (b: Base & { parent: string | null; name: string; description?: string | undefined; capabilities: readonly string[]; builtin?: boolean }) =>
    record('role', b.parent, b.name, null, b, {
      description: b.description ?? '',
      capabilities: [...new Set(b.capabilities)],
      ...(b.builtin ? { builtin: true } : {}),
    }),

  /** Role bindings sort by role name, the closest thing they have to a name. */
  roleBinding: (b: Base & { parent: string; identityUid: string; roleUid: string; roleName: string }) =>
    record('roleBinding', b.parent, b.roleName, bindingKey(b.identityUid, b.roleUid), b, { identityUid: b.identityUid, roleUid: b.roleUid }),

  repo: (b: Base & { parent: string; name: string; description?: string | undefined }) =>
    record('repo', b.parent, b.name, null, b, { description: b.description ?? '' }),

  tag: (b: Base & { parent: string; name: string; digest: string; deprecated?: boolean | undefined }) =>
    record('tag', b.parent, b.name, null, b, { digest: b.digest, deprecated: b.deprecated === true }),

  /** oidc holds the client secret too: identityProviderToWire leaves it out. */
  identityProvider: (b: Base & { parent: string; name: string; description?: string | undefined; defaultRole: string; oidc: Oidc }) =>
    record('identityProvider', b.parent, b.name, null, b, { description: b.description ?? '', defaultRole: b.defaultRole, oidc: b.oidc }),

  /** The sink is the name column: what NAME shows, order_by=name sorts and a reference may give. */
  subscription: (b: Base & { parent: string; sink: string }) => record('subscription', b.parent, b.sink, null, b, {}),

  /** Only a hash of the code is kept; its first 16 hex digits are the keyId (alt_key, a list filter). */
  groupInvite: (b: Base & { parent: string; roleUid: string; roleName: string; email?: string | undefined; expirationTime: string; singleUse: boolean; codeHash: string }) =>
    record('groupInvite', b.parent, b.roleName, b.codeHash.slice(0, 16), b, {
      roleUid: b.roleUid, email: b.email ?? '', expirationTime: b.expirationTime, singleUse: b.singleUse, codeHash: b.codeHash, redeemed: false,
    }),

  /** Stored below its group (see associationStoreUid); its wire uid is the group's uid. */
  accountAssociation: (b: Base & { parent: string } & AccountAssociationFields) => {
    const { parent, name, description, uid: _uid, createTime: _c, updateTime: _u, ...providers } = b;
    return record('accountAssociation', parent, name, null, { ...b, uid: associationStoreUid(parent) }, { description: description ?? '', ...providers });
  },

  /** The ecosystem lives in alt_key (the `ecosystems` filter); latestVersion and versionCount are kept with it. */
  artifact: (b: Base & { uid: string; name: string; ecosystem: string; description?: string | undefined; latestVersion: string; versionCount: number }) =>
    record('artifact', null, b.name, b.ecosystem, b, { description: b.description ?? '', latestVersion: b.latestVersion, versionCount: b.versionCount }),

  /** Below its artifact; the name column holds the version (order_by=name sorts versions). */
  artifactVersion: (b: Base & { parent: string; artifactName: string; version: string; description?: string | undefined; sizeBytes: string }) =>
    record('artifactVersion', b.parent, b.version, null, b, { artifactName: b.artifactName, description: b.description ?? '', sizeBytes: b.sizeBytes }),

  /** A package's advisory document, by package name. */
  advisoryDocument: (b: Base & { uid: string; document: AdvisoryDocument }) =>
    record('advisoryDocument', null, b.document.id, null, b, { advisories: b.document.advisories }),

  /** Vulnerability metadata, by vulnerability id (the name column: the `id`/`ids` filter). */
  vulnerabilityMetadata: (b: Base & { uid: string; metadata: VulnerabilityMetadata }) => {
    const { id, ...rest } = b.metadata;
    return record('vulnerabilityMetadata', null, id, null, b, rest);
  },

  /** artifactName lives in the name column and advisoryId in alt_key: both are exact-match list filters. */
  advisory: (b: Base & { advisoryId: string; artifactName: string }) => record('advisory', null, b.artifactName, b.advisoryId, b, {}),
};


/** A package's advisory document, as stored (by package name). */
export function advisoryDocumentOf(r: Record_): AdvisoryDocument {
  return { id: r.name, advisories: (r.data.advisories ?? []) as AdvisoryDocument['advisories'] };
}

/** Vulnerability metadata, as stored (by vulnerability id). */
export function vulnerabilityMetadataOf(r: Record_): VulnerabilityMetadata {
  return { id: r.name, ...(r.data as Omit<VulnerabilityMetadata, 'id'>) };
}

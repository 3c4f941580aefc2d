// The server's model: how each kind of stored record is built (one builder per kind, used by
// routes, seeds and bootstrap alike) and how it becomes its wire resource, typed by the
// contract's own schemas (src/api/schemas.ts), so that what serve sends is what the client
// validates.
import { createHash } from 'node:crypto';
import type { z } from 'zod';
import type { WireName } from '../api/registry/define.js';
import type * as Wire from '../api/schemas.js';
import type { AccountAssociationFields, AdvisoryDocument, CORRELATION_RULES, VulnerabilityMetadata } from '../api/schemas.js';
import type { Random } from './random.js';
import type { Kind, Record_, Store } from './store/store.js';

/** What serve may send for a wire message (defaults may be left out, as zod's input allows). */
export type WireOut<W extends WireName> = z.input<(typeof Wire)[W]>;

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

export function timestamp(ms: number): string {
  return new Date(ms).toISOString();
}

/** Identities are found by their claimMatch; the pair is kept unique so a token maps to one identity. */
export function claimKey(issuer: string, subject: string): string {
  return `${issuer}\n${subject}`;
}

/** A role binding's alt_key: found by identity (the authorizer) and by role (in-use checks). */
export function bindingKey(identityUid: string, roleUid: string): string {
  return `${identityUid}\n${roleUid}`;
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

  identity: (b: Base & { parent: string; name: string; description?: string | undefined; issuer: string; subject: string }) =>
    record('identity', b.parent, b.name, claimKey(b.issuer, b.subject), b, {
      description: b.description ?? '',
      claimMatch: { issuer: b.issuer, subject: b.subject },
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

  /** The sink is the name column: what NAME shows, order_by=name sorts and a reference may give. */
  subscription: (b: Base & { parent: string; sink: string }) => record('subscription', b.parent, b.sink, null, b, {}),

  /** artifactName lives in the name column and advisoryId in alt_key: both are exact-match list filters. */
  advisory: (b: Base & { advisoryId: string; artifactName: string }) => record('advisory', null, b.artifactName, b.advisoryId, b, {}),
};

// ---- wire forms ----

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function claimOf(r: Record_ | undefined): { issuer: string; subject: string } {
  const claim = (r?.data.claimMatch ?? {}) as { issuer?: unknown; subject?: unknown };
  return { issuer: str(claim.issuer), subject: str(claim.subject) };
}

export function groupToWire(r: Record_): WireOut<'Group'> {
  return {
    uid: r.uid,
    name: r.name,
    description: str(r.data.description),
    resourceLimits: {},
    verified: r.data.verified === true,
    createTime: r.createTime,
    updateTime: r.updateTime,
  };
}

export function identityToWire(r: Record_): WireOut<'Identity'> {
  return {
    uid: r.uid,
    name: r.name,
    description: str(r.data.description),
    claimMatch: claimOf(r),
    ...(typeof r.data.lastSeenTime === 'string' ? { lastSeenTime: r.data.lastSeenTime } : {}),
    createTime: r.createTime,
    updateTime: r.updateTime,
  };
}

export function roleToWire(r: Record_): WireOut<'Role'> {
  return {
    uid: r.uid,
    name: r.name,
    description: str(r.data.description),
    capabilities: Array.isArray(r.data.capabilities) ? (r.data.capabilities as string[]) : [],
    createTime: r.createTime,
    updateTime: r.updateTime,
  };
}

/** A role binding with identity, group and role expanded, so no follow-up lookup is needed. */
export function roleBindingToWire(r: Record_, store: Store): WireOut<'RoleBinding'> {
  const identity = store.get(str(r.data.identityUid));
  const group = r.parent ? store.get(r.parent) : undefined;
  const role = store.get(str(r.data.roleUid));
  const claim = claimOf(identity);
  return {
    uid: r.uid,
    identity: {
      uid: str(r.data.identityUid),
      name: identity?.name ?? '',
      description: str(identity?.data.description),
      subject: claim.subject,
      issuer: claim.issuer,
    },
    group: { uid: r.parent ?? '', name: group?.name ?? '', description: str(group?.data.description) },
    role: { uid: str(r.data.roleUid), name: role?.name ?? '', description: str(role?.data.description) },
    createTime: r.createTime,
  };
}

/** Never the client secret: it is write-only. */
export function identityProviderToWire(r: Record_): WireOut<'IdentityProvider'> {
  const oidc = (r.data.oidc ?? {}) as Partial<Oidc>;
  return {
    uid: r.uid,
    name: r.name,
    description: str(r.data.description),
    defaultRole: str(r.data.defaultRole),
    oidc: {
      issuer: str(oidc.issuer),
      clientId: str(oidc.clientId),
      additionalScopes: Array.isArray(oidc.additionalScopes) ? oidc.additionalScopes : [],
      groupsClaim: str(oidc.groupsClaim),
      correlationRule: oidc.correlationRule ?? 'SUB_EQUALS_EXTERNAL_ID',
      pkceEnabled: oidc.pkceEnabled === true,
    },
    createTime: r.createTime,
    updateTime: r.updateTime,
  };
}

/** The role expanded; `code` only when given (the create response). */
export function groupInviteToWire(r: Record_, store: Store, code?: string): WireOut<'GroupInvite'> {
  const role = store.get(str(r.data.roleUid));
  return {
    uid: r.uid,
    roleUid: str(r.data.roleUid),
    role: { uid: str(r.data.roleUid), name: role?.name ?? '', description: str(role?.data.description) },
    email: str(r.data.email),
    expirationTime: str(r.data.expirationTime),
    singleUse: r.data.singleUse === true,
    ...(code === undefined ? {} : { code }),
    keyId: r.altKey ?? '',
    createTime: r.createTime,
  };
}

export function accountAssociationToWire(r: Record_): WireOut<'AccountAssociation'> {
  const d = r.data as Partial<AccountAssociationFields>;
  return {
    uid: r.parent ?? '',
    name: r.name,
    description: str(d.description),
    ...(d.amazon ? { amazon: d.amazon } : {}),
    ...(d.google ? { google: d.google } : {}),
    ...(d.azure ? { azure: { clientIds: {}, ...d.azure } } : {}),
    ...(d.github ? { github: d.github } : {}),
    ...(d.chainguard ? { chainguard: d.chainguard } : {}),
    createTime: r.createTime,
    updateTime: r.updateTime,
  };
}

export function artifactToWire(r: Record_): WireOut<'Artifact'> {
  return {
    uid: r.uid,
    name: r.name,
    description: str(r.data.description),
    ecosystem: (r.altKey ?? 'JAVA') as 'JAVA' | 'PYTHON',
    latestVersion: str(r.data.latestVersion),
    versionCount: typeof r.data.versionCount === 'number' ? r.data.versionCount : 0,
    createTime: r.createTime,
    updateTime: r.updateTime,
  };
}

export function artifactVersionToWire(r: Record_): z.input<typeof Wire.ArtifactVersion> {
  return {
    uid: r.uid,
    name: str(r.data.artifactName),
    version: r.name,
    description: str(r.data.description),
    sizeBytes: str(r.data.sizeBytes) || '0',
    createTime: r.createTime,
    updateTime: r.updateTime,
  };
}

export function advisoryDocumentToWire(r: Record_): AdvisoryDocument {
  return { id: r.name, advisories: (r.data.advisories ?? []) as AdvisoryDocument['advisories'] };
}

export function vulnerabilityMetadataToWire(r: Record_): VulnerabilityMetadata {
  return { id: r.name, ...(r.data as Omit<VulnerabilityMetadata, 'id'>) };
}

export function repoToWire(r: Record_): WireOut<'Repo'> {
  return { uid: r.uid, name: r.name, description: str(r.data.description), createTime: r.createTime, updateTime: r.updateTime };
}

export function tagToWire(r: Record_): WireOut<'Tag'> {
  return {
    uid: r.uid,
    name: r.name,
    digest: str(r.data.digest),
    deprecated: r.data.deprecated === true,
    createTime: r.createTime,
    updateTime: r.updateTime,
  };
}

export function advisoryToWire(r: Record_): WireOut<'Advisory'> {
  return { uid: r.uid, advisoryId: r.altKey ?? '', artifactName: r.name, createTime: r.createTime, updateTime: r.updateTime };
}

export function subscriptionToWire(r: Record_): WireOut<'Subscription'> {
  return { uid: r.uid, sink: r.name, createTime: r.createTime, updateTime: r.updateTime };
}

/**
 * The store kinds each wire form reads besides its own record (a role binding names its
 * identity, group and role): its cached JSON is encoded again after a write of one of them.
 * A wire form added without saying what it reads does not compile.
 */
export const WIRE_READS: { [W in WireName]: readonly Kind[] } = {
  Group: [],
  Identity: [],
  Role: [],
  RoleBinding: ['identity', 'group', 'role'],
  IdentityProvider: [],
  GroupInvite: ['role'],
  AccountAssociation: [],
  Artifact: [],
  Repo: [],
  Tag: [],
  Advisory: [],
  Subscription: [],
};

/**
 * A wire form's JSON, encoded once per record: lists get the same record object until its
 * row is written (Store.sharedRecordsOf), so the object keys the cache, and a write drops it.
 */
export class WireJson {
  private readonly cache = new WeakMap<Record_, { version: string; json: string; bytes: number }>();

  constructor(
    private readonly store: Store,
    private readonly toWire: (r: Record_) => unknown,
    /** The kinds toWire reads besides the record (WIRE_READS). */
    private readonly reads: readonly Kind[] = [],
  ) {}

  /**
   * The records' JSON, comma-separated (a JSON array's inside), and its length in UTF-8 bytes;
   * `parts`, each record's cached JSON, are what a journal keeps (they outlive the request).
   */
  encode(records: readonly Record_[]): { text: string; bytes: number; parts: string[] } {
    const version = this.reads.length ? this.store.versionOf(this.reads) : '';
    const parts: string[] = [];
    let bytes = Math.max(records.length - 1, 0);
    for (const r of records) {
      let hit = this.cache.get(r);
      if (!hit || hit.version !== version) {
        const json = JSON.stringify(this.toWire(r));
        hit = { version, json, bytes: Buffer.byteLength(json) };
        this.cache.set(r, hit);
      }
      parts.push(hit.json);
      bytes += hit.bytes;
    }
    return { text: parts.join(','), bytes, parts };
  }
}

/** Every resource's wire form, by its registry kind: a resource without one does not compile. */
export const TO_WIRE: { [W in WireName]: (r: Record_, store: Store) => WireOut<W> } = {
  Group: groupToWire,
  Identity: identityToWire,
  Role: roleToWire,
  RoleBinding: roleBindingToWire,
  IdentityProvider: identityProviderToWire,
  GroupInvite: (r, store) => groupInviteToWire(r, store),
  AccountAssociation: accountAssociationToWire,
  Artifact: artifactToWire,
  Repo: repoToWire,
  Tag: tagToWire,
  Advisory: advisoryToWire,
  Subscription: subscriptionToWire,
};

// How each stored record becomes its wire resource, typed by the contract's own schemas
// (src/api/schemas.ts), so that what serve sends is what the client validates.
import type { z } from 'zod';
import type { WireName } from '../api/registry/define.js';
import type * as Wire from '../api/schemas.js';
import type { AccountAssociationFields } from '../api/schemas.js';
import type { Oidc } from './domain/records.js';
import type { Kind, Record_, Store } from './store/store.js';

/** What serve may send for a wire message (defaults may be left out, as zod's input allows). */
export type WireOut<W extends WireName> = z.input<(typeof Wire)[W]>;

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

/** Vulnerability metadata is sent as stored. */
export { vulnerabilityMetadataOf as vulnerabilityMetadataToWire } from './domain/records.js';

export function repoToWire(r: Record_): WireOut<'Repo'> {
  return { uid: r.uid, name: r.name, description: str(r.data.description), createTime: r.createTime, updateTime: r.updateTime };
}

function tagToWire(r: Record_): WireOut<'Tag'> {
  return {
    uid: r.uid,
    name: r.name,
    digest: str(r.data.digest),
    deprecated: r.data.deprecated === true,
    createTime: r.createTime,
    updateTime: r.updateTime,
  };
}

function advisoryToWire(r: Record_): WireOut<'Advisory'> {
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

// How each stored record becomes its wire resource, typed by the contract's own schemas
// (src/api/schemas.ts), so that what serve sends is what the client validates.
import type * as z from 'zod';
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

/** The whole claimMatch: issuer and subject (empty where a pattern stands instead), and whichever of the rest it names. */
function claimMatchOf(r: Record_): WireOut<'Identity'>['claimMatch'] {
  const { issuer: _i, subject: _s, ...rest } = (r.data.claimMatch ?? {}) as Record<string, unknown>;
  return { ...rest, ...claimOf(r) };
}

/**
 * A group's wire form: kind is its organization's (subgroups inherit it; set on the
 * organization alone); status is READY, as serve provisions nothing; resource limits as stored.
 */
export function groupToWire(r: Record_, store: Store): WireOut<'Group'> {
  const org = r.parent === null ? r : store.get(r.uid.split('/')[0]!, 'group');
  const kind = org?.data.kind;
  return {
    uid: r.uid,
    name: r.name,
    description: str(r.data.description),
    resourceLimits: (r.data.resourceLimits ?? {}) as Record<string, number>,
    verified: r.data.verified === true,
    ...(typeof kind === 'string' ? { kind } : {}),
    status: 'ORG_STATUS_READY',
    createTime: r.createTime,
    updateTime: r.updateTime,
  };
}

function identityToWire(r: Record_): WireOut<'Identity'> {
  return {
    uid: r.uid,
    name: r.name,
    description: str(r.data.description),
    claimMatch: claimMatchOf(r),
    ...(typeof r.data.email === 'string' ? { email: r.data.email } : {}),
    ...(r.data.staticKeys ? { staticKeys: r.data.staticKeys as Record<string, unknown> } : {}),
    ...(r.data.awsIdentity ? { awsIdentity: r.data.awsIdentity as Record<string, unknown> } : {}),
    ...(typeof r.data.servicePrincipal === 'string' ? { servicePrincipal: r.data.servicePrincipal } : {}),
    ...(typeof r.data.lastSeenTime === 'string' ? { lastSeenTime: r.data.lastSeenTime } : {}),
    createTime: r.createTime,
    updateTime: r.updateTime,
  };
}

function roleToWire(r: Record_): WireOut<'Role'> {
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
function identityProviderToWire(r: Record_): WireOut<'IdentityProvider'> {
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

/**
 * The wire form of a resource stored as its wire fields: uid, the name column as `name`, the
 * record's data as it is, and the times (repos, tags). A resource stored otherwise says how
 * in TO_WIRE.
 */
function storedAsWire(r: Record_): Record<string, unknown> {
  return { uid: r.uid, name: r.name, ...r.data, createTime: r.createTime, updateTime: r.updateTime };
}

/**
 * A repo as stored, but its README (the vendor's Repo has none: RepoReadme is its own
 * message); its sync configuration under the published JSON name, `sync_config`.
 */
function repoToWire(r: Record_): Record<string, unknown> {
  const { _readme: _, syncConfig, ...wire } = storedAsWire(r);
  return syncConfig === undefined ? wire : { ...wire, sync_config: syncConfig };
}

function advisoryToWire(r: Record_): WireOut<'Advisory'> {
  return { uid: r.uid, advisoryId: r.altKey ?? '', artifactName: r.name, createTime: r.createTime, updateTime: r.updateTime };
}

function subscriptionToWire(r: Record_): WireOut<'Subscription'> {
  return { uid: r.uid, sink: r.name, createTime: r.createTime, updateTime: r.updateTime };
}

/**
 * The store kinds a wire form reads besides its own record (a role binding names its
 * identity, group and role): its cached JSON is encoded again after a write of one of them.
 */
const WIRE_READS: { [W in WireName]?: readonly Kind[] } = {
  Group: ['group'],
  RoleBinding: ['identity', 'group', 'role'],
  GroupInvite: ['role'],
};

/**
 * A wire form's JSON, encoded once per record: lists get the same record object until its
 * row is written (Store.sharedRecordsOf), so the object keys the cache, and a write drops it.
 */
/** Records' wire JSON, comma-separated (a JSON array's inside), as UTF-8 bytes; `parts`, each record's JSON. Shared: read-only. */
export interface WireList { utf8: Buffer; parts: readonly string[] }

export class WireJson {
  private readonly cache = new WeakMap<Record_, { version: string; text: string; bytes: number }>();
  // The pages served last, joined: a few, as each holds its bytes.
  private readonly lists = new Map<readonly Record_[], { version: string; list: WireList }>();

  constructor(
    private readonly store: Store,
    private readonly toWire: (r: Record_) => unknown,
    /** The kinds toWire reads besides the record (WIRE_READS). */
    private readonly reads: readonly Kind[] = [],
  ) {}

  /** One record's JSON and its length in UTF-8 bytes (shared: read-only). */
  one(record: Record_): { text: string; bytes: number } {
    return this.cached(record, this.reads.length ? this.store.versionOf(this.reads) : '');
  }

  /**
   * The records' JSON; `parts`, each record's cached JSON, are what a journal keeps (they
   * outlive the request). A page served again is the same array (ListEngine.list): joined once.
   */
  encode(records: readonly Record_[]): WireList {
    const version = this.reads.length ? this.store.versionOf(this.reads) : '';
    const joined = this.lists.get(records);
    if (joined && joined.version === version) return joined.list;
    const parts = records.map((r) => this.cached(r, version).text);
    const list = { utf8: Buffer.from(parts.join(',')), parts };
    if (this.lists.size >= 64) this.lists.clear();
    this.lists.set(records, { version, list });
    return list;
  }

  private cached(r: Record_, version: string): { version: string; text: string; bytes: number } {
    let hit = this.cache.get(r);
    if (!hit || hit.version !== version) {
      const text = JSON.stringify(this.toWire(r));
      hit = { version, text, bytes: Buffer.byteLength(text) };
      this.cache.set(r, hit);
    }
    return hit;
  }
}

/** The wire forms of the resources not stored as their wire fields (storedAsWire), by registry kind. */
const TO_WIRE: { [W in WireName]?: (r: Record_, store: Store) => WireOut<W> } = {
  Group: groupToWire,
  Identity: identityToWire,
  Role: roleToWire,
  RoleBinding: roleBindingToWire,
  IdentityProvider: identityProviderToWire,
  GroupInvite: (r, store) => groupInviteToWire(r, store),
  AccountAssociation: accountAssociationToWire,
  Artifact: artifactToWire,
  Advisory: advisoryToWire,
  Subscription: subscriptionToWire,
  Repo: repoToWire as (r: Record_) => WireOut<'Repo'>,
};

/** A resource's wire form (its own, else storedAsWire) and the kinds it reads besides its record. */
export function wireFormOf(kind: WireName): { toWire: (r: Record_, store: Store) => unknown; reads: readonly Kind[] } {
  return { toWire: TO_WIRE[kind] ?? storedAsWire, reads: WIRE_READS[kind] ?? [] };
}

/** What a create answers on the wire: the resource, with the secret only its create shows (an invite's code). */
export function createdToWire(kind: WireName, created: { record: Record_; code?: string }, store: Store): unknown {
  return created.code === undefined ? wireFormOf(kind).toWire(created.record, store) : groupInviteToWire(created.record, store, created.code);
}

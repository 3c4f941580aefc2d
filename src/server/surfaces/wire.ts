// How each stored record becomes its wire resource (each kind's form is in its module,
// src/server/domain/kinds/), and the wire JSON of records, encoded once per record.
import type { WireName } from '../../api/registry/define.js';
import { accountAssociationToWire } from '../domain/kinds/account-association.js';
import { advisoryToWire } from '../domain/kinds/advisory.js';
import { artifactToWire } from '../domain/kinds/artifact.js';
import type { WireOut } from '../domain/kinds/build.js';
import { groupToWire } from '../domain/kinds/group.js';
import { groupInviteToWire } from '../domain/kinds/group-invite.js';
import { identityToWire } from '../domain/kinds/identity.js';
import { identityProviderToWire } from '../domain/kinds/identity-provider.js';
import { repoToWire } from '../domain/kinds/repo.js';
import { roleToWire } from '../domain/kinds/role.js';
import { roleBindingToWire } from '../domain/kinds/role-binding.js';
import { subscriptionToWire } from '../domain/kinds/subscription.js';
import { tagToWire } from '../domain/kinds/tag.js';
import type { Kind, Record_, Store } from '../store/store.js';

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

/** Each resource's wire form, by registry kind. */
const TO_WIRE: { [W in WireName]: (r: Record_<Uncapitalize<W>>, store: Store) => WireOut<W> } = {
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
  Repo: repoToWire,
  Tag: tagToWire,
};

/**
 * A resource's wire form and the kinds it reads besides its record. Its callers hand it
 * records of that resource (the domain's reads and writes return their own kind).
 */
export function wireFormOf(kind: WireName): { toWire: (r: Record_, store: Store) => unknown; reads: readonly Kind[] } {
  return { toWire: TO_WIRE[kind] as (r: Record_, store: Store) => unknown, reads: WIRE_READS[kind] ?? [] };
}

/** What a create answers on the wire: the resource, with the secret only its create shows (an invite's code). */
export function createdToWire(kind: WireName, created: { record: Record_; code?: string }, store: Store): unknown {
  return created.code === undefined ? wireFormOf(kind).toWire(created.record, store) : groupInviteToWire(created.record as Record_<'groupInvite'>, store, created.code);
}

// A stored record: one row of the resources table, its kind-specific fields parsed.
import type { StoreKind } from '../../api/registry/define.js';
import type { StoredRow } from './shared.js';

/** A record's kind: the store's `kind` column (StoreKind: a resource's, or one that hangs off a resource). */
export type Kind = StoreKind;

export interface Record_ {
  uid: string;
  kind: Kind;
  parent: string | null;
  name: string;
  altKey: string | null;
  createTime: string;
  updateTime: string;
  data: Record<string, unknown>;
}

export function rowToRecord(row: StoredRow): Record_ {
  return {
    uid: row.uid,
    kind: row.kind as Kind,
    parent: row.parent,
    name: row.name,
    altKey: row.alt_key,
    createTime: row.create_time,
    updateTime: row.update_time,
    data: JSON.parse(row.data) as Record<string, unknown>,
  };
}

/** RFC 3339 with milliseconds, fixed width: timestamps sort as text. */
export function timestamp(ms: number): string {
  // A write's records share its time (a seed's million): formatted once.
  if (ms !== lastStamp.ms) {
    lastStamp.ms = ms;
    lastStamp.text = new Date(ms).toISOString();
  }
  return lastStamp.text;
}

const lastStamp = { ms: Number.NaN, text: '' };

/** An identity's alt_key: found by its claimMatch (a token maps to one identity). */
export function claimKey(issuer: string, subject: string): string {
  return `${issuer}\n${subject}`;
}

/** A role binding's alt_key: found by identity (the authorizer) and by role (in-use checks). */
export function bindingKey(identityUid: string, roleUid: string): string {
  return `${identityUid}\n${roleUid}`;
}

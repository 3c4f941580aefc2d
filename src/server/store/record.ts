// A stored record: one row of the resources table, its kind-specific fields parsed.
import type { StoreKind } from '../../api/registry/define.js';
import type { StoredRow } from './shared.js';

/** A record's kind: the store's `kind` column (StoreKind: a resource's, or one that hangs off a resource). */
export type Kind = StoreKind;

/**
 * Each kind's `data`, by kind: declared with the kind's builder (src/server/domain/kinds/,
 * merged into this interface there). The store keeps it as JSON and reads none of it.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface KindData {}

/** A stored record of kind K (of any kind, by default: a union on `kind`), its data typed by kind. */
export type Record_<K extends Kind = Kind> = K extends Kind ? {
  uid: string;
  kind: K;
  parent: string | null;
  name: string;
  altKey: string | null;
  createTime: string;
  updateTime: string;
  data: K extends keyof KindData ? KindData[K] : never;
} : never;

/**
 * The row as a record. Its data is taken as its kind's without a check: only the kinds'
 * builders write rows (a kind's callers ask for the kind they read: the row's is checked).
 */
export function rowToRecord<K extends Kind = Kind>(row: StoredRow): Record_<K> {
  return {
    uid: row.uid,
    kind: row.kind,
    parent: row.parent,
    name: row.name,
    altKey: row.alt_key,
    createTime: row.create_time,
    updateTime: row.update_time,
    data: JSON.parse(row.data) as unknown,
  } as Record_<K>;
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

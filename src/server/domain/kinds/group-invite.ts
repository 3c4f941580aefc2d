// A group invite: only a hash of its code is kept; the hash's first 16 hex digits are its
// keyId (alt_key, a list filter). Sorted by its role's name.
import type { Record_ } from '../../store/record.js';
import type { Store } from '../../store/store.js';
import { record, type Base, type WireOut } from './build.js';

export interface GroupInviteData {
  roleUid: string;
  /** '' when anyone may redeem it. */
  email: string;
  expirationTime: string;
  singleUse: boolean;
  /** SHA-256 of the code, hex. */
  codeHash: string;
  redeemed: boolean;
}

export const groupInvite = (b: Base & { parent: string; roleUid: string; roleName: string; email?: string | undefined; expirationTime: string; singleUse: boolean; codeHash: string }) =>
  record('groupInvite', b.parent, b.roleName, b.codeHash.slice(0, 16), b, {
    roleUid: b.roleUid, email: b.email ?? '', expirationTime: b.expirationTime, singleUse: b.singleUse, codeHash: b.codeHash, redeemed: false,
  });

/** The role expanded; `code` only when given (the create response). */
export function groupInviteToWire(r: Record_<'groupInvite'>, store: Store, code?: string): WireOut<'GroupInvite'> {
  const role = store.get(r.data.roleUid, 'role');
  return {
    uid: r.uid,
    roleUid: r.data.roleUid,
    role: { uid: r.data.roleUid, name: role?.name ?? '', description: role?.data.description ?? '' },
    email: r.data.email,
    expirationTime: r.data.expirationTime,
    singleUse: r.data.singleUse,
    ...(code === undefined ? {} : { code }),
    keyId: r.altKey ?? '',
    createTime: r.createTime,
  };
}

// A role binding: identity I holds role R on group G (its parent). Found by identity and by
// role (alt_key); sorted by role name, the closest thing it has to a name.
import { bindingKey, type Record_ } from '../../store/record.js';
import type { Store } from '../../store/store.js';
import { record, type Base, type WireOut } from './build.js';
import { claimOf } from './identity.js';

export interface RoleBindingData {
  identityUid: string;
  roleUid: string;
}

export const roleBinding = (b: Base & { parent: string; identityUid: string; roleUid: string; roleName: string }) =>
  record('roleBinding', b.parent, b.roleName, bindingKey(b.identityUid, b.roleUid), b, { identityUid: b.identityUid, roleUid: b.roleUid });

/** With identity, group and role expanded, so no follow-up lookup is needed. */
export function roleBindingToWire(r: Record_<'roleBinding'>, store: Store): WireOut<'RoleBinding'> {
  const identity = store.get(r.data.identityUid, 'identity');
  const group = r.parent ? store.get(r.parent, 'group') : undefined;
  const role = store.get(r.data.roleUid, 'role');
  const claim = claimOf(identity);
  return {
    uid: r.uid,
    identity: { uid: r.data.identityUid, name: identity?.name ?? '', description: identity?.data.description ?? '', subject: claim.subject, issuer: claim.issuer },
    group: { uid: r.parent ?? '', name: group?.name ?? '', description: group?.data.description ?? '' },
    role: { uid: r.data.roleUid, name: role?.name ?? '', description: role?.data.description ?? '' },
    createTime: r.createTime,
  };
}

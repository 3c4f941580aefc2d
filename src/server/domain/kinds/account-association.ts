// An account association: one per group, its uid the group's. It is stored at
// `<group uid>/account-association` (inside the group's uid range, so scoped lists and grants
// see it where the group is), and sent with the group's uid.
import type { AccountAssociationFields } from '../../../api/schemas.js';
import type { Record_ } from '../../store/record.js';
import { record, type Base, type WireOut } from './build.js';

export function associationStoreUid(groupUid: string): string {
  return `${groupUid}/account-association`;
}

/** The provider blocks as given (each checked against its schema), and the description. */
export type AccountAssociationData = Omit<AccountAssociationFields, 'name' | 'description'> & { description: string };

export const accountAssociation = (b: Base & { parent: string } & AccountAssociationFields) => {
  const { parent, name, description, uid: _uid, createTime: _c, updateTime: _u, ...providers } = b;
  return record('accountAssociation', parent, name, null, { ...b, uid: associationStoreUid(parent) }, { description: description ?? '', ...providers });
};

export function accountAssociationToWire(r: Record_<'accountAssociation'>): WireOut<'AccountAssociation'> {
  const d = r.data;
  return {
    uid: r.parent ?? '',
    name: r.name,
    description: d.description,
    ...(d.amazon ? { amazon: d.amazon } : {}),
    ...(d.google ? { google: d.google } : {}),
    ...(d.azure ? { azure: { clientIds: {}, ...d.azure } } : {}),
    ...(d.github ? { github: d.github } : {}),
    ...(d.chainguard ? { chainguard: d.chainguard } : {}),
    createTime: r.createTime,
    updateTime: r.updateTime,
  };
}

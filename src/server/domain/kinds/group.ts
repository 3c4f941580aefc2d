// A group: an organization (no parent) or a group below one.
import type { ORG_KINDS } from '../../../api/schemas.js';
import type { Record_, Store } from '../../store/store.js';
import { record, type Base, type WireOut } from './build.js';

export interface GroupData {
  description: string;
  verified: boolean;
  /** An organization's alone (its subgroups inherit it): set once it is verified. */
  kind?: (typeof ORG_KINDS)[number];
}

export const group = (b: Base & { parent: string | null; name: string; description?: string | undefined; verified?: boolean | undefined; kind?: GroupData['kind'] }) =>
  record('group', b.parent, b.name, null, b, { description: b.description ?? '', verified: b.verified ?? false, ...(b.kind ? { kind: b.kind } : {}) });

/**
 * A group's wire form: kind is its organization's (subgroups inherit it; set on the
 * organization alone); status is READY, as serve provisions nothing; no resource limits.
 */
export function groupToWire(r: Record_<'group'>, store: Store): WireOut<'Group'> {
  const org = r.parent === null ? r : store.get(r.uid.split('/')[0]!, 'group');
  const kind = org?.data.kind;
  return {
    uid: r.uid,
    name: r.name,
    description: r.data.description,
    resourceLimits: {},
    verified: r.data.verified,
    ...(kind ? { kind } : {}),
    status: 'ORG_STATUS_READY',
    createTime: r.createTime,
    updateTime: r.updateTime,
  };
}

// A tag of a repo: an OCI tag name, unique in its repo, and the digest it points at.
import type { Record_ } from '../../store/record.js';
import { record, type Base, type WireOut } from './build.js';

export interface TagData {
  /** '' when none (v1 creates tags without one). */
  digest: string;
  deprecated: boolean;
  /** None stored when empty. */
  bundles?: string[];
}

export const tag = (b: Base & { parent: string; name: string; digest: string; deprecated?: boolean | undefined; bundles?: readonly string[] | undefined }) =>
  record('tag', b.parent, b.name, null, b, { digest: b.digest, deprecated: b.deprecated === true, ...(b.bundles?.length ? { bundles: [...b.bundles] } : {}) });

export function tagToWire(r: Record_<'tag'>): WireOut<'Tag'> {
  return { uid: r.uid, name: r.name, ...r.data, createTime: r.createTime, updateTime: r.updateTime };
}

// How stored records become wire resources, and how new uids are made.
import { randomBytes, createHash } from 'node:crypto';
import type { Record_, Store } from './store/store.js';

/** An organization (root group) uid: 40 lower-case hex characters. */
export function newOrganizationUid(): string {
  return randomBytes(20).toString('hex');
}

/** A nested uid: the parent's uid, `/`, 16 lower-case hex characters. */
export function newChildUid(parentUid: string): string {
  return `${parentUid}/${randomBytes(8).toString('hex')}`;
}

/** Built-in roles have flat opaque uids, the same in every data dir. */
export function builtinRoleUid(name: string): string {
  return createHash('sha256').update(`pctl built-in role ${name}`).digest('hex').slice(0, 40);
}

export function timestamp(ms: number): string {
  return new Date(ms).toISOString();
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

export function groupToWire(r: Record_) {
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

export function identityToWire(r: Record_) {
  const claim = (r.data.claimMatch ?? {}) as { issuer?: string; subject?: string };
  const out: Record<string, unknown> = {
    uid: r.uid,
    name: r.name,
    description: str(r.data.description),
    claimMatch: { issuer: str(claim.issuer), subject: str(claim.subject) },
  };
  if (typeof r.data.lastSeenTime === 'string') out.lastSeenTime = r.data.lastSeenTime;
  out.createTime = r.createTime;
  out.updateTime = r.updateTime;
  return out;
}

export function roleToWire(r: Record_) {
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
export function roleBindingToWire(r: Record_, store: Store) {
  const identity = store.get(str(r.data.identityUid));
  const group = r.parent ? store.get(r.parent) : undefined;
  const role = store.get(str(r.data.roleUid));
  const claim = (identity?.data.claimMatch ?? {}) as { issuer?: string; subject?: string };
  return {
    uid: r.uid,
    identity: {
      uid: str(r.data.identityUid),
      name: identity?.name ?? '',
      description: str(identity?.data.description),
      subject: str(claim.subject),
      issuer: str(claim.issuer),
    },
    group: { uid: r.parent ?? '', name: group?.name ?? '', description: str(group?.data.description) },
    role: { uid: str(r.data.roleUid), name: role?.name ?? '', description: str(role?.data.description) },
    createTime: r.createTime,
  };
}

export function repoToWire(r: Record_) {
  return { uid: r.uid, name: r.name, description: str(r.data.description), createTime: r.createTime, updateTime: r.updateTime };
}

export function tagToWire(r: Record_) {
  return {
    uid: r.uid,
    name: r.name,
    digest: str(r.data.digest),
    deprecated: r.data.deprecated === true,
    createTime: r.createTime,
    updateTime: r.updateTime,
  };
}

/** Advisories keep artifactName in the name column and advisoryId in alt_key (both filterable). */
export function advisoryToWire(r: Record_) {
  return { uid: r.uid, advisoryId: r.altKey ?? '', artifactName: r.name, createTime: r.createTime, updateTime: r.updateTime };
}

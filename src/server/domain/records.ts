// The uids and keys records get (each kind's builder is in kinds/).
import { createHash } from 'node:crypto';
import type { Random } from '../base/random.js';

export { bindingKey, claimKey, timestamp } from '../store/record.js';

/** An organization (root group) uid: 40 lower-case hex characters. */
export function newOrganizationUid(random: Random): string {
  return random.bytes(20).toString('hex');
}

/** A nested uid: the parent's uid, `/`, 16 lower-case hex characters. */
export function newChildUid(random: Random, parentUid: string): string {
  return `${parentUid}/${random.bytes(8).toString('hex')}`;
}

/** An advisory uid: flat, 32 lower-case hex characters. */
export function newAdvisoryUid(random: Random): string {
  return random.bytes(16).toString('hex');
}

/** Built-in roles have flat opaque uids, the same in every data dir. */
export function builtinRoleUid(name: string): string {
  return createHash('sha256').update(`pctl built-in role ${name}`).digest('hex').slice(0, 40);
}

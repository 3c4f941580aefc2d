// An identity: who a token is. Exact claimMatch identities are found by their issuer and
// subject pair (alt_key); the published relationship's other forms are stored and returned.
import type { AwsIdentity, SERVICE_PRINCIPALS, StaticKeys } from '../../../api/schemas.js';
import { isExact, type ClaimMatch } from '../../auth/claim-match.js';
import { claimKey, type Record_ } from '../../store/record.js';
import { record, type Base, type WireOut } from './build.js';

export interface IdentityData {
  description: string;
  email?: string;
  /** Empty for the relationship's other forms: then it matches no token. */
  claimMatch: ClaimMatch;
  /** When a request last came with its token (serve writes it; not an update). */
  lastSeenTime: string;
  /** Its expirationTime set at create (at most a year on). */
  staticKeys?: StaticKeys & { expirationTime: string };
  awsIdentity?: AwsIdentity;
  servicePrincipal?: (typeof SERVICE_PRINCIPALS)[number];
}

export const identity = (b: Base & { parent: string; name: string; description?: string | undefined; email?: string | undefined; claimMatch: ClaimMatch }) =>
  record('identity', b.parent, b.name, isExact(b.claimMatch) ? claimKey(b.claimMatch.issuer!, b.claimMatch.subject!) : null, b, {
    description: b.description ?? '',
    ...(b.email ? { email: b.email } : {}),
    claimMatch: { ...b.claimMatch },
    lastSeenTime: b.createTime,
  });

/** Issuer and subject (empty where a pattern stands instead, or none is named). */
export function claimOf(r: Record_<'identity'> | undefined): { issuer: string; subject: string } {
  return { issuer: r?.data.claimMatch.issuer ?? '', subject: r?.data.claimMatch.subject ?? '' };
}

/** The whole claimMatch: whichever of the rest it names, then issuer and subject (empty where a pattern stands instead). */
function claimMatchOf(r: Record_<'identity'>): WireOut<'Identity'>['claimMatch'] {
  const { issuer: _i, subject: _s, ...rest } = r.data.claimMatch;
  return { ...rest, ...claimOf(r) };
}

export function identityToWire(r: Record_<'identity'>): WireOut<'Identity'> {
  const { email, staticKeys, awsIdentity, servicePrincipal, lastSeenTime } = r.data;
  return {
    uid: r.uid,
    name: r.name,
    description: r.data.description,
    claimMatch: claimMatchOf(r),
    ...(email === undefined ? {} : { email }),
    ...(staticKeys ? { staticKeys } : {}),
    ...(awsIdentity ? { awsIdentity } : {}),
    ...(servicePrincipal ? { servicePrincipal } : {}),
    lastSeenTime,
    createTime: r.createTime,
    updateTime: r.updateTime,
  };
}

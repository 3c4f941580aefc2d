// Auth/Validate's answer: the published WhoAmI of the caller's token (issuer, subject,
// audience, expiry) and, per role binding, the group, the role and the capabilities the token
// may use there (an exchanged token's cap and scopes narrow them).
import { timestamp } from '../store/record.js';
import type { Store } from '../store/store.js';
import type { Authorizer } from './authorize.js';
import type { Principal } from './principal.js';

export interface WhoAmIOptions {
  store: Store;
  authz: Authorizer;
}


function listClaim(text: string | undefined): string[] {
  if (text === undefined) return [];
  try {
    const v = JSON.parse(text) as unknown;
    return Array.isArray(v) ? v.filter((a): a is string => typeof a === 'string') : [text];
  } catch {
    return [text];
  }
}

const secondsClaim = (text: string | undefined): string | undefined => (text && /^\d+$/.test(text) ? timestamp(Number(text) * 1000) : undefined);

export function whoAmI({ store, authz }: WhoAmIOptions, principal: Principal): Record<string, unknown> {
  const claims = principal.claims ?? {};
  const capabilities = store.findByAltKeyFirstPart('roleBinding', principal.identityUid).flatMap((binding) => {
    const group = binding.parent ? store.get(binding.parent, 'group') : undefined;
    const role = store.get(binding.data.roleUid, 'role');
    if (!group || !role) return [];
    const usable = authz.capabilitiesOn(principal, group.uid);
    const roleCaps = role.data.capabilities;
    return [{
      group: { id: group.uid, name: group.name, description: group.data.description, verified: group.data.verified },
      role: { id: role.uid, name: role.name, description: role.data.description, capabilities: roleCaps },
      capabilities: roleCaps.filter((c) => usable.has(c)),
    }];
  });
  const expiry = secondsClaim(claims.exp);
  const issuedAt = secondsClaim(claims.iat);
  return {
    issuer: claims.iss ?? '',
    subject: claims.sub ?? '',
    audience: listClaim(claims.aud),
    ...(expiry ? { expiry } : {}),
    ...(issuedAt ? { issuedAt } : {}),
    capabilities,
    ...(principal.email ? { email: principal.email } : {}),
  };
}

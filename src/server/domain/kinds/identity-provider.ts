// An identity provider: an OIDC provider for a group, handing out its default role.
import type { CORRELATION_RULES } from '../../../api/schemas.js';
import type { Record_ } from '../../store/record.js';
import { record, type Base, type WireOut } from './build.js';

/** The stored OIDC settings (with the write-only clientSecret). */
export interface Oidc {
  issuer: string;
  clientId: string;
  clientSecret: string;
  additionalScopes: string[];
  groupsClaim: string;
  correlationRule: (typeof CORRELATION_RULES)[number];
  pkceEnabled: boolean;
}

export interface IdentityProviderData {
  description: string;
  /** The uid of the role its users get. */
  defaultRole: string;
  oidc: Oidc;
}

/** oidc holds the client secret too: identityProviderToWire leaves it out. */
export const identityProvider = (b: Base & { parent: string; name: string; description?: string | undefined; defaultRole: string; oidc: Oidc }) =>
  record('identityProvider', b.parent, b.name, null, b, { description: b.description ?? '', defaultRole: b.defaultRole, oidc: b.oidc });

/** Never the client secret: it is write-only. */
export function identityProviderToWire(r: Record_<'identityProvider'>): WireOut<'IdentityProvider'> {
  const { clientSecret: _secret, ...oidc } = r.data.oidc;
  return { uid: r.uid, name: r.name, description: r.data.description, defaultRole: r.data.defaultRole, oidc, createTime: r.createTime, updateTime: r.updateTime };
}

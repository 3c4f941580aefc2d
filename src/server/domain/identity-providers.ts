// Identity providers: an OIDC provider for a group. One hands out its default role, so making
// or changing one also needs role_bindings.create on its group, and the role must be one a
// binding there could use. oidc.clientSecret is write-only; oidc.correlationRule is fixed at create.
import { invalidArgument, type FieldViolation } from '../../api/errors.js';
import { capabilities, groups as G, identityProviders as IDP } from '../../api/registry/index.js';
import { CORRELATION_RULES, UPDATE_RULES } from '../../api/schemas.js';
import type { Principal } from '../auth/principal.js';
import type { Record_ } from '../store/store.js';
import { authorize, commit, insertChild, mustGet, now, patchRecord, resolve, type Deferred, type DomainContext } from './context.js';
import { grantableRole } from './grants.js';
import { ruledChanges, type Changes } from './patch.js';
import { readOperations } from './reads.js';
import { records } from './kinds/index.js';

export interface NewIdentityProvider {
  parent: string;
  name: string;
  description?: string | undefined;
  /** The uid of the role its users get. */
  defaultRole: string;
  oidc: {
    issuer: string;
    clientId: string;
    clientSecret?: string | undefined;
    additionalScopes?: string[] | undefined;
    groupsClaim?: string | undefined;
    correlationRule?: (typeof CORRELATION_RULES)[number] | undefined;
    pkceEnabled?: boolean | undefined;
  };
}

export function identityProviderOperations(ctx: DomainContext) {
  return {
    ...readOperations(ctx, IDP),

    async create(principal: Principal, input: NewIdentityProvider): Promise<Record_<'identityProvider'>> {
      // Its default role is handed out to whoever signs in: the published rule needs role_bindings.create too.
      authorize(ctx, principal, capabilities(IDP, 'create'), G, input.parent, 'parent');
      return commit(ctx, principal, 'identityProviders.create', () => insertIdentityProvider(ctx, principal, input));
    },

    async update(principal: Principal, uid: string, changes: Deferred<Changes>): Promise<Record_<'identityProvider'>> {
      const current = authorize(ctx, principal, capabilities(IDP, 'update'), IDP, uid);
      const patch = await resolve(changes);
      const strings = ruledChanges(patch, UPDATE_RULES.identityProvider);
      const violations: FieldViolation[] = [];
      let scopes: string[] | undefined;
      if (patch.has('oidc.additionalScopes')) {
        const raw = patch.get('oidc.additionalScopes') ?? [];
        if (!Array.isArray(raw) || raw.some((s) => typeof s !== 'string' || s === '')) violations.push({ field: 'oidc.additionalScopes', description: 'must be an array of non-empty strings' });
        else scopes = raw as string[];
      }
      const pkce = patch.get('oidc.pkceEnabled');
      if (patch.has('oidc.pkceEnabled') && pkce !== undefined && typeof pkce !== 'boolean') violations.push({ field: 'oidc.pkceEnabled', description: 'must be a boolean' });
      if (patch.has('oidc.correlationRule')) {
        const stored = current.data.oidc.correlationRule;
        if (patch.get('oidc.correlationRule') !== stored) {
          violations.push({ field: 'oidc.correlationRule', description: `cannot change after create (it is ${stored})` });
        }
      }
      for (const field of ['name', 'defaultRole', 'oidc.issuer', 'oidc.clientId'] as const) {
        if (patch.has(field) && !strings[field]) violations.push({ field, description: 'is required' });
      }
      if (violations.length) throw invalidArgument(violations);
      return commit(ctx, principal, 'identityProviders.update', () => patchRecord(ctx, IDP, uid, patch, (rec) => {
        const { oidc } = rec.data;
        if (strings.defaultRole !== undefined) {
          grantableRole(ctx, principal, rec.parent!, strings.defaultRole, 'defaultRole');
          rec.data.defaultRole = strings.defaultRole;
        }
        if (strings.name !== undefined) rec.name = strings.name;
        if (strings.description !== undefined) rec.data.description = strings.description;
        if (strings['oidc.issuer'] !== undefined) oidc.issuer = strings['oidc.issuer'];
        if (strings['oidc.clientId'] !== undefined) oidc.clientId = strings['oidc.clientId'];
        if (strings['oidc.clientSecret'] !== undefined) oidc.clientSecret = strings['oidc.clientSecret'];
        if (strings['oidc.groupsClaim'] !== undefined) oidc.groupsClaim = strings['oidc.groupsClaim'];
        if (scopes !== undefined) oidc.additionalScopes = scopes;
        if (patch.has('oidc.pkceEnabled')) oidc.pkceEnabled = pkce === true;
      }));
    },

    async delete(principal: Principal, uid: string): Promise<void> {
      authorize(ctx, principal, capabilities(IDP, 'delete'), IDP, uid);
      await commit(ctx, principal, 'identityProviders.delete', () => ctx.store.remove(mustGet(ctx, IDP, uid).uid));
    },
  };
}

/** In a write: a provider of an existing group whose defaultRole the principal could bind there (code 3 on defaultRole otherwise). */
export function insertIdentityProvider(ctx: DomainContext, principal: Principal, input: NewIdentityProvider): Record_<'identityProvider'> {
  const { parent, name, description, defaultRole, oidc } = input;
  const rec = records.identityProvider({
    parent, name, description, defaultRole, createTime: now(ctx),
    oidc: {
      issuer: oidc.issuer, clientId: oidc.clientId, clientSecret: oidc.clientSecret ?? '', additionalScopes: oidc.additionalScopes ?? [],
      groupsClaim: oidc.groupsClaim ?? '', correlationRule: oidc.correlationRule ?? 'SUB_EQUALS_EXTERNAL_ID', pkceEnabled: oidc.pkceEnabled ?? false,
    },
  });
  return insertChild(ctx, rec, () => grantableRole(ctx, principal, parent, defaultRole, 'defaultRole'));
}

// /iam/v2/identityProviders: create, update and delete (list and get are the generic ones).
// An identity provider hands out its default role, so creating or changing one also needs
// role_bindings.create on its group, and the role must be one a binding there could use.
// oidc.clientSecret is write-only (never in a response: see identityProviderToWire);
// oidc.correlationRule is fixed at create.
import { invalidArgument, type FieldViolation } from '../../api/errors.js';
import { capability, groups, identityProviders as IDP, roleBindings } from '../../api/registry/index.js';
import * as S from '../../api/schemas.js';
import { authorize, insertChild, mustGet, now, parseBody, updateRecord, type ServerContext } from '../context.js';
import type { Principal, ResourceRoutes } from '../http.js';
import { identityProviderToWire, records, type Oidc } from '../models.js';
import { resolveChanges, ruledChanges, updateMaskParam } from '../update.js';
import { grantableRole } from './grants.js';
import { resourceRoutes } from './resource.js';

export function identityProviderRoutes(ctx: ServerContext): ResourceRoutes {
  const { store, authz } = ctx;
  const bindsRoles = capability(roleBindings, 'create');

  /** defaultRole: a role the caller could bind on the group; else code 3, revealing nothing. */
  const checkDefaultRole = (principal: Principal, groupUid: string, roleUid: string) => grantableRole(ctx, principal, groupUid, roleUid, 'defaultRole');

  return resourceRoutes(ctx, IDP, {
    create: async (req) => {
      const body = parseBody(S.CreateIdentityProviderBody, await req.json());
      const { name, description, defaultRole, oidc } = body.identityProvider;
      authorize(ctx, req.principal, capability(IDP, 'create'), groups, body.parent, 'parent');
      authz.require(req.principal, bindsRoles, body.parent);
      const rec = records.identityProvider({
        parent: body.parent, name, description, defaultRole, createTime: now(ctx),
        oidc: {
          issuer: oidc.issuer, clientId: oidc.clientId, clientSecret: oidc.clientSecret ?? '', additionalScopes: oidc.additionalScopes ?? [],
          groupsClaim: oidc.groupsClaim ?? '', correlationRule: oidc.correlationRule ?? 'SUB_EQUALS_EXTERNAL_ID', pkceEnabled: oidc.pkceEnabled ?? false,
        },
      });
      return { body: identityProviderToWire(await insertChild(ctx, rec, () => checkDefaultRole(req.principal, body.parent, defaultRole))) };
    },
    update: async (req) => {
      const current = authorize(ctx, req.principal, capability(IDP, 'update'), IDP, req.uid);
      authz.require(req.principal, bindsRoles, current.parent!);
      const changes = resolveChanges(await req.json(), updateMaskParam(req.query), IDP);
      const strings = ruledChanges(changes, S.UPDATE_RULES.identityProvider);
      const violations: FieldViolation[] = [];
      let scopes: string[] | undefined;
      if (changes.has('oidc.additionalScopes')) {
        const raw = changes.get('oidc.additionalScopes') ?? [];
        if (!Array.isArray(raw) || raw.some((s) => typeof s !== 'string' || s === '')) violations.push({ field: 'oidc.additionalScopes', description: 'must be an array of non-empty strings' });
        else scopes = raw as string[];
      }
      const pkce = changes.get('oidc.pkceEnabled');
      if (changes.has('oidc.pkceEnabled') && pkce !== undefined && typeof pkce !== 'boolean') violations.push({ field: 'oidc.pkceEnabled', description: 'must be a boolean' });
      if (changes.has('oidc.correlationRule')) {
        const stored = (current.data.oidc as Oidc).correlationRule;
        if (changes.get('oidc.correlationRule') !== stored) {
          violations.push({ field: 'oidc.correlationRule', description: `cannot change after create (it is ${stored})` });
        }
      }
      for (const field of ['name', 'defaultRole', 'oidc.issuer', 'oidc.clientId'] as const) {
        if (changes.has(field) && !strings[field]) violations.push({ field, description: 'is required' });
      }
      if (violations.length) throw invalidArgument(violations);
      return {
        body: identityProviderToWire(await updateRecord(ctx, IDP, req.uid, changes, (rec) => {
          const oidc = rec.data.oidc as Oidc;
          if (strings.defaultRole !== undefined) {
            checkDefaultRole(req.principal, rec.parent!, strings.defaultRole);
            rec.data.defaultRole = strings.defaultRole;
          }
          if (strings.name !== undefined) rec.name = strings.name;
          if (strings.description !== undefined) rec.data.description = strings.description;
          if (strings['oidc.issuer'] !== undefined) oidc.issuer = strings['oidc.issuer'];
          if (strings['oidc.clientId'] !== undefined) oidc.clientId = strings['oidc.clientId'];
          if (strings['oidc.clientSecret'] !== undefined) oidc.clientSecret = strings['oidc.clientSecret'];
          if (strings['oidc.groupsClaim'] !== undefined) oidc.groupsClaim = strings['oidc.groupsClaim'];
          if (scopes !== undefined) oidc.additionalScopes = scopes;
          if (changes.has('oidc.pkceEnabled')) oidc.pkceEnabled = pkce === true;
        })),
      };
    },
    remove: async (req) => {
      authorize(ctx, req.principal, capability(IDP, 'delete'), IDP, req.uid);
      await store.write(() => store.remove(mustGet(ctx, IDP, req.uid).uid));
      return {};
    },
  });
}

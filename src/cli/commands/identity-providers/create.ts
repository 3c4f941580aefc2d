// pctl identity-providers create NAME --parent G --issuer URL --client-id ID --default-role ROLE
//   [--client-secret] [--scope S]… [--groups-claim C] [--correlation-rule sub|oid] [--pkce]
import { identityProviders } from '../../../api/resources.js';
import { issuerProblem, type CreateIdentityProviderBody } from '../../../api/schemas.js';
import type { FlagValues } from '../../command.js';
import type { Context } from '../../context.js';
import { printResource } from '../../shared/get.js';
import { groupUid } from '../../shared/resolve.js';
import { resolveRole } from '../../shared/roles.js';
import { checkField, checkNotEmpty } from '../../shared/validate.js';
import type { createFlags } from './index.js';
import { readClientSecret } from './secret.js';

export async function run(ctx: Context, [name]: string[], opts: FlagValues<typeof createFlags>): Promise<number> {
  checkNotEmpty('name', name);
  checkField('oidc.issuer', issuerProblem, opts.issuer);
  const secret = opts.clientSecret ? await readClientSecret(ctx) : undefined;
  const client = await ctx.client();
  const parent = (await groupUid(ctx, opts.parent, '--parent'))!;
  const role = await resolveRole(client, opts.defaultRole, '--default-role');
  const oidc: CreateIdentityProviderBody['identityProvider']['oidc'] = { issuer: opts.issuer, clientId: opts.clientId };
  if (secret !== undefined) oidc.clientSecret = secret;
  if (opts.scope) oidc.additionalScopes = opts.scope;
  if (opts.groupsClaim !== undefined) oidc.groupsClaim = opts.groupsClaim;
  if (opts.correlationRule) oidc.correlationRule = opts.correlationRule === 'oid' ? 'OID_EQUALS_EXTERNAL_ID' : 'SUB_EQUALS_EXTERNAL_ID';
  if (opts.pkce) oidc.pkceEnabled = true;
  const body: CreateIdentityProviderBody = { parent, identityProvider: { name: name!, defaultRole: role.uid, oidc } };
  if (opts.description !== undefined) body.identityProvider.description = opts.description;
  return printResource(ctx, identityProviders.view, await client.create(identityProviders, body));
}

// pctl identity-providers update PROVIDER [--name] [--description] [--issuer] [--client-id]
//   [--default-role] [--scope]… [--groups-claim] [--pkce on|off] [--client-secret]:
// the update mask names exactly the fields the flags set.
import { identityProviders } from '../../../api/resources.js';
import { issuerProblem } from '../../../api/schemas.js';
import type { FlagValues } from '../../command.js';
import type { Context } from '../../context.js';
import { FieldMask } from '../../shared/field-mask.js';
import { printResource } from '../../shared/get.js';
import { resolver } from '../../shared/resolve.js';
import { resolveRole } from '../../shared/roles.js';
import { checkField, checkSomethingToUpdate } from '../../shared/validate.js';
import type { updateFlags } from './index.js';
import { readClientSecret } from './secret.js';

export async function run(ctx: Context, [ref]: string[], opts: FlagValues<typeof updateFlags>): Promise<number> {
  checkField('oidc.issuer', issuerProblem, opts.issuer);
  const client = await ctx.client();
  const change = new FieldMask()
    .set('name', opts.name)
    .set('description', opts.description)
    .set('oidc.issuer', opts.issuer)
    .set('oidc.clientId', opts.clientId)
    .set('oidc.additionalScopes', opts.scope)
    .set('oidc.groupsClaim', opts.groupsClaim)
    .set('oidc.pkceEnabled', opts.pkce === undefined ? undefined : opts.pkce === 'on');
  checkSomethingToUpdate([...change.mask, ...(opts.defaultRole ? ['defaultRole'] : []), ...(opts.clientSecret ? ['oidc.clientSecret'] : [])], [
    '--name', '--description', '--issuer', '--client-id', '--default-role', '--scope', '--groups-claim', '--pkce', '--client-secret',
  ]);
  if (opts.clientSecret) change.set('oidc.clientSecret', await readClientSecret(ctx));
  if (opts.defaultRole !== undefined) change.set('defaultRole', (await resolveRole(client, opts.defaultRole, '--default-role')).uid);
  const uid = await resolver(ctx).uid(identityProviders, ref!);
  return printResource(ctx, identityProviders.view, await client.update(identityProviders, uid, change.fields, change.mask));
}

// pctl auth token: prints the active token (PCTL_TOKEN, else the profile's) on stdout, for
// `Authorization: Bearer $(pctl auth token)`. Offline; an expired token is refused (exit 4).
import { resolveConnection } from '../../connect.js';
import { checkNotExpired, tokenSourceLabel } from '../../../client/token.js';
import type { Context } from '../../context.js';
import { notLoggedIn } from '../../shared/auth.js';

export async function run(ctx: Context): Promise<number> {
  const { token, profileName } = await resolveConnection(ctx);
  if (!token) {
    throw notLoggedIn(`not logged in: ${profileName ? `profile ${profileName} holds no token` : 'no token is configured'}; run pctl auth login`);
  }
  const fromEnv = Boolean(ctx.env.PCTL_TOKEN);
  checkNotExpired(token, ctx.clock.now().getTime(), tokenSourceLabel(fromEnv, profileName), fromEnv);
  ctx.io.stdout.write(`${token}\n`);
  return 0;
}

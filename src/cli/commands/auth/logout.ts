// pctl auth logout: forgets the token of the profile (--profile, PCTL_PROFILE or the current
// one); the profile and its API URL stay, so `pctl auth login` signs in there again. A
// refresh token (from --identity-token) is revoked at the issuer first, best effort.
import { issuerOfApi } from '../../../client/token.js';
import type { Context } from '../../context.js';
import { NotFoundError } from '../../errors.js';

export async function run(ctx: Context): Promise<number> {
  const store = await ctx.config();
  const explicit = ctx.globals.profile || ctx.env.PCTL_PROFILE || undefined;
  const name = explicit ?? store.currentProfileName();
  const profile = name ? store.profile(name) : undefined;
  if (!name || !profile) {
    if (explicit) throw new NotFoundError(`Profile not found: "${explicit}" (see: pctl config list)`);
    ctx.io.stderr.write('Not logged in: there is no current profile\n');
  } else if (!profile.token) {
    ctx.io.stderr.write(`Profile "${name}" holds no token: already logged out\n`);
  } else {
    if (profile.refreshToken) await revoke(ctx, profile.apiUrl, profile.refreshToken);
    store.setProfile(name, { apiUrl: profile.apiUrl });
    ctx.io.stderr.write(`Logged out: removed the token of profile "${name}" (its API URL ${profile.apiUrl} is kept)\n`);
  }
  if (ctx.env.PCTL_TOKEN) ctx.io.stderr.write('Note: PCTL_TOKEN is still set in this environment and is used as the token\n');
  return 0;
}

/** Revokes the sign-in of a refresh token (serve's POST /sts/revoke_refresh_token); an API without it is told nothing. */
async function revoke(ctx: Context, apiUrl: string, refreshToken: string): Promise<void> {
  const { clientFor } = await import('../../shared/auth.js');
  try {
    await clientFor(ctx, issuerOfApi(apiUrl), refreshToken).request('POST', '/sts/revoke_refresh_token');
  } catch (err) {
    // Offline, or an API without the call: logging out still forgets the tokens.
    ctx.io.stderr.write(`Note: the refresh token was not revoked at ${issuerOfApi(apiUrl)} (${(err as Error).message}); it is removed from the profile\n`);
  }
}

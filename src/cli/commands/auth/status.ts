// pctl auth status: who the active profile (or PCTL_TOKEN) signs in as, where, and until
// when. Never prints the token. Exit 4 when not logged in, expired, or refused by the API.
import { resolveConnection } from '../../connect.js';
import { decodeClaims, expiresAt } from '../../../client/token.js';
import { relativeTime } from '../../../output/time.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { isoSeconds, notLoggedIn, whoAmI } from '../../shared/auth.js';

export interface AuthStatus {
  profile?: string;
  apiUrl: string;
  tokenSource: 'PCTL_TOKEN' | 'profile';
  issuer?: string;
  subject?: string;
  identity?: { uid: string; name: string };
  expireTime?: string;
}

export async function run(ctx: Context): Promise<number> {
  let conn;
  try {
    conn = await resolveConnection(ctx);
  } catch (err) {
    if (err instanceof UsageError && /no API URL configured/.test(err.message)) {
      throw notLoggedIn('not logged in: no profile or API URL is configured; run pctl auth login --api-url URL');
    }
    throw err;
  }
  if (!conn.token) {
    throw notLoggedIn(`not logged in: ${conn.profileName ? `profile ${conn.profileName} holds no token` : 'no token is configured'}; run pctl auth login`);
  }
  // ctx.client() refuses an expired token before sending it (exit 4, "run pctl auth login").
  const client = await ctx.client();
  const who = await whoAmI(ctx, client, conn.token);
  const claims = decodeClaims(conn.token);
  const exp = expiresAt(conn.token);
  const status: AuthStatus = { apiUrl: conn.apiUrl, tokenSource: ctx.env.PCTL_TOKEN ? 'PCTL_TOKEN' : 'profile' };
  if (conn.profileName) status.profile = conn.profileName;
  const issuer = who.iss ?? claims?.iss;
  const subject = who.sub ?? claims?.sub;
  if (issuer) status.issuer = issuer;
  if (subject) status.subject = subject;
  if (who.identity) status.identity = who.identity;
  if (exp !== undefined) status.expireTime = isoSeconds(exp);

  const format = ctx.globals.output;
  if (format === 'json' || format === 'ndjson') {
    ctx.io.stdout.write(`${JSON.stringify(status, null, format === 'json' ? 2 : undefined)}\n`);
    return 0;
  }
  if (format === 'yaml') {
    const YAML = (await import('yaml')).default;
    ctx.io.stdout.write(YAML.stringify(status, { lineWidth: 0 }));
    return 0;
  }
  const now = ctx.clock.now();
  const rows: [string, string][] = [
    ['Profile', status.profile ?? '(none)'],
    ['API URL', status.apiUrl],
    ['Token from', status.tokenSource === 'PCTL_TOKEN' ? 'PCTL_TOKEN' : `profile ${status.profile ?? ''}`.trim()],
    ['Issuer', status.issuer ?? '(unknown)'],
    ['Subject', status.subject ?? '(unknown)'],
    ['Identity', status.identity ? `${status.identity.name} (${status.identity.uid})` : '(unknown)'],
    ['Expires', status.expireTime ? (ctx.io.stdoutIsTTY ? `${status.expireTime} (${relativeTime(status.expireTime, now)})` : status.expireTime) : '(no expiry)'],
  ];
  const width = Math.max(...rows.map(([k]) => k.length)) + 1;
  ctx.io.stdout.write(rows.map(([k, v]) => `${`${k}:`.padEnd(width)} ${v.replace(/[\r\n\t]+/g, ' ')}\n`).join(''));
  return 0;
}

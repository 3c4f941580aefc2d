// `pctl serve token [--identity UID] [--ttl 1h] [--data DIR]`: a token of serve's own issuer
// for one of its identities, the owner by default (so an expired owner token is never a dead
// end). Reads the data dir directly (works whether or not serve runs): access to the data dir
// is the administrator's credential.
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { resolveDataDir, tokenTtlSeconds } from './run.js';

export async function runToken(ctx: Context, opts: { identity?: string; ttl?: string; data?: string }): Promise<number> {
  const { loadSigningKey } = await import('../../../server/auth/tokens.js');
  const ttlSeconds = await tokenTtlSeconds(opts.ttl ?? '1h', 'ttl');
  const dataDir = await resolveDataDir(ctx, opts.data);
  const { existsSync } = await import('node:fs');
  const path = await import('node:path');
  if (!existsSync(path.join(dataDir, 'pctl.db'))) throw new UsageError(`${dataDir} holds no pctl data; start pctl serve on it first`);
  const { Store } = await import('../../../server/store/store.js');
  const { issueIdentityToken } = await import('../../../server/auth/authenticate.js');
  const store = new Store(dataDir);
  try {
    const key = await loadSigningKey(dataDir);
    const identity = opts.identity ?? store.getMeta('owner_identity')!;
    const { token, expiresAt } = await issueIdentityToken(store, key, identity, ttlSeconds, () => ctx.clock.now().getTime());
    ctx.io.stdout.write(`${token}\n`);
    if (ctx.io.stderrIsTTY) ctx.io.stderr.write(`Token for ${opts.identity ?? `the owner (${identity})`}, valid until ${expiresAt}. Use: PCTL_TOKEN=$(pctl serve token …) pctl …\n`);
    return 0;
  } finally {
    await store.close();
  }
}

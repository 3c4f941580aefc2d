// `pctl serve token [--identity REF] [--ttl 1h] [--data DIR]`: a token of serve's own issuer
// for one of its identities, the owner by default (so an expired owner token is never a dead
// end). Reads the data dir directly (works whether or not serve runs): access to the data dir
// is the administrator's credential. --identity takes any reference (uid, name, uid suffix),
// resolved by the one rule (src/api/references.ts) over the data dir's store.
import { ApiError, Code } from '../../../api/errors.js';
import type { Lister } from '../../../api/references.js';
import { identities } from '../../../api/resources.js';
import type { Store } from '../../../server/store/store.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { cliErrors, referencesOver } from '../../shared/resolve.js';
import { resolveDataDir, tokenTtlSeconds } from './run.js';

export interface TokenCommandOptions {
  identity?: string;
  ttl?: string;
  data?: string;
  asIssuer?: string;
  subject?: string;
  audience?: string[];
  claim?: string[];
}

export async function runToken(ctx: Context, opts: TokenCommandOptions): Promise<number> {
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
    if (opts.asIssuer !== undefined) {
      const { issueTestIssuerToken } = await import('../../../server/auth/authenticate.js');
      const request = testIssuerRequest(opts, store.getMeta('issuer') ?? '');
      ctx.io.stdout.write(`${await issueTestIssuerToken(key, { ...request, ttlSeconds, now: ctx.clock.now().getTime() })}\n`);
      return 0;
    }
    if (opts.subject !== undefined || opts.audience?.length || opts.claim?.length) throw new UsageError('--subject, --audience and --claim go with --as-issuer');
    const identity = opts.identity === undefined
      ? store.getMeta('owner_identity')!
      : (await cliErrors(referencesOver(storeLister(store)).resolve(identities, opts.identity, '--identity'))).uid;
    const { token, expiresAt } = await issueIdentityToken(store, key, identity, ttlSeconds, () => ctx.clock.now().getTime());
    ctx.io.stdout.write(`${token}\n`);
    if (ctx.io.stderrIsTTY) ctx.io.stderr.write(`Token for ${opts.identity ?? `the owner (${identity})`}, valid until ${expiresAt}. Use: PCTL_TOKEN=$(pctl serve token …) pctl …\n`);
    return 0;
  } finally {
    await store.close();
  }
}

/**
 * References read from the store as the list endpoint would answer them: every record of the
 * kind, by name when asked. No caller to check: the data dir is the credential.
 */
function storeLister(store: Store): Lister {
  return {
    async *list(d, query, limit) {
      const all = store.allByAltKey(d.storeKind).map(({ uid, name }) => ({ uid, name }));
      yield* (query.name === undefined ? all : all.filter((r) => r.name === query.name)).slice(0, limit);
    },
    get: async (d, uid) => store.get(uid, d.storeKind) ?? Promise.reject(new ApiError(Code.NOT_FOUND, `${d.nouns.one} not found: ${uid}`)),
  };
}

/** Claims a test token may not set with --claim: the ones serve sets, and what marks serve's own exchanged tokens. */
const RESERVED_CLAIMS = new Set(['iss', 'sub', 'aud', 'exp', 'iat', 'nbf', 'jti', 'act', 'rfam', 'cap', 'scopes']);

function testIssuerRequest(opts: TokenCommandOptions, ownIssuer: string): { issuer: string; subject: string; audience: string[]; claims: Record<string, string> } {
  const issuer = opts.asIssuer!;
  const url = URL.parse(issuer);
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) throw UsageError.invalidField('--as-issuer', `must be an issuer URL such as https://token.actions.githubusercontent.com, got "${issuer}"`);
  if (issuer === ownIssuer) throw UsageError.invalidField('--as-issuer', `is this serve's own issuer (${ownIssuer}); use pctl serve token --identity for its identities`);
  if (!opts.subject) throw UsageError.invalidField('--subject', 'is required with --as-issuer');
  const claims: Record<string, string> = {};
  for (const raw of opts.claim ?? []) {
    const eq = raw.indexOf('=');
    const name = raw.slice(0, eq);
    if (eq < 1) throw UsageError.invalidField('--claim', `must be NAME=VALUE, got "${raw}"`);
    if (RESERVED_CLAIMS.has(name)) throw UsageError.invalidField('--claim', `${name} is set by serve (--as-issuer, --subject, --audience, --ttl), not by --claim`);
    claims[name] = raw.slice(eq + 1);
  }
  return { issuer, subject: opts.subject, audience: opts.audience?.length ? opts.audience : [ownIssuer], claims };
}

// The owner's bearer token: random, kept in DIR/owner.token (0600), known to the store
// only by its hash. Losing the file is recoverable: whoever can write the data dir is the
// admin, so a missing file gets a fresh token at the next start.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { unauthenticated } from '../../api/errors.js';
import type { Principal } from '../http.js';
import type { Store } from '../store/store.js';

const hash = (token: string) => createHash('sha256').update(token).digest();

export function ownerTokenPath(dataDir: string): string {
  return join(dataDir, 'owner.token');
}

/** Reads DIR/owner.token, minting a new one when it is missing, and records its hash. */
export function ensureOwnerToken(store: Store, dataDir: string): string {
  const file = ownerTokenPath(dataDir);
  let token = existsSync(file) ? readFileSync(file, 'utf8').trim() : '';
  if (!token) {
    token = `pctl_${randomBytes(32).toString('base64url')}`;
    writeFileSync(file, `${token}\n`, { mode: 0o600 });
  }
  chmodSync(file, 0o600);
  store.setMeta('owner_token_sha256', hash(token).toString('hex'));
  return token;
}

/** Bearer authentication: the owner token is the only valid one until identity-based access lands. */
export function ownerTokenAuthenticator(store: Store): (authorization: string | undefined) => Principal {
  const expected = Buffer.from(store.getMeta('owner_token_sha256') ?? '', 'hex');
  const identityUid = store.getMeta('owner_identity') ?? '';
  return (authorization) => {
    if (!authorization) throw unauthenticated('Missing Authorization header: send "Authorization: Bearer <token>"');
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!m) throw unauthenticated('Malformed Authorization header: expected "Bearer <token>"');
    const got = hash(m[1]!);
    if (expected.length !== got.length || !timingSafeEqual(expected, got)) {
      throw unauthenticated('The bearer token is not valid for this server');
    }
    return { identityUid };
  };
}

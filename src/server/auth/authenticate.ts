// Who is calling: the bearer token must verify (signature, exp, iss, aud) and its iss + sub
// must equal exactly one identity's claimMatch. The owner's token lives in DIR/owner.token.
import { existsSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { ApiError, Code, invalidField, notFound, unauthenticated } from '../../api/errors.js';
import type { Principal } from './principal.js';
import { claimKey, timestamp } from '../store/record.js';
import type { Record_, Store } from '../store/store.js';
import { storageFailure } from '../store/failure.js';
import { mintToken, type SigningKey, type TokenVerifier, type VerifiedToken } from './tokens.js';

/** The owner token's lifetime unless `serve --owner-token-ttl` says otherwise. */
const OWNER_TOKEN_TTL_S = 30 * 24 * 3600;
/** Renewed at start when it has less than this left (or a tenth of its lifetime, if shorter). */
const RENEW_BEFORE_MS = 24 * 3600 * 1000;
/** lastSeenTime is written at most this often per identity (it is a durable write). */
const LAST_SEEN_EVERY_MS = 60_000;

function ownerTokenPath(dataDir: string): string {
  return join(dataDir, 'owner.token');
}

/**
 * The owner's token: kept while it still verifies for long enough, otherwise (first start,
 * new issuer URL, deleted file, near expiry) minted afresh. Whoever can write the data dir is
 * the administrator, so this needs no other credential.
 */
export async function ensureOwnerToken(
  store: Store, dataDir: string, key: SigningKey, verifier: TokenVerifier, issuer: string, clock: () => number,
  ttlSeconds = OWNER_TOKEN_TTL_S,
): Promise<string> {
  const renewBeforeMs = Math.min(RENEW_BEFORE_MS, ttlSeconds * 100);
  const file = ownerTokenPath(dataDir);
  const existing = existsSync(file) ? readFileSync(file, 'utf8').trim() : '';
  if (existing) {
    try {
      const v = await verifier.verify(existing);
      // A token that outlives the configured lifetime (an older, longer one) is replaced too.
      const left = v.exp * 1000 - clock();
      if (v.sub === ownerSubject(store) && left > renewBeforeMs && left <= ttlSeconds * 1000) {
        chmodSync(file, 0o600);
        return existing;
      }
    } catch {
      // re-minted below
    }
  }
  const token = await mintToken(key, { issuer, subject: ownerSubject(store), ttlSeconds, now: clock() });
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return token;
}

function ownerSubject(store: Store): string {
  const owner = store.get(store.getMeta('owner_identity') ?? '', 'identity');
  return owner?.data.claimMatch.subject ?? 'owner';
}

/**
 * The bearer check of every request: the caller's Principal. `touch` records that an identity
 * was seen (its lastSeenTime: a durable write, made at most once a minute per identity).
 */
export function bearerAuthenticator(
  store: Store, verifier: TokenVerifier, clock: () => number, touch: (identityUid: string, at: number) => Promise<void>,
  /** The principal of a token the exchange minted (sts.ts), undefined for any other. */
  exchanged: (token: VerifiedToken) => Principal | undefined = () => undefined,
) {
  const lastSeenWritten = new Map<string, number>();
  // Every request looks its caller up; the answer only changes when an identity is written.
  const lookups = new Map<string, { version: string; matches: Record_[] }>();
  const identitiesMatching = (key: string): Record_[] => {
    const version = store.versionOf(['identity']);
    const hit = lookups.get(key);
    if (hit && hit.version === version) return hit.matches;
    const matches = store.findByAltKey('identity', key);
    if (lookups.size > 10_000) lookups.clear();
    lookups.set(key, { version, matches });
    return matches;
  };
  // A token seen before, whose identity needs no lastSeenTime write, is answered at once
  // (a Principal, not a promise: each await costs a request a turn of the event loop).
  return (authorization: string | undefined): Principal | Promise<Principal> => {
    if (!authorization) throw unauthenticated('Missing Authorization header: send "Authorization: Bearer <token>"');
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!m) throw unauthenticated('Malformed Authorization header: expected "Bearer <token>"');
    const known = verifier.verified(m[1]!);
    return known ? principalOf(known) : verifier.verify(m[1]!).then(principalOf);
  };

  function principalOf(token: VerifiedToken): Principal | Promise<Principal> {
    const { iss, sub, email, claims } = token;
    let principal = exchanged(token);
    if (!principal) {
      const matches = identitiesMatching(claimKey(iss, sub));
      if (matches.length !== 1) {
        throw unauthenticated(`No identity matches this token (issuer ${JSON.stringify(iss)}, subject ${JSON.stringify(sub)}); create one whose claimMatch equals them exactly, or exchange the token at /sts/exchange`);
      }
      const uid = matches[0]!.uid;
      principal = email === undefined ? { identityUid: uid, claims } : { identityUid: uid, email, claims };
    }
    const { identityUid } = principal;
    const now = clock();
    if (now - (lastSeenWritten.get(identityUid) ?? 0) < LAST_SEEN_EVERY_MS) return principal;
    lastSeenWritten.set(identityUid, now);
    const seen = principal;
    // Best effort: a full disk (or an unreachable database) must not turn a read into a 503;
    // the next request after a minute tries again.
    return touch(identityUid, now).then(() => seen, (err: unknown) => {
      if (!storageFailure(err) && !(err instanceof ApiError && err.code === Code.UNAVAILABLE)) throw err;
      return seen;
    });
  }
}

/**
 * A token for an identity that names serve's own issuer (`pctl serve token`). The caller
 * proves nothing beyond access to the data dir, which is the administrator's credential.
 */
export async function issueIdentityToken(
  store: Store, key: SigningKey, identityUid: string, ttlSeconds: number, clock: () => number,
): Promise<{ token: string; expiresAt: string }> {
  const identity = store.get(identityUid, 'identity');
  if (!identity) throw notFound('Identity', identityUid);
  const issuer = store.getMeta('issuer') ?? '';
  const claim = identity.data.claimMatch;
  if (claim.issuer !== issuer) {
    throw invalidField('identity', `its claimMatch.issuer is ${claim.issuer}, not this server's issuer ${issuer}; only identities of this issuer can get tokens here`);
  }
  const now = clock();
  const token = await mintToken(key, { issuer, subject: claim.subject ?? '', ttlSeconds, now });
  return { token, expiresAt: timestamp(now + ttlSeconds * 1000) };
}

/**
 * `pctl serve token --as-issuer`: a workload identity token as a CI provider would issue it,
 * signed with serve's key. Only a serve started with --trust-test-issuers exchanges it.
 */
export function issueTestIssuerToken(
  key: SigningKey, req: { issuer: string; subject: string; audience: string[]; claims: Record<string, string>; ttlSeconds: number; now: number },
): Promise<string> {
  return mintToken(key, {
    issuer: req.issuer, subject: req.subject, ttlSeconds: req.ttlSeconds, now: req.now,
    audience: req.audience.length === 1 ? req.audience[0]! : req.audience, extraClaims: req.claims,
  });
}

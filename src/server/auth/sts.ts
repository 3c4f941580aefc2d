// The token exchange (the vendor's SecurityTokenService): an identity token from any issuer an
// identity names becomes serve's own token for that identity, for an audience serve answers
// for, narrowed on request; with a refresh token that rotates on each use. REST (routes/sts.ts)
// and gRPC call the same operations.
//
// Which identity: `identity=UID` assumes that one when its claimMatch accepts the token.
// Without it, the identities whose claimMatch accepts the token are found: one naming issuer
// and subject exactly beats those matching by pattern; two of the same kind are ambiguous
// (INVALID_ARGUMENT: pass identity=UID).
//
// Refresh tokens live in memory: a restart signs every refreshing client out (as it drops
// sign-ins in progress). Each use hands out a new one; a used one presented again means it
// leaked, and the whole family (every refresh token and access token descended from the
// exchange) is revoked.
import { ApiError, Code, unauthenticated } from '../../api/errors.js';
import { CAPABILITIES } from '../../api/capabilities.js';
import type { Random } from '../base/random.js';
import type { Record_, Store } from '../store/store.js';
import { claimKey, timestamp } from '../store/record.js';
import { acceptsIssuer, claimMismatch, type ClaimMatch } from './claim-match.js';
import type { Narrowing, Principal } from './principal.js';
import { mintToken, type SigningKey, type TokenVerifier, type VerifiedToken } from './tokens.js';

/** An exchanged token's lifetime (the vendor's is an hour too). */
const EXCHANGED_TOKEN_TTL_S = 3600;
/** A refresh token's lifetime; each refresh gives a new one, as long again. */
const REFRESH_TOKEN_TTL_S = 7 * 24 * 3600;
/** Bounds what callers can make serve remember. */
const MAX_REFRESH_TOKENS = 100_000;

/** The published ExchangeRequest, as both surfaces parse it. */
export interface ExchangeRequest {
  aud: string[];
  identity: string;
  cap: string[];
  scopes: string[];
  /** The deprecated single scope, taken as one more of `scopes`. */
  scope?: string;
  identityProvider?: string;
}

/** The published RawToken; expiry as RFC 3339 (proto JSON's Timestamp). */
export interface RawToken {
  token: string;
  refreshToken?: string;
  expiry: string;
}

/** What an access token and its refresh tokens were granted: what a refresh may narrow further, never widen. */
interface Grant {
  identityUid: string;
  aud: string[];
  caps?: string[];
  scopes?: string[];
  /** The token exchanged (its iss, sub, aud): the minted token's act claim. */
  act: { iss: string; sub: string; aud: string };
}

interface RefreshEntry {
  family: string;
  grant: Grant;
  expiresAt: number;
  used: boolean;
}

export interface StsOptions {
  store: Store;
  key: SigningKey;
  verifier: TokenVerifier;
  issuer: () => string;
  clock: () => number;
  random: Random;
}

const invalid = (message: string) => new ApiError(Code.INVALID_ARGUMENT, message);
const denied = (message: string) => new ApiError(Code.PERMISSION_DENIED, message);

export type SecurityTokenService = ReturnType<typeof securityTokenService>;

export function securityTokenService(opts: StsOptions) {
  const { store, verifier } = opts;
  const refreshTokens = new Map<string, RefreshEntry>();
  // A revoked family is remembered as long as any token of it could still be valid.
  const revokedFamilies = new Map<string, number>();
  const revoke = (family: string) => revokedFamilies.set(family, opts.clock() + REFRESH_TOKEN_TTL_S * 1000);
  const isRevoked = (family: string) => (revokedFamilies.get(family) ?? 0) > opts.clock();
  // The identities matching by pattern: not found by index, so all looked at (cached until an identity is written).
  let patterned: { version: string; records: Record_<'identity'>[] } | undefined;

  const patternIdentities = (): Record_<'identity'>[] => {
    const version = store.versionOf(['identity']);
    if (patterned?.version !== version) patterned = { version, records: store.allByAltKey('identity').filter((r) => r.altKey === null) };
    return patterned.records;
  };
  const claimOf = (r: Record_<'identity'>): ClaimMatch => r.data.claimMatch;

  /** Issuers whose keys may be fetched: those an identity names, exactly or by pattern. */
  const fetchable = (issuer: string): boolean =>
    store.findByAltKeyFirstPart('identity', issuer, 1).length > 0 || patternIdentities().some((r) => acceptsIssuer(claimOf(r), issuer));

  const identityFor = (token: VerifiedToken, uid: string): Record_ => {
    const audiences = verifier.audiences();
    if (uid) {
      const identity = store.get(uid, 'identity');
      // Told to a holder of a verified token only: why, so that a CI setup can be fixed.
      const why = identity ? claimMismatch(claimOf(identity), token, audiences) : 'no such identity';
      if (why) throw denied(`The identity ${uid} does not accept this token: ${why}`);
      return identity!;
    }
    const exact = store.findByAltKey('identity', claimKey(token.iss, token.sub)).filter((r) => !claimMismatch(claimOf(r), token, audiences));
    const candidates = exact.length ? exact : patternIdentities().filter((r) => !claimMismatch(claimOf(r), token, audiences));
    if (candidates.length > 1) {
      throw invalid(`${candidates.length} identities match this token by pattern (${candidates.slice(0, 3).map((r) => r.uid).join(', ')}${candidates.length > 3 ? ', …' : ''}); pass identity=UID to choose one`);
    }
    if (!candidates.length) {
      throw denied(`No identity accepts this token (issuer ${JSON.stringify(token.iss)}, subject ${JSON.stringify(token.sub)}); create one whose claimMatch matches it, or pass identity=UID to see why one does not`);
    }
    return candidates[0]!;
  };

  /** The requested audiences: each one serve answers for; none asks for serve's issuer URL. */
  const audiencesOf = (requested: string[]): string[] => {
    const own = verifier.audiences();
    const aud = requested.flatMap((a) => a.split(',')).map((a) => a.trim()).filter(Boolean);
    for (const a of aud) {
      if (!own.has(a)) throw invalid(`aud ${JSON.stringify(a)} is not an audience this server answers for (${[...own].join(', ')})`);
    }
    return aud.length ? [...new Set(aud)] : [opts.issuer()];
  };

  /** cap and scopes as asked, checked; within `outer` (a refresh's grant) when given. */
  const narrowing = (req: { cap: string[]; scopes: string[]; scope?: string }, outer?: Grant): Pick<Grant, 'caps' | 'scopes'> => {
    const caps = [...new Set(req.cap.filter(Boolean))];
    for (const c of caps) {
      if (!CAPABILITIES.includes(c)) throw invalid(`cap ${JSON.stringify(c)} is not a capability (e.g. ${CAPABILITIES[0]})`);
      if (outer?.caps && !outer.caps.includes(c)) throw denied(`cap ${c} was not granted to the token being refreshed`);
    }
    const scopes = [...new Set([...req.scopes, ...(req.scope ? [req.scope] : [])].filter(Boolean))];
    for (const s of scopes) {
      if (!store.get(s, 'group')) throw invalid(`scopes: ${JSON.stringify(s)} is not the uid of a group`);
      if (outer?.scopes && !outer.scopes.some((o) => s === o || s.startsWith(`${o}/`))) throw denied(`scope ${s} is outside the scopes of the token being refreshed`);
    }
    return {
      ...(caps.length ? { caps } : outer?.caps ? { caps: outer.caps } : {}),
      ...(scopes.length ? { scopes } : outer?.scopes ? { scopes: outer.scopes } : {}),
    };
  };

  const mint = async (grant: Grant, family: string): Promise<{ access: RawToken; refresh: RawToken }> => {
    const now = opts.clock();
    const token = await mintToken(opts.key, {
      issuer: opts.issuer(), subject: grant.identityUid, ttlSeconds: EXCHANGED_TOKEN_TTL_S, now,
      audience: grant.aud.length === 1 ? grant.aud[0]! : grant.aud,
      extraClaims: { act: grant.act, rfam: family, ...(grant.caps ? { cap: grant.caps } : {}), ...(grant.scopes ? { scopes: grant.scopes } : {}) },
    });
    const refreshExp = Math.floor(now / 1000) + REFRESH_TOKEN_TTL_S;
    // What the vendor's clients read of a refresh token: base64 JSON with exp (ExtractRefreshExpiry).
    const id = opts.random.bytes(32).toString('base64url');
    const refreshToken = Buffer.from(JSON.stringify({ exp: refreshExp, id })).toString('base64');
    if (refreshTokens.size >= MAX_REFRESH_TOKENS) prune(now);
    if (refreshTokens.size >= MAX_REFRESH_TOKENS) throw new ApiError(Code.RESOURCE_EXHAUSTED, 'Too many refresh tokens are outstanding; try again later');
    refreshTokens.set(id, { family, grant, expiresAt: refreshExp * 1000, used: false });
    const expiry = timestamp(now + EXCHANGED_TOKEN_TTL_S * 1000);
    return { access: { token, refreshToken, expiry }, refresh: { token: refreshToken, expiry: timestamp(refreshExp * 1000) } };
  };

  const prune = (now: number) => {
    for (const [id, e] of refreshTokens) if (e.expiresAt <= now) refreshTokens.delete(id);
    for (const [family, until] of revokedFamilies) if (until <= now) revokedFamilies.delete(family);
  };

  const bearerOf = (authorization: string | undefined): string => {
    if (!authorization) throw unauthenticated('Missing Authorization header: send "Authorization: Bearer <token>"');
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!m) throw unauthenticated('Malformed Authorization header: expected "Bearer <token>"');
    return m[1]!;
  };

  /** The refresh token's entry, spent; a reused one revokes its family. */
  const spend = (refreshToken: string): RefreshEntry => {
    let id = '';
    try {
      const parsed = (JSON.parse(Buffer.from(refreshToken, 'base64').toString('utf8')) as { id?: unknown }).id;
      if (typeof parsed === 'string') id = parsed;
    } catch {
      // unknown below
    }
    const entry = refreshTokens.get(id);
    if (!entry) throw unauthenticated('The refresh token is unknown (serve forgets refresh tokens when it restarts); exchange an identity token or sign in again');
    if (entry.used) {
      revoke(entry.family);
      throw unauthenticated('The refresh token was already used: it has leaked, so every token of its sign-in is now revoked; sign in again');
    }
    if (isRevoked(entry.family)) throw unauthenticated('The refresh token was revoked; sign in again');
    if (entry.expiresAt <= opts.clock()) throw unauthenticated('The refresh token has expired; sign in again');
    entry.used = true;
    return entry;
  };

  return {
    /** Exchange: the bearer (an identity token) for a token of serve's own. */
    async exchange(authorization: string | undefined, req: ExchangeRequest): Promise<RawToken> {
      const token = await verifier.verifyIdentityToken(bearerOf(authorization), { fetchable });
      if (req.identityProvider) throw invalid('identity_provider: serve signs in no one through an identity provider; omit it');
      const aud = audiencesOf(req.aud);
      const identity = identityFor(token, req.identity.trim());
      const grant: Grant = {
        identityUid: identity.uid, aud, ...narrowing(req),
        act: { iss: token.iss, sub: token.sub, aud: token.aud.join(',') },
      };
      return (await mint(grant, opts.random.bytes(16).toString('base64url'))).access;
    },

    /** ExchangeRefreshToken: the bearer (a refresh token) for a new access token and a new refresh token. */
    async refresh(authorization: string | undefined, req: Omit<ExchangeRequest, 'identity'>): Promise<{ token: RawToken; refreshToken: RawToken }> {
      const entry = spend(bearerOf(authorization));
      if (!store.get(entry.grant.identityUid, 'identity')) throw unauthenticated('The identity of this refresh token no longer exists');
      const aud = req.aud.length ? audiencesOf(req.aud) : entry.grant.aud;
      const grant: Grant = { ...entry.grant, aud, ...narrowing(req, entry.grant) };
      const { access, refresh } = await mint(grant, entry.family);
      return { token: { token: access.token, expiry: access.expiry }, refreshToken: refresh };
    },

    /** What `aud` asks for, checked (each one serve answers for; none: serve's issuer URL). */
    audiences: (requested: string[]): string[] => audiencesOf(requested),

    /**
     * A browser sign-in's tokens (the vendor's `/oauth?exit=redirect`): for an identity of
     * serve's own issuer the operator picked, after proving the owner token.
     */
    async signIn(identityUid: string, aud: string[]): Promise<RawToken> {
      const identity = store.get(identityUid, 'identity');
      if (!identity) throw unauthenticated('The identity signed in as no longer exists');
      const act = { iss: opts.issuer(), sub: String(claimOf(identity).subject ?? ''), aud: 'browser sign-in' };
      return (await mint({ identityUid, aud: audiencesOf(aud), act }, opts.random.bytes(16).toString('base64url'))).access;
    },

    /** Revokes the refresh token's family (its sign-in): every refresh token and access token of it. */
    revoke(authorization: string | undefined): void {
      revoke(spend(bearerOf(authorization)).family);
    },

    /**
     * The principal of an exchanged token (its sub is the identity's uid, its act the token
     * exchanged), or undefined for any other token.
     */
    principalOf: (token: VerifiedToken): Principal | undefined => {
      const { act, rfam, cap, scopes } = token.claims;
      if (act === undefined || token.iss !== opts.issuer()) return undefined;
      if (rfam !== undefined && isRevoked(rfam)) throw unauthenticated('This token was revoked (its refresh token was reused or revoked); sign in again');
      if (!store.get(token.sub, 'identity')) throw unauthenticated(`The identity of this token (${token.sub}) no longer exists`);
      const narrowed = narrowingOf(cap, scopes);
      return { identityUid: token.sub, ...(token.email === undefined ? {} : { email: token.email }), claims: token.claims, ...(narrowed ? { narrowed } : {}) };
    },

    /** Drops every refresh token (a restore or reset of the data). */
    forget(): void {
      refreshTokens.clear();
      revokedFamilies.clear();
    },
  };
}

/** The cap and scopes claims (JSON text, as VerifiedToken.claims holds them) as a Narrowing. */
function narrowingOf(cap: string | undefined, scopes: string | undefined): Narrowing | undefined {
  if (cap === undefined && scopes === undefined) return undefined;
  const caps = cap === undefined ? undefined : new Set(JSON.parse(cap) as string[]);
  const groups = scopes === undefined ? undefined : (JSON.parse(scopes) as string[]);
  return { ...(caps ? { caps } : {}), ...(groups ? { scopes: groups } : {}), key: `${cap ?? ''}|${scopes ?? ''}` };
}

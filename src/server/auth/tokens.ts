// Serve as an OIDC token issuer: an ES256 key kept in the data dir (0600), JWTs minted
// for identities, and the verification of every request's bearer token.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import {
  SignJWT, jwtVerify, generateKeyPair, exportJWK, importJWK, createLocalJWKSet, decodeProtectedHeader,
  errors as joseErrors, type JWK, type JWTPayload, type CryptoKey,
} from 'jose';
import { ApiError, unauthenticated } from '../../api/errors.js';

/** The audience of the tokens serve issues for itself (`pctl serve token`, sign-ins); one of those it answers for. */
export const AUDIENCE = 'pctl';
export const ALGORITHM = 'ES256';
const TRUSTED_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  publicJwk: JWK;
}

function signingKeyPath(dataDir: string): string {
  return join(dataDir, 'signing-key.jwk');
}

/** Loads DIR/signing-key.jwk, generating it on first use. */
export async function loadSigningKey(dataDir: string): Promise<SigningKey> {
  const file = signingKeyPath(dataDir);
  let jwk: JWK;
  if (existsSync(file)) {
    jwk = JSON.parse(readFileSync(file, 'utf8')) as JWK;
  } else {
    jwk = await newSigningJwk();
    writeFileSync(file, JSON.stringify(jwk), { mode: 0o600 });
  }
  chmodSync(file, 0o600);
  return importSigningKey(jwk);
}

/** A new ES256 private key as a JWK, with its kid. */
export async function newSigningJwk(): Promise<JWK> {
  const { privateKey } = await generateKeyPair(ALGORITHM, { extractable: true });
  const jwk = await exportJWK(privateKey);
  jwk.kid = createHash('sha256').update(`${jwk.x}.${jwk.y}`).digest('base64url').slice(0, 16);
  jwk.alg = ALGORITHM;
  jwk.use = 'sig';
  return jwk;
}

export async function importSigningKey(jwk: JWK): Promise<SigningKey> {
  const { d: _private, ...publicJwk } = jwk;
  const privateKey = (await importJWK(jwk, ALGORITHM)) as CryptoKey;
  const publicKey = (await importJWK(publicJwk, ALGORITHM)) as CryptoKey;
  return { kid: jwk.kid!, privateKey, publicKey, publicJwk };
}

export interface MintOptions {
  issuer: string;
  subject: string;
  ttlSeconds: number;
  now: number;
  extraClaims?: Record<string, unknown>;
  /** Default AUDIENCE: a token for serve itself. */
  audience?: string | string[];
}

export async function mintToken(key: SigningKey, opts: MintOptions): Promise<string> {
  const iat = Math.floor(opts.now / 1000);
  return new SignJWT({ ...opts.extraClaims })
    .setProtectedHeader({ alg: ALGORITHM, kid: key.kid, typ: 'JWT' })
    .setIssuer(opts.issuer)
    .setSubject(opts.subject)
    .setAudience(opts.audience ?? AUDIENCE)
    .setIssuedAt(iat)
    .setExpirationTime(iat + opts.ttlSeconds)
    .sign(key.privateKey);
}

/** The longest lifetime (exp - iat) of a token serve accepts, its own or a trusted issuer's. */
export const MAX_TOKEN_TTL_S = 90 * 24 * 3600;
/** How far ahead of serve's clock a token's iat may be (clock skew between machines). */
const MAX_CLOCK_SKEW_S = 5 * 60;
/** How long past its exp another issuer's token is still taken (its clock and ours differ); serve's own get none. */
const OTHER_ISSUER_EXPIRY_SKEW_S = 60;

/** "1h", "30m", "7d", "3600" → seconds. */
export function parseTtl(raw: string): number | undefined {
  const m = /^(\d+)\s*([smhd]?)$/.exec(raw.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  const unit = { '': 1, s: 1, m: 60, h: 3600, d: 86400 }[m[2] as '' | 's' | 'm' | 'h' | 'd'];
  return n > 0 ? n * unit : undefined;
}

/** A checked token: issuer, subject, expiry, and the email claim when it has one (invites may require it). */
export interface VerifiedToken {
  iss: string;
  sub: string;
  exp: number;
  /** The aud claim, as a list. */
  aud: string[];
  email?: string;
  /** Every claim of the token, as text (what change events carry as actor.act). */
  claims: Readonly<Record<string, string>>;
}

/** Where the keys of an issuer serve does not hold offline come from (issuers.ts). */
export interface IssuerKeySource {
  /** The issuer's JWKS as a key resolver; `refresh` asks for a fresh one (a kid it did not know). */
  keys(issuer: string, refresh: boolean): Promise<ReturnType<typeof createLocalJWKSet>>;
}

/** What a token may be checked against besides serve's own issuer and the offline trusted ones. */
export interface IdentityTokenSources {
  /** Issuers whose keys may be fetched (discovery + JWKS): the ones some identity names. */
  fetchable: (issuer: string) => boolean;
}

/**
 * Verifies tokens: serve's own (its current key and issuer URL), those of issuers trusted
 * offline with a JWKS file and, for the token exchange only, those of issuers fetched through
 * discovery, and with `--trust-test-issuers` tokens of any issuer signed by serve's own key
 * (`pctl serve token --as-issuer`). A bearer token of the API must name an audience serve
 * answers for; results are cached by token until expiry: a client sends the same token on
 * every request, and checking its signature costs more than the request.
 */
export class TokenVerifier {
  private cache = new Map<string, VerifiedToken>();
  private trusted = new Map<string, ReturnType<typeof createLocalJWKSet>>();
  /** `--trust-test-issuers`: serve's own key stands for any issuer's (tests only). */
  trustTestIssuers = false;
  remote: IssuerKeySource | undefined;

  constructor(
    private readonly key: SigningKey,
    private issuer: () => string,
    private readonly clock: () => number,
    /** The audiences serve answers for (`pctl`, its URLs, `--audience`). */
    readonly audiences: () => ReadonlySet<string> = () => new Set([AUDIENCE]),
  ) {}

  trustIssuer(issuer: string, jwks: { keys: JWK[] }): void {
    this.trusted.set(issuer, createLocalJWKSet(jwks));
  }

  /** The token as checked before, while still valid; undefined when it must be (or was never) checked: verify(). */
  verified(token: string): VerifiedToken | undefined {
    const cached = this.cache.get(token);
    return cached && cached.exp * 1000 > this.clock() && cached.iss === this.issuerFor(cached.iss) ? cached : undefined;
  }

  /** A bearer token of the API: serve's own or an offline-trusted issuer's, for an audience serve answers for. */
  async verify(token: string): Promise<VerifiedToken> {
    const cached = this.verified(token);
    if (cached) return cached;
    const verified = await this.check(token, undefined);
    const audiences = this.audiences();
    if (!verified.aud.some((a) => audiences.has(a))) {
      throw unauthenticated(`The bearer token's audience ${JSON.stringify(verified.aud.join(','))} is not one this server answers for (${[...audiences].join(', ')})`);
    }
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(token, verified);
    return verified;
  }

  /**
   * An identity token presented to the token exchange: any issuer an identity names, its
   * audience left to the identity's claimMatch (the exchange checks it).
   */
  verifyIdentityToken(token: string, sources: IdentityTokenSources): Promise<VerifiedToken> {
    return this.check(token, sources);
  }

  private async check(token: string, sources: IdentityTokenSources | undefined): Promise<VerifiedToken> {
    const now = this.clock();
    const parts = token.split('.');
    if (parts.length !== 3) throw unauthenticated('The bearer token is not a JWT (expected header.payload.signature)');
    let header: ReturnType<typeof decodeProtectedHeader>;
    let claims: JWTPayload;
    try {
      header = decodeProtectedHeader(token);
      claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as JWTPayload;
    } catch {
      throw unauthenticated('The bearer token is malformed (its header or payload is not base64url JSON)');
    }
    const iss = typeof claims.iss === 'string' ? claims.iss : '';
    const own = iss === this.issuer();
    // A test issuer's token is signed with serve's key (pctl serve token --as-issuer): known by its kid.
    const test = !own && sources !== undefined && this.trustTestIssuers && header.kid === this.key.kid;
    const offline = this.trusted.get(iss);
    const fetched = !own && !test && !offline && sources?.fetchable(iss) && this.remote ? this.remote : undefined;
    // Serve signs with ES256; other issuers (CI providers) commonly use RS256. Never none or HMAC.
    const algorithms = own || test || !(offline || fetched) ? [ALGORITHM] : TRUSTED_ALGORITHMS;
    if (!algorithms.includes(String(header.alg))) {
      throw unauthenticated(`The bearer token's algorithm ${String(header.alg)} is not accepted (only ${algorithms.join(', ')})`);
    }
    if (!own && !test && !offline && !fetched) {
      throw unauthenticated(`The bearer token's issuer ${JSON.stringify(iss)} is not trusted by this server (its issuer is ${this.issuer()}${sources ? '; no identity names that issuer' : ''})`);
    }
    if ((own || test) && header.kid !== this.key.kid) throw unauthenticated('The bearer token was signed with an unknown key');

    let payload: JWTPayload;
    const opts = { issuer: iss, algorithms, currentDate: new Date(now), clockTolerance: own ? 0 : OTHER_ISSUER_EXPIRY_SKEW_S, requiredClaims: ['sub', 'exp'] };
    try {
      if (own || test) ({ payload } = await jwtVerify(token, this.key.publicKey, opts));
      else if (offline) ({ payload } = await jwtVerify(token, offline, opts));
      else ({ payload } = await verifyFetched(token, iss, fetched!, opts));
    } catch (err) {
      if (err instanceof ApiError) throw err;
      throw unauthenticated(describeJoseError(err));
    }
    const aud = typeof payload.aud === 'string' ? [payload.aud] : Array.isArray(payload.aud) ? payload.aud.filter((a) => typeof a === 'string') : [];
    const verified: VerifiedToken = { iss, sub: checkedClaims(payload, now), exp: payload.exp!, aud, claims: claimsAsText(payload) };
    if (typeof payload.email === 'string') verified.email = payload.email;
    return verified;
  }

  private issuerFor(iss: string): string {
    return iss === this.issuer() || this.trusted.has(iss) ? iss : '';
  }
}

/** A fetched issuer's token; a kid its cached JWKS does not hold fetches the JWKS again (key rotation). */
async function verifyFetched(token: string, iss: string, remote: IssuerKeySource, opts: Parameters<typeof jwtVerify>[2]) {
  try {
    return await jwtVerify(token, await remote.keys(iss, false), opts);
  } catch (err) {
    if (!(err instanceof joseErrors.JWKSNoMatchingKey)) throw err;
    return await jwtVerify(token, await remote.keys(iss, true), opts);
  }
}

/**
 * What jose leaves to us, for any signer (one whose key leaked or misbehaves included): the
 * subject is a non-empty string; iat, when present, is a number not in the future (beyond
 * the skew); the lifetime is at most MAX_TOKEN_TTL_S. Returns the subject.
 */
function checkedClaims(payload: JWTPayload, now: number): string {
  const { sub, exp, iat } = payload;
  if (typeof sub !== 'string' || !sub) throw unauthenticated("The bearer token's sub claim is not a non-empty string");
  const nowS = now / 1000;
  if (iat !== undefined && (typeof iat !== 'number' || !Number.isFinite(iat))) throw unauthenticated("The bearer token's iat claim is not a number");
  if (iat !== undefined && iat > nowS + MAX_CLOCK_SKEW_S) throw unauthenticated('The bearer token is not valid yet (issued in the future)');
  if (typeof exp !== 'number' || exp - (iat ?? nowS) > MAX_TOKEN_TTL_S || exp - nowS > MAX_TOKEN_TTL_S) {
    throw unauthenticated(`The bearer token lives longer than this server accepts (${MAX_TOKEN_TTL_S / 86400} days at most)`);
  }
  return sub;
}

/**
 * The claims as a map of string to string (the shape of an event's actor.act): a string claim
 * as it is, any other value (aud as a list, iat, exp, booleans, objects) as its JSON text. Only
 * the signed payload: never the token, its signature or its header.
 */
function claimsAsText(payload: JWTPayload): Record<string, string> {
  return Object.fromEntries(Object.entries(payload).map(([name, value]) => [name, typeof value === 'string' ? value : JSON.stringify(value)]));
}

function describeJoseError(err: unknown): string {
  if (err instanceof joseErrors.JWTExpired) return 'The bearer token has expired; get a new one (pctl auth login, or pctl serve token)';
  if (err instanceof joseErrors.JWTClaimValidationFailed) {
    if (err.claim === 'nbf' || err.claim === 'iat') return 'The bearer token is not valid yet';
    return `The bearer token's ${err.claim} claim is not valid (${err.reason})`;
  }
  if (err instanceof joseErrors.JWSSignatureVerificationFailed) return 'The bearer token signature is not valid';
  if (err instanceof joseErrors.JWKSNoMatchingKey) return 'The bearer token was signed with an unknown key';
  return 'The bearer token is not valid';
}

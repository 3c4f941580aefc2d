// What the CLI can tell about a bearer token without asking anyone: its JWT claims
// (decoded, not verified: the server verifies) and whether it has expired. Every command
// gets the expiry check through connect(), so an expired token fails before any request
// with a hint to sign in again, rather than as a bare 401.
import { ApiError, Code } from '../api/errors.js';

export interface TokenClaims {
  iss?: string;
  sub?: string;
  aud?: string | string[];
  exp?: number;
  iat?: number;
  name?: string;
}

/** The payload of a JWT, or undefined when the token is not one (an opaque token). */
export function decodeClaims(token: string): TokenClaims | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as unknown;
    return claims && typeof claims === 'object' && !Array.isArray(claims) ? (claims) : undefined;
  } catch {
    return undefined;
  }
}

/** When the token expires (ms since the epoch), if it says. */
export function expiresAt(token: string): number | undefined {
  const exp = decodeClaims(token)?.exp;
  return typeof exp === 'number' && Number.isFinite(exp) ? exp * 1000 : undefined;
}

/** Where a token came from, for messages: the env variable or a named profile. */
export function tokenSourceLabel(fromEnv: boolean, profileName: string | undefined): string {
  if (fromEnv) return 'the token in PCTL_TOKEN';
  return profileName ? `the token for profile ${profileName}` : 'the token';
}

function expiredTokenError(source: string, fromEnv: boolean, expiredAt?: number): ApiError {
  const when = expiredAt !== undefined ? ` at ${new Date(expiredAt).toISOString().replace(/\.\d{3}Z$/, 'Z')}` : '';
  const hint = fromEnv ? 'get a new one, or unset PCTL_TOKEN and run pctl auth login' : 'run pctl auth login';
  return new ApiError(Code.UNAUTHENTICATED, `${source} expired${when}; ${hint}`, { reason: 'TOKEN_EXPIRED', httpStatus: 401 });
}

/** Throws the "run pctl auth login" error when the token's exp has passed. */
export function checkNotExpired(token: string, now: number, source: string, fromEnv: boolean): void {
  const exp = expiresAt(token);
  if (exp !== undefined && exp <= now) throw expiredTokenError(source, fromEnv, exp);
}

/** A 401 from the server that says the token expired becomes the same clear error. */
export function mapExpired(err: ApiError, source: string, fromEnv: boolean, token: string | undefined, now: number): ApiError {
  if (err.code === Code.UNAUTHENTICATED && /expired/i.test(err.message)) {
    // The server's clock may be ahead of ours: only name the time when it has passed here too.
    const exp = token ? expiresAt(token) : undefined;
    return expiredTokenError(source, fromEnv, exp !== undefined && exp <= now ? exp : undefined);
  }
  return err;
}

/** A saved token is refreshed (with its refresh token) when it has less than this left. */
const REFRESH_BEFORE_MS = 5 * 60_000;

/** Whether a token expires within REFRESH_BEFORE_MS (or has expired). */
export function nearsExpiry(token: string, now: number): boolean {
  const exp = expiresAt(token);
  return exp !== undefined && exp - now < REFRESH_BEFORE_MS;
}

/**
 * The token issuer of an API, as the vendor's Terraform provider derives it: `console-api`
 * in the host becomes `issuer`; an API URL without it (serve's) is its own issuer.
 */
export function issuerOfApi(apiUrl: string): string {
  return apiUrl.replace('console-api', 'issuer').replace(/\/+$/, '');
}

/** What signing in with the token exchange saves: the token, and a refresh token when one came. */
export interface TokenPair {
  token: string;
  refreshToken?: string;
}

/** What the exchange needs of an API client: a request whose failures are AIP-193 ApiErrors. */
interface Requester {
  request(method: string, path: string, opts?: { query?: readonly (readonly [string, string])[] }): Promise<unknown>;
}

/** A proto JSON field, by its JSON name or its proto name (gateways send either). */
function field(json: unknown, jsonName: string, protoName: string): unknown {
  if (!json || typeof json !== 'object') return undefined;
  const o = json as Record<string, unknown>;
  return o[jsonName] ?? o[protoName];
}

function pairOf(token: unknown, refreshToken: unknown): TokenPair {
  if (typeof token !== 'string' || !token) throw new ApiError(Code.UNKNOWN, 'the token exchange answered no token');
  return typeof refreshToken === 'string' && refreshToken ? { token, refreshToken } : { token };
}

/**
 * The token exchange (the vendor's SecurityTokenService/Exchange over REST): `issuer` sends
 * the identity token as its bearer; the fields go in the query, which every gateway of the
 * published contract reads (its rule has no body). Answers the published RawToken.
 */
export async function exchangeIdentityToken(issuer: Requester, audience: string, identity?: string): Promise<TokenPair> {
  const query: [string, string][] = [['aud', audience]];
  if (identity) query.push(['identity', identity]);
  const raw = await issuer.request('POST', '/sts/exchange', { query });
  return pairOf(field(raw, 'token', 'token'), field(raw, 'refreshToken', 'refresh_token'));
}

/** ExchangeRefreshToken: `issuer` sends the refresh token as its bearer; answers the published TokenPair. */
export async function refreshTokenPair(issuer: Requester, audience: string): Promise<TokenPair> {
  const raw = await issuer.request('POST', '/sts/exchange_refresh_token', { query: [['aud', audience]] });
  return pairOf(field(field(raw, 'token', 'token'), 'token', 'token'), field(field(raw, 'refreshToken', 'refresh_token'), 'token', 'token'));
}

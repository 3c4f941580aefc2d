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

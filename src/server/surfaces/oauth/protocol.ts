// The OAuth 2.0 protocol of serve's issuer: endpoints, lifetimes, the checks on what a client
// sends (loopback redirect URIs, user codes) and the JSON errors of the token endpoints.
import type { Request, Response } from '../../pipeline/handler.js';
import type { Random } from '../../base/random.js';

export const CLIENT_ID = 'pctl';
export const AUTHORIZE_PATH = '/oauth/authorize';
export const TOKEN_PATH = '/oauth/token';
export const USERINFO_PATH = '/oauth/userinfo';
export const DEVICE_AUTHORIZATION_PATH = '/oauth/device_authorization';
/** The verification URI: where the operator enters the user code. */
export const DEVICE_VERIFICATION_PATH = '/oauth/device';
export const DEVICE_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:device_code';

/** An authorization code is good for this long, once. */
export const CODE_TTL_MS = 60_000;
export const DEFAULT_TOKEN_TTL_S = 8 * 3600;
/** A device code (and its user code) is good for this long. */
export const DEVICE_CODE_TTL_S = 600;
/** Seconds the client waits between polls; each slow_down adds 5 (RFC 8628 §3.5). */
export const DEVICE_POLL_INTERVAL_S = 5;
/**
 * User codes: 8 letters shown as XXXX-XXXX, from consonants only (RFC 8628 §6.1): no vowels
 * (no words), no letters mistaken for digits (no I, O). 20^8 ≈ 2.6·10^10 codes.
 */
const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';

/**
 * The loopback addresses of RFC 8252 §7.3, and localhost. [::1] is there for the console of a
 * serve on `--host ::1`, whose page is its own redirect URI.
 */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** Why a redirect URI is not an acceptable loopback one, or undefined when it is. */
export function loopbackProblem(raw: string): string | undefined {
  if (!raw) return 'it is missing';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'it is not a URL';
  }
  if (url.protocol !== 'http:') return 'it must use http: on a loopback address';
  if (!LOOPBACK_HOSTS.has(url.hostname)) return 'its host must be 127.0.0.1, [::1] or localhost';
  if (!url.port) return 'it must name a port';
  if (url.username || url.password) return 'it must not hold credentials';
  if (url.hash || raw.includes('#')) return 'it must not have a fragment';
  return undefined;
}

export const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };

export function randomToken(random: Random): string {
  return random.bytes(32).toString('base64url');
}

export function withParams(base: string, params: Record<string, string>): string {
  const url = new URL(base);
  for (const [k, v] of Object.entries(params)) if (v !== '' || k !== 'state') url.searchParams.set(k, v);
  return url.toString();
}

export function oauthError(error: string, description: string, status = 400): Response {
  return { status, body: { error, error_description: description }, headers: NO_STORE };
}

/** A fresh user code, normalized (no dash): 8 letters of USER_CODE_ALPHABET. */
export function newUserCode(random: Random): string {
  let code = '';
  for (let i = 0; i < 8; i++) code += USER_CODE_ALPHABET[random.int(USER_CODE_ALPHABET.length)];
  return code;
}

/** `WDJBMJHT` → `WDJB-MJHT`. */
export function formatUserCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/** What a person typed, as a lookup key: case, dashes and spaces do not matter. */
export function normalizeUserCode(typed: string): string {
  return typed.toUpperCase().replace(/[^A-Z]/g, '').slice(0, 16);
}

/**
 * Whether a (loopback, already checked) redirect URI is the console page of the server the
 * browser is talking to: `/` on the very host and port of this request. Anything else is named
 * by its host, so that another local program is never presented as the console.
 */
export function isOwnConsole(redirectUri: string, requestHost: string | undefined): boolean {
  const url = new URL(redirectUri);
  return url.pathname === '/' && !url.search && url.host === (requestHost ?? '').toLowerCase();
}

export function hostOf(uri: string): string {
  try {
    return new URL(uri).host;
  } catch {
    return uri;
  }
}

export function cookie(req: Request, name: string): string | undefined {
  const header = req.headers.cookie ?? '';
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

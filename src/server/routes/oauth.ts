// Signing in with a browser: OAuth 2.0 authorization code + PKCE (S256) for the public
// client `pctl`, redirecting only to loopback addresses (RFC 8252). The sign-in page asks
// once for the owner token (whoever holds it is the administrator), then lets the operator
// pick which identity of this issuer to sign in as. Pending sign-ins, codes and browser
// sessions live in memory: a restart forgets them, and the operator starts again.
//
// Signing in without a browser on the machine (SSH, containers): the device authorization
// grant (RFC 8628). pctl asks for a device code and a short user code, the operator enters
// the user code at the verification page in any browser, then goes through the same owner
// token and identity steps; meanwhile pctl polls the token endpoint. Pending device grants
// live in memory too.
import { createHash, timingSafeEqual } from 'node:crypto';
import { unauthenticated } from '../../api/errors.js';
import type { PublicRoutes, Request, Response } from '../handler.js';
import type { Principal } from '../auth/principal.js';
import { mintToken, type SigningKey } from '../auth/tokens.js';
import type { Store, Record_ } from '../store/store.js';
import type { Random } from '../random.js';

const CLIENT_ID = 'pctl';
export const AUTHORIZE_PATH = '/oauth/authorize';
export const TOKEN_PATH = '/oauth/token';
export const USERINFO_PATH = '/oauth/userinfo';
export const DEVICE_AUTHORIZATION_PATH = '/oauth/device_authorization';
/** The verification URI: where the operator enters the user code. */
const DEVICE_VERIFICATION_PATH = '/oauth/device';
export const DEVICE_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:device_code';

/** An authorization code is good for this long, once. */
const CODE_TTL_MS = 60_000;
/** The sign-in page must be completed within this time. */
const PENDING_TTL_MS = 10 * 60_000;
/** After proving the owner token, a browser may sign in again without it for this long. */
const SESSION_TTL_MS = 8 * 3600_000;
const DEFAULT_TOKEN_TTL_S = 8 * 3600;
/** A device code (and its user code) is good for this long. */
const DEVICE_CODE_TTL_S = 600;
/** Seconds the client waits between polls; each slow_down adds 5 (RFC 8628 §3.5). */
const DEVICE_POLL_INTERVAL_S = 5;
/**
 * User codes: 8 letters shown as XXXX-XXXX, from consonants only (RFC 8628 §6.1): no vowels
 * (no words), no letters mistaken for digits (no I, O). 20^8 ≈ 2.6·10^10 codes.
 */
const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
/** After expiring, a device code is remembered this long more, to answer expired_token rather than invalid_grant. */
const DEVICE_EXPIRED_GRACE_MS = 10 * 60_000;
/** Bounds on what unauthenticated callers can make us remember. */
const MAX_PENDING = 1000;
const MAX_CODES = 1000;
const MAX_DEVICE_GRANTS = 1000;
const MAX_SESSIONS = 100;
const MAX_IDENTITIES_LISTED = 500;
const SESSION_COOKIE = 'pctl_signin';

export interface OAuthOptions {
  issuer: () => string;
  key: SigningKey;
  store: Store;
  clock: () => number;
  /** Where sessions, codes and CSRF tokens come from (ServeOptions.random). */
  random: Random;
  /** The server's bearer check (verifies the token, finds its identity). */
  authenticate: (authorization: string | undefined) => Promise<Principal>;
  /** Lifetime of the tokens handed out (default 8h). */
  tokenTtlSeconds?: number;
}

interface AuthorizeParams {
  redirectUri: string;
  state: string;
  codeChallenge: string;
}

interface Pending extends AuthorizeParams {
  expiresAt: number;
  /** The owner token was shown for this sign-in (or the browser's session already proved it). */
  proven: boolean;
  /** The redirect URI is this server's own console page (see isOwnConsole). */
  forConsole: boolean;
}

/** A device authorization (RFC 8628), from the device code's issue until its token is taken. */
interface DeviceGrant {
  clientId: string;
  userCode: string;
  expiresAt: number;
  /** Seconds the client must wait between polls (raised by slow_down). */
  interval: number;
  lastPollAt?: number;
  status: 'pending' | 'approved' | 'denied';
  /** Set once approved. */
  identityUid?: string;
}

/** The verification page for one device grant, between the user code and the approval (keyed by its CSRF token). */
interface DevicePending {
  deviceCode: string;
  expiresAt: number;
  proven: boolean;
}

/** What the identity picker says it signs in, and where its form posts. */
interface PickTarget {
  action: string;
  /** HTML: the sentence above the list of identities. */
  intro: string;
  /** The secrets `intro` shows (secretForms). */
  secrets: string[];
}

interface Grant {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  identityUid: string;
  expiresAt: number;
}

/** The routes, and forget(): every sign-in in progress dropped, as at a start (after a restore or reset of the data). */
export function oauthRoutes(opts: OAuthOptions): { routes: PublicRoutes; forget(): void } {
  const pending = new Map<string, Pending>();
  const codes = new Map<string, Grant>();
  const sessions = new Map<string, number>();
  /** By device code. */
  const devices = new Map<string, DeviceGrant>();
  /** User code (normalized, no dash) → device code, while the device code is valid. */
  const userCodes = new Map<string, string>();
  /** Verification pages in progress, by CSRF token. */
  const devicePending = new Map<string, DevicePending>();
  const ttl = opts.tokenTtlSeconds ?? DEFAULT_TOKEN_TTL_S;

  const prune = () => {
    const now = opts.clock();
    for (const [k, v] of pending) if (v.expiresAt <= now) pending.delete(k);
    for (const [k, v] of codes) if (v.expiresAt <= now) codes.delete(k);
    for (const [k, v] of sessions) if (v <= now) sessions.delete(k);
    for (const [k, v] of devicePending) if (v.expiresAt <= now) devicePending.delete(k);
    for (const [k, v] of devices) {
      if (v.expiresAt <= now) userCodes.delete(v.userCode);
      if (v.expiresAt + DEVICE_EXPIRED_GRACE_MS <= now) devices.delete(k);
    }
  };

  const hasSession = (req: Request) => {
    const id = cookie(req, SESSION_COOKIE);
    const until = id ? sessions.get(id) : undefined;
    return until !== undefined && until > opts.clock();
  };

  const ownIdentities = (): Record_[] => opts.store.findByAltKeyFirstPart('identity', opts.issuer(), MAX_IDENTITIES_LISTED);

  const pickPage = (csrf: string, target: PickTarget, notice = '', status = 200): Response => {
    const identities = ownIdentities();
    const owner = opts.store.getMeta('owner_identity');
    const items = identities.map((r) => {
      const checked = identities.length === 1 || (r.uid === owner) ? ' checked' : '';
      return `<label class="pick"><input type="radio" name="identity" value="${esc(r.uid)}" required${checked}> <b>${esc(r.name)}</b> <code>${esc(r.uid)}</code></label>`;
    });
    const body = `
<h1>Sign in to pctl</h1>
<p>${target.intro}</p>
${notice ? `<p class="err">${esc(notice)}</p>` : ''}
<form method="post" action="${target.action}">
<input type="hidden" name="csrf" value="${esc(csrf)}">
<input type="hidden" name="step" value="pick">
${items.length ? items.join('\n') : '<p class="err">No identity names this server as its issuer.</p>'}
<p><button type="submit" name="action" value="allow"${items.length ? '' : ' disabled'}>Sign in</button>
<button type="submit" name="action" value="deny" formnovalidate class="secondary">Cancel</button></p>
</form>`;
    return html(status, body, [...secretForms(csrf), ...target.secrets]);
  };

  const authorizeTarget = (p: Pending): PickTarget => ({
    action: AUTHORIZE_PATH,
    intro: p.forConsole
      ? 'Choose the identity whose view the <code>pctl</code> console of this server will show (read-only).'
      : `Choose the identity that <code>pctl</code> on ${esc(hostOf(p.redirectUri))} will act as.`,
    secrets: [],
  });

  const ownerPage = (csrf: string, notice = '', status = 200, action = AUTHORIZE_PATH): Response => html(status, `
<h1>Sign in to pctl</h1>
<p>Paste the owner token of this server to continue. It is in <code>owner.token</code> in the server's data directory.</p>
${notice ? `<p class="err">${esc(notice)}</p>` : ''}
<form method="post" action="${action}" autocomplete="off">
<input type="hidden" name="csrf" value="${esc(csrf)}">
<input type="hidden" name="step" value="owner">
<p><textarea name="owner_token" rows="5" required spellcheck="false" placeholder="eyJ…"></textarea></p>
<p><button type="submit" name="action" value="allow">Continue</button>
<button type="submit" name="action" value="deny" formnovalidate class="secondary">Cancel</button></p>
</form>`, secretForms(csrf));

  /** Whether `supplied` is a valid token of the owner identity. */
  const isOwnerToken = async (supplied: string | null): Promise<boolean> => {
    const token = (supplied ?? '').trim();
    if (!token) return false;
    try {
      const principal = await opts.authenticate(`Bearer ${token}`);
      return principal.identityUid === opts.store.getMeta('owner_identity');
    } catch {
      return false;
    }
  };

  /** The page after a proven owner token, with a session cookie so that this browser need not prove it again for a while. */
  const withSession = (page: Response): Response => {
    prune();
    if (sessions.size >= MAX_SESSIONS) return page;
    const session = randomToken(opts.random);
    sessions.set(session, opts.clock() + SESSION_TTL_MS);
    const cookieHeader = `${SESSION_COOKIE}=${session}; Path=/oauth; HttpOnly; SameSite=Strict; Max-Age=${SESSION_TTL_MS / 1000}`;
    return { ...page, headers: { ...page.headers, 'set-cookie': cookieHeader } };
  };

  const authorizeGet = (req: Request): Response => {
    const q = req.query;
    const clientId = q.get('client_id') ?? '';
    const redirectUri = q.get('redirect_uri') ?? '';
    if (clientId !== CLIENT_ID) return errorPage(`Unknown client_id ${JSON.stringify(clientId)}: only "${CLIENT_ID}" may sign in here.`);
    const problem = loopbackProblem(redirectUri);
    if (problem) return errorPage(`The redirect_uri is refused: ${problem}. Sign-in answers go only to http://127.0.0.1:PORT/…, http://[::1]:PORT/… or http://localhost:PORT/….`);
    // The redirect URI is trusted from here on: protocol errors go back to the client.
    const state = q.get('state') ?? '';
    if (q.get('response_type') !== 'code') return redirectError(redirectUri, state, 'unsupported_response_type', 'response_type must be code');
    const codeChallenge = q.get('code_challenge') ?? '';
    if ((q.get('code_challenge_method') ?? '') !== 'S256') {
      return redirectError(redirectUri, state, 'invalid_request', 'PKCE is required, with code_challenge_method=S256');
    }
    if (!/^[A-Za-z0-9_-]{43}$/.test(codeChallenge)) {
      return redirectError(redirectUri, state, 'invalid_request', 'code_challenge must be the base64url SHA-256 of the code verifier');
    }
    prune();
    if (pending.size >= MAX_PENDING) return errorPage('Too many sign-ins are in progress; try again in a few minutes.', 503);
    const csrf = randomToken(opts.random);
    const p: Pending = {
      redirectUri, state, codeChallenge, expiresAt: opts.clock() + PENDING_TTL_MS, proven: hasSession(req), forConsole: isOwnConsole(redirectUri, req.headers.host),
    };
    pending.set(csrf, p);
    return p.proven ? pickPage(csrf, authorizeTarget(p)) : ownerPage(csrf);
  };

  const authorizePost = async (req: Request): Promise<Response> => {
    const form = await req.form();
    const csrf = form.get('csrf') ?? '';
    const p = pending.get(csrf);
    if (!p || p.expiresAt <= opts.clock()) {
      pending.delete(csrf);
      return errorPage('This sign-in page has expired or was already used. Run pctl auth login again.');
    }
    if (form.get('action') === 'deny') {
      pending.delete(csrf);
      return redirectError(p.redirectUri, p.state, 'access_denied', 'the sign-in was cancelled');
    }
    const step = form.get('step');
    if (step === 'owner') {
      if (!(await isOwnerToken(form.get('owner_token')))) return ownerPage(csrf, 'That is not the owner token of this server.', 401);
      p.proven = true;
      return withSession(pickPage(csrf, authorizeTarget(p)));
    }
    if (step === 'pick') {
      if (!p.proven) return ownerPage(csrf, 'Paste the owner token first.', 401);
      const uid = form.get('identity') ?? '';
      const identity = ownIdentities().find((r) => r.uid === uid);
      if (!identity) return pickPage(csrf, authorizeTarget(p), 'Choose one of the identities listed.', 400);
      pending.delete(csrf);
      prune();
      if (codes.size >= MAX_CODES) return errorPage('Too many sign-ins are in progress; try again in a minute.', 503);
      const code = randomToken(opts.random);
      codes.set(code, {
        clientId: CLIENT_ID, redirectUri: p.redirectUri, codeChallenge: p.codeChallenge, identityUid: identity.uid,
        expiresAt: opts.clock() + CODE_TTL_MS,
      });
      return redirect(withParams(p.redirectUri, { code, state: p.state }), secretForms(code, p.state));
    }
    return errorPage('The form was not understood. Run pctl auth login again.');
  };

  const token = async (req: Request): Promise<Response> => {
    const form = await req.form();
    const grantType = form.get('grant_type');
    if (grantType === DEVICE_GRANT_TYPE) return deviceToken(form);
    if (grantType !== 'authorization_code') {
      return oauthError('unsupported_grant_type', `grant_type must be authorization_code or ${DEVICE_GRANT_TYPE}`);
    }
    const code = form.get('code') ?? '';
    const grant = codes.get(code);
    // Single use: whatever happens next, this code is spent.
    codes.delete(code);
    if (!code || !grant) return oauthError('invalid_grant', 'the authorization code is unknown or was already used');
    if (grant.expiresAt <= opts.clock()) return oauthError('invalid_grant', 'the authorization code has expired; sign in again');
    if ((form.get('client_id') ?? '') !== grant.clientId) return oauthError('invalid_grant', 'the authorization code was issued to another client_id');
    if ((form.get('redirect_uri') ?? '') !== grant.redirectUri) return oauthError('invalid_grant', 'redirect_uri does not match the one the code was issued for');
    const verifier = form.get('code_verifier') ?? '';
    if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier)) {
      return oauthError('invalid_grant', 'code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~');
    }
    const expected = Buffer.from(grant.codeChallenge);
    const actual = Buffer.from(createHash('sha256').update(verifier).digest('base64url'));
    if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) {
      return oauthError('invalid_grant', 'code_verifier does not match the code_challenge (PKCE)');
    }
    return tokensFor(grant.identityUid);
  };

  /** The token response for an identity that signed in: an access token and an ID token. */
  const tokensFor = async (identityUid: string): Promise<Response> => {
    const identity = opts.store.get(identityUid, 'identity');
    const issuer = opts.issuer();
    const claim = identity?.data.claimMatch as { issuer?: string; subject?: string } | undefined;
    if (!identity || claim?.issuer !== issuer || !claim.subject) {
      return oauthError('invalid_grant', 'the identity signed in as no longer exists or no longer names this issuer');
    }
    const now = opts.clock();
    const [accessToken, idToken] = await Promise.all([
      mintToken(opts.key, { issuer, subject: claim.subject, ttlSeconds: ttl, now }),
      mintToken(opts.key, { issuer, subject: claim.subject, ttlSeconds: ttl, now, extraClaims: { name: identity.name, identity_uid: identity.uid } }),
    ]);
    return {
      body: { access_token: accessToken, id_token: idToken, token_type: 'Bearer', expires_in: ttl },
      headers: NO_STORE,
    };
  };

  // ---- the device authorization grant (RFC 8628) ----

  const deviceAuthorization = async (req: Request): Promise<Response> => {
    const form = await req.form();
    const clientId = form.get('client_id') ?? '';
    if (clientId !== CLIENT_ID) {
      return oauthError('invalid_client', `unknown client_id ${JSON.stringify(clientId)}: only "${CLIENT_ID}" may sign in here`, 401);
    }
    prune();
    if (devices.size >= MAX_DEVICE_GRANTS) {
      return oauthError('temporarily_unavailable', 'too many device sign-ins are in progress; try again in a few minutes', 503);
    }
    const deviceCode = randomToken(opts.random);
    let userCode = newUserCode(opts.random);
    while (userCodes.has(userCode)) userCode = newUserCode(opts.random);
    devices.set(deviceCode, {
      clientId, userCode, expiresAt: opts.clock() + DEVICE_CODE_TTL_S * 1000, interval: DEVICE_POLL_INTERVAL_S, status: 'pending',
    });
    userCodes.set(userCode, deviceCode);
    const verificationUri = `${opts.issuer()}${DEVICE_VERIFICATION_PATH}`;
    const shown = formatUserCode(userCode);
    return {
      body: {
        device_code: deviceCode,
        user_code: shown,
        verification_uri: verificationUri,
        verification_uri_complete: `${verificationUri}?user_code=${encodeURIComponent(shown)}`,
        expires_in: DEVICE_CODE_TTL_S,
        interval: DEVICE_POLL_INTERVAL_S,
      },
      headers: NO_STORE,
    };
  };

  /** The token endpoint for grant_type=urn:ietf:params:oauth:grant-type:device_code (RFC 8628 §3.4, §3.5). */
  const deviceToken = async (form: URLSearchParams): Promise<Response> => {
    const deviceCode = form.get('device_code') ?? '';
    if (!deviceCode) return oauthError('invalid_request', 'device_code is required');
    prune();
    const grant = devices.get(deviceCode);
    if (!grant) return oauthError('invalid_grant', 'the device code is unknown or was already used');
    if ((form.get('client_id') ?? '') !== grant.clientId) return oauthError('invalid_grant', 'the device code was issued to another client_id');
    const now = opts.clock();
    if (grant.expiresAt <= now) {
      userCodes.delete(grant.userCode);
      return oauthError('expired_token', 'the device code has expired; sign in again');
    }
    const last = grant.lastPollAt;
    grant.lastPollAt = now;
    if (last !== undefined && now - last < grant.interval * 1000) {
      grant.interval += 5;
      return oauthError('slow_down', `polling too fast: wait ${grant.interval} seconds between requests`);
    }
    if (grant.status === 'pending') return oauthError('authorization_pending', 'the sign-in has not been approved yet');
    // Denied or approved: the answer is final, and the device code is spent.
    devices.delete(deviceCode);
    userCodes.delete(grant.userCode);
    if (grant.status === 'denied' || !grant.identityUid) return oauthError('access_denied', 'the sign-in was denied');
    return tokensFor(grant.identityUid);
  };

  /** The device grant a verification page works on, when it can still be approved. */
  const pendingDevice = (deviceCode: string): DeviceGrant | undefined => {
    const grant = devices.get(deviceCode);
    return grant && grant.status === 'pending' && grant.expiresAt > opts.clock() ? grant : undefined;
  };

  const deviceTarget = (grant: DeviceGrant): PickTarget => ({
    action: DEVICE_VERIFICATION_PATH,
    intro: `Choose the identity that <code>pctl</code> showing the code <b>${esc(formatUserCode(grant.userCode))}</b> will act as.`,
    secrets: secretForms(formatUserCode(grant.userCode), grant.userCode),
  });

  const codePage = (value = '', notice = '', status = 200): Response => html(status, `
<h1>Sign in to pctl</h1>
<p>Enter the code that <code>pctl auth login --device</code> shows. Only enter a code that you got from pctl yourself: whoever shows it to you gets signed in.</p>
${notice ? `<p class="err">${esc(notice)}</p>` : ''}
<form method="post" action="${DEVICE_VERIFICATION_PATH}" autocomplete="off">
<input type="hidden" name="step" value="code">
<p><input name="user_code" value="${esc(value)}" required maxlength="32" spellcheck="false" autocapitalize="characters" placeholder="XXXX-XXXX" style="font:1.3rem monospace;letter-spacing:.1em"></p>
<p><button type="submit" name="action" value="allow">Continue</button></p>
</form>`, secretForms(value));

  const verifyGet = (req: Request): Response => codePage(req.query.get('user_code') ?? '');

  const verifyPost = async (req: Request): Promise<Response> => {
    const form = await req.form();
    const step = form.get('step');
    if (step === 'code') {
      const entered = form.get('user_code') ?? '';
      prune();
      const deviceCode = userCodes.get(normalizeUserCode(entered));
      const grant = deviceCode ? pendingDevice(deviceCode) : undefined;
      if (!deviceCode || !grant) return codePage(entered.slice(0, 32), 'That code is unknown, expired or already used. Check it, or run pctl auth login --device again.', 400);
      if (devicePending.size >= MAX_PENDING) return errorPage('Too many sign-ins are in progress; try again in a few minutes.', 503);
      const csrf = randomToken(opts.random);
      const p: DevicePending = { deviceCode, expiresAt: grant.expiresAt, proven: hasSession(req) };
      devicePending.set(csrf, p);
      return p.proven ? pickPage(csrf, deviceTarget(grant)) : ownerPage(csrf, '', 200, DEVICE_VERIFICATION_PATH);
    }
    const csrf = form.get('csrf') ?? '';
    const p = devicePending.get(csrf);
    const grant = p && p.expiresAt > opts.clock() ? pendingDevice(p.deviceCode) : undefined;
    if (!p || !grant) {
      devicePending.delete(csrf);
      return errorPage('This sign-in page has expired or was already used. Run pctl auth login --device again.');
    }
    if (form.get('action') === 'deny') {
      devicePending.delete(csrf);
      grant.status = 'denied';
      return html(200, '<h1>Sign-in denied</h1>\n<p>pctl will not be signed in. You can close this tab.</p>');
    }
    if (step === 'owner') {
      if (!(await isOwnerToken(form.get('owner_token')))) {
        return ownerPage(csrf, 'That is not the owner token of this server.', 401, DEVICE_VERIFICATION_PATH);
      }
      p.proven = true;
      return withSession(pickPage(csrf, deviceTarget(grant)));
    }
    if (step === 'pick') {
      if (!p.proven) return ownerPage(csrf, 'Paste the owner token first.', 401, DEVICE_VERIFICATION_PATH);
      const uid = form.get('identity') ?? '';
      const identity = ownIdentities().find((r) => r.uid === uid);
      if (!identity) return pickPage(csrf, deviceTarget(grant), 'Choose one of the identities listed.', 400);
      devicePending.delete(csrf);
      grant.status = 'approved';
      grant.identityUid = identity.uid;
      return html(200, `<h1>Signed in</h1>\n<p><code>pctl</code> is signed in as <b>${esc(identity.name)}</b>. You can close this tab and return to the terminal.</p>`);
    }
    return errorPage('The form was not understood. Run pctl auth login --device again.');
  };

  const userinfo = async (req: Request): Promise<Response> => {
    const principal = await opts.authenticate(req.headers.authorization);
    const identity = opts.store.get(principal.identityUid, 'identity');
    if (!identity) throw unauthenticated('The identity of this token no longer exists');
    const claim = identity.data.claimMatch as { issuer: string; subject: string };
    return {
      body: { sub: claim.subject, iss: claim.issuer, identity: { uid: identity.uid, name: identity.name } },
      headers: NO_STORE,
    };
  };

  const routes: PublicRoutes = {
    [`GET ${AUTHORIZE_PATH}`]: authorizeGet,
    [`POST ${AUTHORIZE_PATH}`]: authorizePost,
    [`POST ${TOKEN_PATH}`]: token,
    [`GET ${USERINFO_PATH}`]: userinfo,
    [`POST ${DEVICE_AUTHORIZATION_PATH}`]: deviceAuthorization,
    [`GET ${DEVICE_VERIFICATION_PATH}`]: verifyGet,
    [`POST ${DEVICE_VERIFICATION_PATH}`]: verifyPost,
  };
  const forget = () => {
    for (const state of [pending, codes, sessions, devices, userCodes, devicePending]) state.clear();
  };
  return { routes, forget };
}

/**
 * The loopback addresses of RFC 8252 §7.3, and localhost. [::1] is there for the console of a
 * serve on `--host ::1`, whose page is its own redirect URI.
 */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** Why a redirect URI is not an acceptable loopback one, or undefined when it is. */
function loopbackProblem(raw: string): string | undefined {
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

const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };

function randomToken(random: Random): string {
  return random.bytes(32).toString('base64url');
}

function withParams(base: string, params: Record<string, string>): string {
  const url = new URL(base);
  for (const [k, v] of Object.entries(params)) if (v !== '' || k !== 'state') url.searchParams.set(k, v);
  return url.toString();
}

/** `secrets`: what `location` holds that no record may show (secretForms). */
function redirect(location: string, secrets: string[]): Response {
  return {
    status: 303,
    raw: `<!doctype html><title>Redirecting</title><p>Redirecting to <a href="${esc(location)}">pctl</a>…</p>`,
    headers: { location, ...HTML_HEADERS },
    secrets,
  };
}

function redirectError(redirectUri: string, state: string, error: string, description: string): Response {
  return redirect(withParams(redirectUri, { error, error_description: description, state }), secretForms(state));
}

/**
 * Each value as the pages may write it: as is, percent-encoded (a path's way and a query's),
 * and each of those HTML-escaped (in a link, `&` of a query becomes `&#38;`), for
 * Response.secrets. Codes and CSRF handles are base64url, the same in every form; a client's
 * state or a typed user code need not be.
 */
function secretForms(...values: string[]): string[] {
  return values.filter(Boolean).flatMap((v) => {
    const encoded = [v, encodeURIComponent(v), new URLSearchParams({ v }).toString().slice(2)];
    return [...encoded, ...encoded.map(esc)];
  });
}

function oauthError(error: string, description: string, status = 400): Response {
  return { status, body: { error, error_description: description }, headers: NO_STORE };
}

/** A fresh user code, normalized (no dash): 8 letters of USER_CODE_ALPHABET. */
function newUserCode(random: Random): string {
  let code = '';
  for (let i = 0; i < 8; i++) code += USER_CODE_ALPHABET[random.int(USER_CODE_ALPHABET.length)];
  return code;
}

/** `WDJBMJHT` → `WDJB-MJHT`. */
function formatUserCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/** What a person typed, as a lookup key: case, dashes and spaces do not matter. */
function normalizeUserCode(typed: string): string {
  return typed.toUpperCase().replace(/[^A-Z]/g, '').slice(0, 16);
}

/**
 * Whether a (loopback, already checked) redirect URI is the console page of the server the
 * browser is talking to: `/` on the very host and port of this request. Anything else is named
 * by its host, so that another local program is never presented as the console.
 */
function isOwnConsole(redirectUri: string, requestHost: string | undefined): boolean {
  const url = new URL(redirectUri);
  return url.pathname === '/' && !url.search && url.host === (requestHost ?? '').toLowerCase();
}

function hostOf(uri: string): string {
  try {
    return new URL(uri).host;
  } catch {
    return uri;
  }
}

function cookie(req: Request, name: string): string | undefined {
  const header = req.headers.cookie ?? '';
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

function esc(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => `&#${c.charCodeAt(0)};`);
}

const HTML_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  // Forms post here; the answer redirects to the loopback client (form-action covers redirects).
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self' http://127.0.0.1:* http://localhost:*; frame-ancestors 'none'; base-uri 'none'",
};

function errorPage(message: string, status = 400): Response {
  return html(status, `<h1>Sign-in refused</h1>\n<p class="err">${esc(message)}</p>`);
}

function html(status: number, content: string, secrets: string[] = []): Response {
  return {
    status,
    ...(secrets.length ? { secrets } : {}),
    raw: `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>pctl sign-in</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;color:#222}
h1{font-size:1.4rem} code{font-size:.85em;background:#f3f3f3;padding:0 .25em;border-radius:3px}
textarea{width:100%;font:12px monospace} .err{color:#b00020}
.pick{display:block;padding:.4rem .5rem;border:1px solid #ddd;border-radius:4px;margin:.3rem 0;cursor:pointer}
button{font:inherit;padding:.4rem 1rem} .secondary{background:none;border:1px solid #ccc}
</style></head><body>${content}
</body></html>
`,
    headers: { ...HTML_HEADERS },
  };
}

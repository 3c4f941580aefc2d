// Signing in with a browser: OAuth 2.0 authorization code + PKCE (S256) for the public client
// `pctl`, redirecting only to loopback addresses (RFC 8252). The sign-in page asks once for the
// owner token, then lets the operator pick which identity of this issuer to sign in as.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from '../../pipeline/handler.js';
import {
  AUTHORIZE_PATH, CLIENT_ID, CODE_TTL_MS, hostOf, isOwnConsole, loopbackProblem, oauthError, randomToken, withParams,
} from './protocol.js';
import { clientIntro, consoleIntro, errorPage, ownerPage, redirect, redirectError, secretForms, type PickTarget } from './pages.js';
import type { SignIn } from './signin.js';
import { MAX_CODES, MAX_PENDING, PENDING_TTL_MS, type Pending } from './state.js';

export function authorizationCodeGrant(s: SignIn) {
  const { opts, pending, codes, prune } = s;

  const authorizeTarget = (p: Pending): PickTarget => ({
    action: AUTHORIZE_PATH,
    intro: p.forConsole ? consoleIntro() : clientIntro(hostOf(p.redirectUri)),
    secrets: [],
  });

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
      redirectUri, state, codeChallenge, expiresAt: opts.clock() + PENDING_TTL_MS, proven: s.hasSession(req), forConsole: isOwnConsole(redirectUri, req.headers.host),
    };
    pending.set(csrf, p);
    return p.proven ? s.pickPage(csrf, authorizeTarget(p)) : ownerPage(csrf);
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
      if (!(await s.isOwnerToken(form.get('owner_token')))) return ownerPage(csrf, 'That is not the owner token of this server.', 401);
      p.proven = true;
      return s.withSession(s.pickPage(csrf, authorizeTarget(p)));
    }
    if (step === 'pick') {
      if (!p.proven) return ownerPage(csrf, 'Paste the owner token first.', 401);
      const uid = form.get('identity') ?? '';
      const identity = s.ownIdentities().find((r) => r.uid === uid);
      if (!identity) return s.pickPage(csrf, authorizeTarget(p), 'Choose one of the identities listed.', 400);
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

  /** The token endpoint for grant_type=authorization_code. */
  const codeToken = async (form: URLSearchParams): Promise<Response> => {
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
    return s.tokensFor(grant.identityUid);
  };

  return { authorizeGet, authorizePost, codeToken };
}

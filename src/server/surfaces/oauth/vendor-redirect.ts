// The vendor's browser sign-in (its SDK's auth/login): the client opens
// `{issuer}/oauth?exit=redirect&redirect=http://localhost:PORT/callback…&audience=…&identity=…`
// and the issuer redirects there with `token` and `refresh_token` in the query (not OAuth's
// code + PKCE). Here it goes through serve's sign-in pages (the owner token, then the
// identity), and redirects only to loopback addresses, as the authorization code grant does.
import { ApiError } from '../../../api/errors.js';
import type { Request, Response } from '../../pipeline/handler.js';
import type { RawToken } from '../../auth/sts.js';
import { clientIntro, errorPage, ownerPage, redirect, secretForms, type PickTarget } from './pages.js';
import { hostOf, loopbackProblem, randomToken } from './protocol.js';
import type { SignIn } from './signin.js';
import { MAX_PENDING, PENDING_TTL_MS } from './state.js';

export const VENDOR_SIGN_IN_PATH = '/oauth';

/** What the sign-in hands out: a token and a refresh token for the identity picked. */
export interface VendorSignIn {
  audiences(requested: string[]): string[];
  signIn(identityUid: string, aud: string[]): Promise<RawToken>;
}

interface VendorPending {
  redirect: string;
  audience: string[];
  /** `identity=UID`: the one identity offered. */
  identity: string;
  expiresAt: number;
  proven: boolean;
}

export function vendorRedirectSignIn(s: SignIn, tokens: VendorSignIn) {
  const { opts } = s;
  const pending = new Map<string, VendorPending>();
  const prune = () => {
    const now = opts.clock();
    for (const [k, v] of pending) if (v.expiresAt <= now) pending.delete(k);
  };

  const target = (p: VendorPending): PickTarget => ({ action: VENDOR_SIGN_IN_PATH, intro: clientIntro(hostOf(p.redirect)), secrets: [] });
  const pick = (csrf: string, p: VendorPending, notice?: string, status?: number) => {
    const page = s.pickPage(csrf, target(p), notice, status);
    if (!p.identity) return page;
    // identity=UID: only that one is offered (the client asked to sign in as it).
    return s.ownIdentities().some((r) => r.uid === p.identity) ? page : errorPage(`The identity ${p.identity} the client asked for is not one of this server's to sign in as.`);
  };
  /** The answer to the client: its callback with the tokens (or an error) in the query. */
  const back = (p: VendorPending, params: Record<string, string>): Response => {
    const url = new URL(p.redirect);
    for (const k of ['token', 'refresh_token', 'error', 'status_code']) url.searchParams.delete(k);
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    return redirect(url.toString(), secretForms(...Object.values(params)));
  };

  const get = (req: Request): Response => {
    const q = req.query;
    if (q.get('exit') !== 'redirect') return errorPage('This sign-in answers only exit=redirect (the vendor clients\' browser sign-in): pass exit=redirect&redirect=http://localhost:PORT/callback.');
    const target = q.get('redirect') ?? '';
    const problem = loopbackProblem(target);
    if (problem) return errorPage(`The redirect is refused: ${problem}. Sign-in answers go only to http://127.0.0.1:PORT/…, http://[::1]:PORT/… or http://localhost:PORT/….`);
    let audience: string[];
    try {
      audience = tokens.audiences(q.getAll('audience'));
    } catch (err) {
      if (err instanceof ApiError) return errorPage(err.message);
      throw err;
    }
    prune();
    if (pending.size >= MAX_PENDING) return errorPage('Too many sign-ins are in progress; try again in a few minutes.', 503);
    const csrf = randomToken(opts.random);
    const p: VendorPending = { redirect: target, audience, identity: q.get('identity') ?? '', expiresAt: opts.clock() + PENDING_TTL_MS, proven: s.hasSession(req) };
    pending.set(csrf, p);
    return p.proven ? pick(csrf, p) : ownerPage(csrf, '', 200, VENDOR_SIGN_IN_PATH);
  };

  const post = async (req: Request): Promise<Response> => {
    const form = await req.form();
    const csrf = form.get('csrf') ?? '';
    const p = pending.get(csrf);
    if (!p || p.expiresAt <= opts.clock()) {
      pending.delete(csrf);
      return errorPage('This sign-in page has expired or was already used. Sign in again from your client.');
    }
    if (form.get('action') === 'deny') {
      pending.delete(csrf);
      return back(p, { error: 'the sign-in was cancelled', status_code: '401' });
    }
    const step = form.get('step');
    if (step === 'owner') {
      if (!(await s.isOwnerToken(form.get('owner_token')))) return ownerPage(csrf, 'That is not the owner token of this server.', 401, VENDOR_SIGN_IN_PATH);
      p.proven = true;
      return s.withSession(pick(csrf, p));
    }
    if (step === 'pick') {
      if (!p.proven) return ownerPage(csrf, 'Paste the owner token first.', 401, VENDOR_SIGN_IN_PATH);
      const uid = form.get('identity') ?? '';
      const identity = s.ownIdentities().find((r) => r.uid === uid && (!p.identity || r.uid === p.identity));
      if (!identity) return pick(csrf, p, 'Choose one of the identities listed.', 400);
      pending.delete(csrf);
      const raw = await tokens.signIn(identity.uid, p.audience);
      return back(p, { token: raw.token, refresh_token: raw.refreshToken ?? '' });
    }
    return errorPage('The form was not understood. Sign in again from your client.');
  };

  return { get, post, forget: () => pending.clear() };
}

// The sign-in pages as responses: the HTML comes from templates/, this module says which page
// answers what, with which headers, and which secrets a page shows (Response.secrets).
import type { Response } from '../../pipeline/handler.js';
import type { Record_ } from '../../store/store.js';
import { AUTHORIZE_PATH, DEVICE_VERIFICATION_PATH, withParams } from './protocol.js';
import { esc, render } from './templates.js';

/** What the identity picker says it signs in, and where its form posts. */
export interface PickTarget {
  action: string;
  /** HTML: the sentence above the list of identities. */
  intro: string;
  /** The secrets `intro` shows (secretForms). */
  secrets: string[];
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

function html(status: number, content: string, secrets: string[] = []): Response {
  return {
    status,
    ...(secrets.length ? { secrets } : {}),
    raw: `${render('layout', { content })}\n`,
    headers: { ...HTML_HEADERS },
  };
}

const notice = (text: string) => (text ? render('notice', { notice: text }) : '');

/** The identity picker: `identities` of this issuer, `owner` checked (or the only one). */
export function pickPage(csrf: string, target: PickTarget, identities: Record_[], owner: string | undefined, noticeText = '', status = 200): Response {
  const items = identities.map((r) => render('pick-identity', {
    uid: r.uid, name: r.name, checked: identities.length === 1 || (r.uid === owner) ? ' checked' : '',
  }));
  const body = render('pick', {
    intro: target.intro,
    notice: notice(noticeText),
    action: target.action,
    csrf,
    identities: items.length ? items.join('\n') : render('pick-none'),
    disabled: items.length ? '' : ' disabled',
  });
  return html(status, body, [...secretForms(csrf), ...target.secrets]);
}

export function ownerPage(csrf: string, noticeText = '', status = 200, action = AUTHORIZE_PATH): Response {
  return html(status, render('owner', { notice: notice(noticeText), action, csrf }), secretForms(csrf));
}

export function codePage(value = '', noticeText = '', status = 200): Response {
  return html(status, render('code', { notice: notice(noticeText), action: DEVICE_VERIFICATION_PATH, value }), secretForms(value));
}

export const consoleIntro = () => render('intro-console');
export const clientIntro = (host: string) => render('intro-client', { host });
export const deviceIntro = (userCode: string) => render('intro-device', { userCode });

export function errorPage(message: string, status = 400): Response {
  return html(status, render('refused', { message }));
}

export const deniedPage = (): Response => html(200, render('denied'));

export const signedInPage = (name: string): Response => html(200, render('signed-in', { name }));

/** `secrets`: what `location` holds that no record may show (secretForms). */
export function redirect(location: string, secrets: string[]): Response {
  return {
    status: 303,
    raw: render('redirect', { location }),
    headers: { location, ...HTML_HEADERS },
    secrets,
  };
}

export function redirectError(redirectUri: string, state: string, error: string, description: string): Response {
  return redirect(withParams(redirectUri, { error, error_description: description, state }), secretForms(state));
}

/**
 * Each value as the pages may write it: as is, percent-encoded (a path's way and a query's),
 * and each of those HTML-escaped (in a link, `&` of a query becomes `&#38;`), for
 * Response.secrets. Codes and CSRF handles are base64url, the same in every form; a client's
 * state or a typed user code need not be.
 */
export function secretForms(...values: string[]): string[] {
  return values.filter(Boolean).flatMap((v) => {
    const encoded = [v, encodeURIComponent(v), new URLSearchParams({ v }).toString().slice(2)];
    return [...encoded, ...encoded.map(esc)];
  });
}

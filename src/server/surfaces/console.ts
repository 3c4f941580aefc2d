// The console: a read-only web page at `/` (the group tree, and serve's request journal for
// the owner). serve hands out its files without authentication; the page signs in through
// serve's own issuer (authorization code + PKCE, redirected back to `/`) and reads the API
// with that token, so it shows nothing its user could not list with pctl.
import { readFileSync } from 'node:fs';
import type { PublicRoutes, Response } from '../pipeline/handler.js';
import { PACKAGE_ROOT } from '../base/package-files.js';

/** The files live in the package's top-level console/ directory. */
const FILES_DIR = new URL('console/', PACKAGE_ROOT);

/** URL path → file name and content type. The only paths serve answers without a token, besides OIDC and OAuth's. */
const FILES: Record<string, [file: string, type: string]> = {
  '/': ['index.html', 'text/html; charset=utf-8'],
  '/console/console.js': ['console.js', 'text/javascript; charset=utf-8'],
  '/console/console.css': ['console.css', 'text/css; charset=utf-8'],
  '/console/icon.svg': ['icon.svg', 'image/svg+xml'],
};

/**
 * Scripts and styles from these files only, requests to this origin only, no frames, no
 * forms; Trusted Types make every HTML-parsing sink (innerHTML and the like) throw, so text
 * from the API can reach the page only as text.
 */
const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join('; ');

const HEADERS = {
  // Revalidated each time: a newer serve's page is never mixed with an older script.
  'cache-control': 'no-cache',
  'content-security-policy': CONSOLE_CSP,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  // The page's URL holds the authorization code for a moment after signing in.
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

export const CONSOLE_PATHS: readonly string[] = Object.keys(FILES);

export function consoleRoutes(): PublicRoutes {
  // Read on first request, then kept: a serve that never shows the console never reads them.
  const cache = new Map<string, string>();
  const routes: PublicRoutes = {};
  for (const [path, [file, type]] of Object.entries(FILES)) {
    routes[`GET ${path}`] = (): Response => {
      let raw = cache.get(file);
      if (raw === undefined) cache.set(file, (raw = readFileSync(new URL(file, FILES_DIR), 'utf8')));
      return { status: 200, raw, headers: { ...HEADERS, 'content-type': type } };
    };
  }
  return routes;
}

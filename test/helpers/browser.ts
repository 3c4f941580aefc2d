// Test helper: a browser without JavaScript for serve's sign-in pages (the authorization
// code flow's /oauth/authorize, the device flow's /oauth/device). It keeps cookies and does
// not follow redirects by itself.

export interface Page {
  status: number;
  html: string;
  headers: Headers;
}

export function browser() {
  const jar = new Map<string, string>();
  const remember = (res: Response) => {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const eq = pair!.indexOf('=');
      jar.set(pair!.slice(0, eq), pair!.slice(eq + 1));
    }
  };
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  const go = async (url: string, form?: Record<string, string>): Promise<Page> => {
    const headers: Record<string, string> = {};
    if (jar.size) headers.cookie = cookie();
    const init: RequestInit = { redirect: 'manual', headers };
    if (form) {
      init.method = 'POST';
      init.body = new URLSearchParams(form).toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
    // No timer of its own: a hang meets ava's timeout, a slow machine is merely slow.
    const res = await fetch(url, init);
    remember(res);
    return { status: res.status, html: await res.text(), headers: res.headers };
  };
  return { go, jar };
}

/** The hidden CSRF field of a sign-in form. */
export function csrfOf(html: string): string {
  const m = /name="csrf" value="([^"]+)"/.exec(html);
  if (!m) throw new Error(`no csrf field in: ${html.slice(0, 300)}`);
  return m[1]!;
}

// `pctl serve --log`: one line per request, with every token masked wherever the request
// carried it (query, path; headers are not logged at all), by the same rules as the CLI's
// debug trace (src/api/redact.ts).
import test from 'ava';
import { redactUrl } from '../src/api/redact.js';
import { request, startTestServer } from './helpers/serve.js';

const JWT = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJlLXNlY3JldA';

test('--log masks tokens in the query and the path, percent-encoded or not, and never shows the Authorization header', async (t) => {
  const logged: string[] = [];
  const srv = await startTestServer({ log: (line) => logged.push(line) });
  t.teardown(() => srv.dispose());
  const targets = [
    '/iam/v2/groups?access_token=query-secret-1&page_size=1',
    '/iam/v2/groups?page_size=1&acc%65ss_token=query-secret-2',
    '/iam/v2/groups?token=query-secret-3',
    `/iam/v2/groups?id_token=${JWT}`,
    `/iam/v2/groups/${JWT}`,
    '/iam/v2/groups/pctl_path-secret-4',
    '/oauth/token?code=query-secret-5&client_secret=query-secret-6',
    `/iam/v2/groups/${encodeURIComponent(`x?token=query-secret-7`)}`,
  ];
  for (const target of targets) await srv.call('GET', target);
  await request(srv.url, 'GET', '/iam/v2/groups', undefined, { authorization: `Bearer ${srv.ownerToken}`, cookie: 'session=cookie-secret' });

  t.is(logged.length, targets.length + 1, logged.join('\n'));
  const text = logged.join('\n');
  for (const secret of ['query-secret', 'path-secret', 'cookie-secret', JWT.slice(4, 20), srv.ownerToken.slice(4, 20)]) {
    t.false(text.includes(secret), `${secret} leaked into the log:\n${text}`);
  }
  t.regex(logged[0]!, /^GET \/iam\/v2\/groups\?access_token=\*\*\*&page_size=1 \d{3} \d+\.\dms$/, 'the rest of the line is as it was');
  t.regex(logged[1]!, /^GET \/iam\/v2\/groups\?page_size=1&access_token=\*\*\* \d{3} /, 'decoded, then masked');
  t.regex(logged[4]!, /^GET \/iam\/v2\/groups\/eyJ\*\*\* 404 /);
  t.regex(logged[5]!, /^GET \/iam\/v2\/groups\/pctl_\*\*\* 404 /);
});

test('redactUrl leaves a URL without credentials exactly as it came', (t) => {
  for (const url of ['/iam/v2/groups?filter=name%3D%22a%20b%22&page_size=2', 'http://127.0.0.1:8700/iam/v2/groups/abc%2Fdef', '/x?code', '/bad%zzescape?y=%']) {
    t.is(redactUrl(url), url);
  }
  t.is(redactUrl('http://h/a?refresh_token=r1&x=1'), 'http://h/a?refresh_token=***&x=1');
});

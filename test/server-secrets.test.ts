// Every secret masked everywhere serve records a call (issue 28): the journal (GET
// /_pctl/requests, `pctl serve requests`) and --log never show the device flow's device and
// user codes, the sign-in pages' CSRF handles and the client's state, authorization codes (also
// HTML-escaped in a redirect to a redirect_uri with a query), tokens, client secrets or invite
// codes. The flows are driven as a browser and an OAuth client drive them.
import test from 'ava';
import { createHash, randomBytes } from 'node:crypto';
import { closeAgent } from '../src/client/http.js';
import { maskJson, maskValues, redactText, redactUrl } from '../src/api/redact.js';
import { browser, csrfOf } from './helpers/browser.js';
import { cli } from './helpers/cli.js';
import { request, startTestServer, tempDir } from './helpers/serve.js';

const form = (url: string, fields: Record<string, string>) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });

test('no device code, user code, sign-in state, authorization code, token, client secret or invite code in the journal or --log', async (t) => {
  const logged: string[] = [];
  const srv = await startTestServer({ log: (line) => logged.push(line) });
  t.teardown(() => srv.dispose());
  /** Every secret the flows hand out or take, to look for afterwards. */
  const secrets = new Map<string, string>();

  // The device flow (RFC 8628), approved in a browser.
  const da = await (await form(`${srv.url}/oauth/device_authorization`, { client_id: 'pctl' })).json() as Record<string, string>;
  secrets.set('device_code', da.device_code!).set('user_code', da.user_code!).set('user_code without the dash', da.user_code!.replace('-', ''));
  const b = browser();
  let page = await b.go(da.verification_uri_complete!);
  t.true(page.html.includes(da.user_code!), 'the page shows the code to the person');
  page = await b.go(`${srv.url}/oauth/device`, { step: 'code', user_code: da.user_code!.toLowerCase(), action: 'allow' });
  secrets.set('device page csrf', csrfOf(page.html));
  page = await b.go(`${srv.url}/oauth/device`, { csrf: csrfOf(page.html), step: 'owner', owner_token: srv.ownerToken });
  t.true(page.html.includes(da.user_code!), 'the identity picker names the code it signs in');
  page = await b.go(`${srv.url}/oauth/device`, { csrf: csrfOf(page.html), step: 'pick', identity: srv.ownerIdentityUid, action: 'allow' });
  t.is(page.status, 200);
  const deviceTokens = await (await form(`${srv.url}/oauth/token`, { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: da.device_code!, client_id: 'pctl' })).json() as Record<string, string>;
  t.truthy(deviceTokens.access_token, JSON.stringify(deviceTokens));
  secrets.set('device access_token', deviceTokens.access_token!).set('device id_token', deviceTokens.id_token!);

  // The authorization code flow, to a redirect_uri that already has a query (the code goes
  // after `&`, HTML-escaped as `&#38;code=` in the redirect page), with a state of odd characters.
  const verifier = randomBytes(32).toString('base64url');
  const state = 'st&te <"secret"> ü';
  const redirectUri = 'http://127.0.0.1:9/callback?from=pctl';
  const authorize = `${srv.url}/oauth/authorize?${new URLSearchParams({
    response_type: 'code', client_id: 'pctl', redirect_uri: redirectUri, state, code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256',
  }).toString()}`;
  const a = browser();
  page = await a.go(authorize);
  secrets.set('authorize page csrf', csrfOf(page.html));
  page = await a.go(`${srv.url}/oauth/authorize`, { csrf: csrfOf(page.html), step: 'owner', owner_token: srv.ownerToken });
  page = await a.go(`${srv.url}/oauth/authorize`, { csrf: csrfOf(page.html), step: 'pick', identity: srv.ownerIdentityUid, action: 'allow' });
  t.is(page.status, 303);
  const back = new URL(page.headers.get('location')!);
  const code = back.searchParams.get('code')!;
  t.true(page.html.includes(`&#38;code=${code}`), 'the redirect page holds the code HTML-escaped');
  secrets.set('authorization code', code).set('state', state).set('state, percent-encoded', encodeURIComponent(state)).set('state, as a form encodes it', new URLSearchParams({ s: state }).toString().slice(2));
  const codeTokens = await (await form(`${srv.url}/oauth/token`, { grant_type: 'authorization_code', code, code_verifier: verifier, client_id: 'pctl', redirect_uri: redirectUri })).json() as Record<string, string>;
  t.truthy(codeTokens.access_token, JSON.stringify(codeTokens));
  secrets.set('code_verifier', verifier).set('access_token', codeTokens.access_token!).set('id_token', codeTokens.id_token!);
  // The console's own page, as the browser comes back to it with the code in its URL.
  t.is((await fetch(`${srv.url}/?code=${encodeURIComponent(code)}&state=console-state-secret`)).status, 200);
  secrets.set('console state', 'console-state-secret');

  // A cancelled sign-in sends the state back too.
  page = await a.go(authorize);
  page = await a.go(`${srv.url}/oauth/authorize`, { csrf: csrfOf(page.html), step: 'pick', action: 'deny' });
  t.is(new URL(page.headers.get('location')!).searchParams.get('error'), 'access_denied');

  // Invites and identity providers: the code and the client secret.
  const invite = await srv.ok('POST', '/iam/v2/groupInvites', { parent: srv.organizationUid, groupInvite: { roleUid: await srv.roleUid('viewer'), ttl: '3600s' } });
  secrets.set('invite code', invite.code);
  t.is((await srv.call('POST', '/iam/v2/groupInvites:redeem', { code: invite.code })).status, 200);
  await srv.ok('POST', '/iam/v2/identityProviders', {
    parent: srv.organizationUid,
    identityProvider: { name: 'idp', defaultRole: await srv.roleUid('viewer'), oidc: { issuer: 'https://idp.example', clientId: 'c', clientSecret: 'idp-client-secret-value' } },
  });
  secrets.set('client secret', 'idp-client-secret-value');
  // A token sent where it does not belong: in the query, and in a body field.
  await request(srv.url, 'GET', `/iam/v2/groups?access_token=${deviceTokens.access_token}`);
  secrets.set('owner token', srv.ownerToken);

  const journal = await srv.call('GET', '/_pctl/requests');
  t.is(journal.status, 200);
  const pctl = cli({ PCTL_API_URL: srv.url, PCTL_TOKEN: srv.ownerToken, PCTL_CONFIG_DIR: tempDir('pctl-cfg-'), PCTL_DEBUG: 'api' });
  t.teardown(() => closeAgent());
  const viaCli = await pctl(['serve', 'requests', '-o', 'json']);
  t.is(viaCli.code, 0, viaCli.stderr);
  const records = { journal: journal.text, '--log': logged.join('\n'), 'pctl serve requests': viaCli.stdout, 'its --debug trace': viaCli.stderr };
  for (const [where, text] of Object.entries(records)) {
    for (const [what, value] of secrets) t.false(text.includes(value), `the ${what} (${value}) is in ${where}`);
  }
  // What is masked is still there to see, masked.
  const entries = journal.json.requests as { path: string; requestBody?: string; responseBody?: string }[];
  const deviceAnswer = entries.find((e) => e.path === '/oauth/device_authorization')!;
  t.like(JSON.parse(deviceAnswer.responseBody!), { device_code: '***', user_code: '***', verification_uri: `${srv.url}/oauth/device`, verification_uri_complete: `${srv.url}/oauth/device?user_code=***`, expires_in: 600 });
  t.truthy(entries.find((e) => e.path === '/oauth/device?user_code=***'));
  t.truthy(entries.find((e) => e.requestBody === 'step=code&user_code=***&action=allow'));
  t.truthy(entries.find((e) => e.responseBody?.includes('&#38;code=***')), 'the redirect page, its code masked');
  t.truthy(entries.find((e) => e.path === '/?code=***&state=***'));
});

test('masking goes by structure: field and parameter names in any spelling or encoding, URLs inside values, declared page values', (t) => {
  t.deepEqual(maskJson({ device_code: 'd', userCode: 'u', nested: [{ client_secret: 's', Code: 'c' }], code: 3, note: 'see http://h/p?state=x&y=1' }), {
    device_code: '***', userCode: '***', nested: [{ client_secret: '***', Code: '***' }], code: 3, note: 'see http://h/p?state=***&y=1',
  });
  t.is(redactText('{"\\u0063ode":"escaped-key"}'), '{"code":"***"}', 'an escaped key is the same key');
  t.is(redactText('{"a":{"__proto__":{"token":"t"}}}'), '{"a":{"__proto__":{"token":"***"}}}');
  t.is(redactText('grant_type=urn%3Aietf&device_code=dc&client_id=pctl'), 'grant_type=urn%3Aietf&device_code=***&client_id=pctl');
  t.is(redactText('csrf=abc&st%61te=xyz'), 'csrf=***&state=***');
  t.is(redactUrl('/oauth/device?user_code=WDJB-MJHT'), '/oauth/device?user_code=***');
  t.is(redactUrl('/oauth/device?User_Code=WDJB-MJHT&x=1'), '/oauth/device?User_Code=***&x=1');
  t.is(redactUrl('/iam/v2/groups?page_token=abc&filter=a%3Db'), '/iam/v2/groups?page_token=abc&filter=a%3Db', 'a page token is no secret');
  t.is(maskValues('<a href="http://127.0.0.1:9/cb?from=pctl&#38;code=c0de&#38;state=s">', ['c0de', 's'].filter((v) => v.length > 1)), '<a href="http://127.0.0.1:9/cb?from=pctl&#38;code=***&#38;state=s">');
  const deep = JSON.stringify(Array.from({ length: 150 }).reduce<unknown>((v) => [v], 'x'));
  t.notThrows(() => redactText(deep));
  t.regex(redactText(deep), /not shown/);
});

// The console at `/`, end to end in headless Chromium (driven by playwright-core): signing in
// through serve's own issuer (owner token, identity, approve), the group tree from the demo
// data, a group made with the CLI appearing live, an injected fault marked in the journal,
// text from the API shown as text (an XSS attempt), a failing webhook's deliveries beside the
// journal, and a non-owner's narrower view. The page files and headers are checked without a
// browser too.
import test, { type ExecutionContext } from 'ava';
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { closeAgent } from '../src/client/http.js';
import { demoSeed } from '../src/server/data/demo.js';
import { browser, csrfOf } from './helpers/browser.js';
import { cli, mustSucceed } from './helpers/cli.js';
import { startReceiver } from './helpers/receiver.js';
import { request, startTestServer, tempDir, type TestServer } from './helpers/serve.js';
import { testNeeding } from './helpers/tools.js';

/** Without the background-networking flags Chromium dials out at start, and this machine's closed network refuses it. */
const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];
/** `PCTL_UPDATE_SCREENSHOT=1 npx ava test/console.test.ts` rewrites the README's picture. */
const SCREENSHOT = 'docs/console.png';

let srv: TestServer;
test.before(async () => {
  srv = await startTestServer({ seed: demoSeed() });
});
test.after.always(async () => {
  await closeAgent();
  await srv?.dispose();
});

/** One Chromium for the file (each launch costs ~2 CPU-s), started by the first test that needs it. */
let chromiumBrowser: Promise<Browser> | undefined;
test.after.always(async () => {
  if (chromiumBrowser) await (await chromiumBrowser).close();
});

/** A fresh browser context (no cookies or storage from another test), closed after the test. */
async function openBrowser(t: ExecutionContext): Promise<{ page: Page; problems: string[] }> {
  chromiumBrowser ??= chromium.launch({
    executablePath: spawnSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).stdout.trim(),
    args: CHROMIUM_ARGS,
  });
  const context = await (await chromiumBrowser).newContext({ viewport: { width: 1280, height: 820 } });
  t.teardown(() => context.close());
  const page = await context.newPage();
  // Generous for a loaded machine; a step that never happens still fails with its selector named.
  page.setDefaultTimeout(45_000);
  // Script errors and CSP violations (Chromium reports both on the console) fail the test.
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console: ${msg.text()}`);
  });
  return { page, problems };
}

/** From the console's sign-in button through serve's sign-in pages (owner token, identity, approve) back to the console. */
async function signIn(t: ExecutionContext, page: Page, identityUid: string, server: TestServer = srv): Promise<void> {
  await page.goto(`${server.url}/`);
  await page.click('#sign-in-button');
  await page.waitForURL(/\/oauth\/authorize\?/);
  const authorize = new URL(page.url());
  t.is(authorize.searchParams.get('redirect_uri'), `${server.url}/`, 'the console is its own redirect URI');
  t.is(authorize.searchParams.get('code_challenge_method'), 'S256');
  await page.fill('textarea[name="owner_token"]', server.ownerToken);
  await page.click('button[value="allow"]');
  await page.check(`input[name="identity"][value="${identityUid}"]`);
  t.regex(await page.textContent('body') ?? '', /console of this server/, 'the identity page names the console');
  await page.click('button[value="allow"]');
  await page.waitForURL(`${server.url}/`);
  await page.locator('#who-name').waitFor();
}

const group = (page: Page, name: string) => page.locator(`#tree li.group[data-name="${name}"]`);

testNeeding(['chromium'], 'console: sign in as the owner, the tree, a group from the CLI appears, a fault is marked, API text stays text', async (t) => {
  const { page, problems } = await openBrowser(t);
  const first = await page.goto(`${srv.url}/`);
  t.is(first?.status(), 200);
  t.regex(first?.headers()['content-security-policy'] ?? '', /script-src 'self'.*require-trusted-types-for 'script'/);
  await page.locator('#sign-in-button').waitFor();

  await signIn(t, page, srv.ownerIdentityUid);
  t.is(page.url(), `${srv.url}/`, 'the code is gone from the address bar');
  t.is(await page.textContent('#who-name'), 'owner');
  t.truthy(await page.evaluate("sessionStorage.getItem('pctl.console.token')"), 'the token is kept in sessionStorage');
  t.is(await page.evaluate('localStorage.length'), 0, 'and nowhere that outlives the tab');

  // The demo tree: the organization at the root, nested groups, and each kind below a group.
  await group(page, 'acme').waitFor();
  t.is(await page.locator('#tree > li.group').count(), 1, 'one root: the organization');
  const ci = group(page, 'ci');
  await ci.locator('li.identity', { hasText: 'deployer' }).waitFor();
  t.true(await group(page, 'platform').locator('li.group[data-name="ci"]').isVisible(), 'ci is nested in platform');
  t.regex(await ci.locator('li.binding').first().textContent() ?? '', /(deployer|pr-builder)\s*(editor|viewer)/);
  const kubectl = ci.locator('li.repo', { hasText: 'kubectl' });
  t.true((await kubectl.locator('.tag').count()) > 3, 'a repo shows its tags');
  t.true((await kubectl.locator('.tag.deprecated').count()) > 0, 'deprecated tags are marked');
  t.regex(await page.textContent('#tree-summary') ?? '', /\d+ groups · \d+ identities · \d+ role bindings · 22 repos · \d+ tags/);
  // The journal shows the console's own calls as the owner.
  await page.locator('#journal-rows tr[data-seq]', { hasText: '/iam/v2/groups' }).first().waitFor();

  // A group made with the CLI shows up without a reload: the journal's write triggers a refresh.
  const pctl = cli({ PCTL_API_URL: srv.url, PCTL_TOKEN: srv.ownerToken, PCTL_CONFIG_DIR: tempDir('pctl-cfg-') });
  await mustSucceed(pctl, ['groups', 'create', 'made-by-cli', '--parent', srv.organizationUid, '--description', 'created while the console watched']);
  await group(page, 'made-by-cli').waitFor();
  await page.locator('#journal-rows tr[data-seq]', { hasText: 'POST' }).filter({ hasText: '/iam/v2/groups' }).waitFor();

  // A fault rule, met by a call: its journal entry is marked with the rule and its effect.
  const rule = await srv.ok('POST', '/_pctl/faults', { method: 'GET', path: '/iam/v2/roles', effect: 'error', code: 14 });
  t.teardown(() => srv.call('DELETE', '/_pctl/faults'));
  t.is((await srv.call('GET', '/iam/v2/roles')).status, 503);
  const faulted = page.locator(`#journal-rows tr.fault[data-fault="${rule.id}"]`);
  await faulted.waitFor();
  t.regex(await faulted.textContent() ?? '', new RegExp(`/iam/v2/roles.*503.*${rule.id} error`));
  t.is(await page.locator('#journal-rows tr.fault').count(), 1, 'only the faulted call is marked');

  if (process.env.PCTL_UPDATE_SCREENSHOT) {
    mkdirSync('docs', { recursive: true });
    await page.screenshot({ path: SCREENSHOT });
  }

  // Its bodies, one click away: the error the fault answered with.
  await faulted.click();
  t.regex(await page.locator('#journal-rows tr.bodies').textContent() ?? '', /INJECTED_FAULT/);
  await faulted.click();
  t.is(await page.locator('#journal-rows tr.bodies').count(), 0);

  // Names and descriptions are shown as text: markup in them is neither parsed nor run.
  const attack = '<img src=x onerror="window.pwned=1"><script>window.pwned=2</script>';
  await srv.ok('POST', '/iam/v2/groups', { parent: srv.organizationUid, group: { name: 'xss', description: attack } });
  await srv.ok('POST', '/iam/v2/identities', { parent: srv.organizationUid, identity: { name: attack, claimMatch: { issuer: 'https://example.com', subject: 'xss' } } });
  const xss = group(page, 'xss');
  await xss.waitFor();
  await group(page, 'acme').locator('li.identity', { hasText: '<script>' }).first().waitFor();
  t.is(await xss.locator('summary .desc').textContent(), `— ${attack}`);
  t.is(await page.locator('#tree img, #tree script, #journal img, #journal script').count(), 0);
  t.is(await page.evaluate('window.pwned'), undefined);

  t.deepEqual(problems, [], 'no script error, no CSP violation');
}, { serial: true });

testNeeding(['chromium'], 'console: a webhook whose sink answers 500 shows its deliveries beside the journal, newest first, failed ones marked', async (t) => {
  // Its own serve, with retries in milliseconds: a delivery fails for good without a wait.
  const server = await startTestServer({ eventRetry: { baseMs: 5, maxDelayMs: 20, attempts: 3 } });
  t.teardown(() => server.dispose());
  const rx = await startReceiver({ issuer: server.url, group: server.organizationUid, answer: () => 500 });
  t.teardown(() => rx.close());
  const { page, problems } = await openBrowser(t);
  await signIn(t, page, server.ownerIdentityUid, server);
  await page.locator('#deliveries-note', { hasText: 'No deliveries yet' }).waitFor();

  const sub = await server.ok('POST', '/events/v2/subscriptions', { parent: server.organizationUid, subscription: { sink: rx.url } });
  t.teardown(() => server.call('DELETE', `/events/v2/subscriptions/${sub.uid}`));
  const made = await server.ok('POST', '/iam/v2/groups', { parent: server.organizationUid, group: { name: 'watched' } });

  // The group's created event, tried three times, answered 500 each time: failed, and marked so.
  const failed = page.locator('#deliveries-rows tr[data-state="failed"]', { hasText: 'iam.group.created.v1' });
  await failed.waitFor();
  t.regex(await failed.textContent() ?? '', new RegExp(`…${made.uid.slice(-8)}.*${rx.url}.*failed\\s*3\\s*500`));
  t.is(await failed.getAttribute('class'), 'fault failed');
  t.regex(await failed.locator('td.status').getAttribute('title') ?? '', /500/, 'the last error is in the tooltip');
  // Newest first: the subscription's own created event came before the group's.
  await page.locator('#deliveries-rows tr[data-state="failed"]', { hasText: 'events.subscription.created.v1' }).waitFor();
  t.deepEqual(await page.locator('#deliveries-rows tr').evaluateAll((rows) => rows.map((r) => r.querySelector('td.type')?.textContent)),
    ['iam.group.created.v1', 'events.subscription.created.v1']);
  t.true(await page.locator('#deliveries-note').isHidden());
  t.true(rx.received.every((r) => r.status === 500), 'the sink answered every attempt with 500');
  t.deepEqual(problems, [], 'no script error, no CSP violation');
}, { serial: true });

testNeeding(['chromium'], 'console: a non-owner sees the part of the tree it may see, and a note instead of the journal', async (t) => {
  const platform = (await srv.ok('GET', '/iam/v2/groups?name=platform')).groups[0].uid as string;
  const auditor = await srv.person('auditor', 'viewer', platform);
  const { page, problems } = await openBrowser(t);
  await signIn(t, page, auditor.id.uid);
  t.is(await page.textContent('#who-name'), 'auditor');

  await group(page, 'platform').waitFor();
  t.deepEqual(await page.locator('#tree > li.group').evaluateAll((els) => els.map((e) => e.getAttribute('data-name'))), ['platform'], 'platform is the root of what it sees');
  await group(page, 'ci').locator('li.repo', { hasText: 'kubectl' }).waitFor();
  t.is(await group(page, 'acme').count(), 0);
  t.is(await group(page, 'security').count(), 0, 'nor a sibling of platform');

  const note = page.locator('#journal-note');
  await note.waitFor();
  t.regex(await note.textContent() ?? '', /journal is for the owner/);
  t.true(await page.locator('#journal').isHidden());
  t.true(await page.locator('#deliveries-panel').isHidden(), 'nor the delivery log');
  // Without the journal, Refresh is how changes come in.
  await srv.ok('POST', '/iam/v2/groups', { parent: platform, group: { name: 'seen-after-refresh' } });
  await page.click('#refresh');
  await group(page, 'platform').locator('li.group[data-name="seen-after-refresh"]').waitFor();
  // The refused journal read is the one failed request.
  t.deepEqual(problems.filter((p) => !/status of 403/.test(p)), []);
}, { serial: true });

test('the console files are served without a token, with a strict CSP; the API still needs one', async (t) => {
  const page = await request(srv.url, 'GET', '/');
  t.is(page.status, 200);
  t.regex(page.headers.get('content-type')!, /^text\/html/);
  const csp = page.headers.get('content-security-policy')!;
  for (const directive of ["default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "frame-ancestors 'none'", "trusted-types 'none'"]) {
    t.true(csp.includes(directive), directive);
  }
  t.false(/unsafe-inline|unsafe-eval|https?:/.test(csp), 'nothing inline, nothing from elsewhere');
  t.is(page.headers.get('x-frame-options'), 'DENY');
  t.is(page.headers.get('referrer-policy'), 'no-referrer');
  t.false(/<script>|<style>|\son[a-z]+=|style="|https?:\/\//i.test(page.text), 'no inline script or style, no external resource');
  for (const [path, type] of [['/console/console.js', /^text\/javascript/], ['/console/console.css', /^text\/css/], ['/console/icon.svg', /^image\/svg\+xml/]] as const) {
    const res = await request(srv.url, 'GET', path);
    t.is(res.status, 200, path);
    t.regex(res.headers.get('content-type')!, type, path);
    t.is(res.headers.get('x-content-type-options'), 'nosniff', path);
  }
  t.is((await request(srv.url, 'GET', '/console/other.js')).status, 401, 'nothing else is public');
  t.is((await request(srv.url, 'GET', '/iam/v2/groups')).status, 401);
});

test('the sign-in page calls a redirect to / of this very server the console, and names any other client by its host', async (t) => {
  const params = (redirectUri: string) => new URLSearchParams({
    response_type: 'code', client_id: 'pctl', redirect_uri: redirectUri, state: 's', code_challenge: 'a'.repeat(43), code_challenge_method: 'S256',
  });
  const pickText = async (redirectUri: string) => {
    const b = browser();
    const owner = await b.go(`${srv.url}/oauth/authorize?${params(redirectUri).toString()}`);
    const pick = await b.go(`${srv.url}/oauth/authorize`, { csrf: csrfOf(owner.html), step: 'owner', owner_token: srv.ownerToken });
    return pick.html;
  };
  t.regex(await pickText(`${srv.url}/`), /console of this server/);
  const port = new URL(srv.url).port;
  for (const other of [`http://127.0.0.1:${Number(port) + 1}/`, `${srv.url}/callback`, `${srv.url}/?next=x`, `http://localhost:${port}/`]) {
    const html = await pickText(other);
    t.false(html.includes('console'), other);
    t.true(html.includes(new URL(other).host), other);
  }
});

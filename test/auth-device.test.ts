// `pctl auth login --device` end to end (RFC 8628): the real CLI runs in-process against a real
// serve and polls its token endpoint while a headless HTTP client plays the person at the
// verification page (user code, owner token, identity, approve or deny). serve and the CLI
// share one injected time: the CLI's sleeps are events the test answers by moving that time,
// so polling intervals, slow_down and expiry are tested without waiting for the clock.
// Then the protocol itself: every answer of the device authorization and token endpoints.
import test from 'ava';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../src/cli/main.js';
import type { Clock } from '../src/cli/context.js';
import { closeAgent } from '../src/client/http.js';
import { browser, csrfOf } from './helpers/browser.js';
import { captureIO, cli, type RunResult } from './helpers/cli.js';
import { request, startTestServer, tempDir, type TestServer } from './helpers/serve.js';
import { manualDeadline, noDeadline, stub } from './helpers/stub.js';

const I = '/iam/v2/identities';
const RB = '/iam/v2/roleBindings';
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
/** XXXX-XXXX from consonants only: no vowels, no I or O. */
const USER_CODE = /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/;

// The tests that run the CLI in-process are serial: each main() owns the process's HTTP agent.
test.after.always(async () => {
  await closeAgent();
});

// ---- one time for serve and the CLI ----

interface Nap {
  /** How long the CLI asked to sleep. */
  ms: number;
  /** Ends the sleep, time having moved on by `advanceMs` (default: what was asked). */
  wake(advanceMs?: number): void;
}

/**
 * The time serve and the CLI share. serve reads `now()`; the CLI's clock reads it too, and
 * its sleep() is an event: nap() resolves when the CLI sleeps, and the test wakes it,
 * moving the time on. No request has a real deadline (noDeadline): ava's timeout is the bound.
 */
function manualTime(start = Date.now()) {
  let now = start;
  const unclaimed: Nap[] = [];
  const waiting: ((nap: Nap) => void)[] = [];
  const asked: number[] = [];
  const clock: Clock = {
    now: () => new Date(now),
    sleep: (ms) =>
      new Promise<void>((done) => {
        asked.push(ms);
        const nap: Nap = {
          ms,
          wake: (advanceMs = ms) => {
            now += advanceMs;
            done();
          },
        };
        const w = waiting.shift();
        if (w) w(nap);
        else unclaimed.push(nap);
      }),
    deadline: noDeadline,
  };
  return {
    clock,
    now: () => now,
    advance: (ms: number) => void (now += ms),
    /** Every sleep the CLI asked for, in milliseconds. */
    asked,
    nap: (): Promise<Nap> => (unclaimed.length ? Promise.resolve(unclaimed.shift()!) : new Promise<Nap>((r) => waiting.push(r))),
  };
}

type Time = ReturnType<typeof manualTime>;

interface Fixture {
  srv: TestServer;
  time: Time;
  alice: { uid: string; name: string };
  outsider: { uid: string };
}

/** A serve on the shared time (offset by `serverSkew()` when given), alice (a viewer) and an identity of another issuer. */
async function setup(serverSkew: () => number = () => 0): Promise<Fixture> {
  const time = manualTime();
  const srv = await startTestServer({ clock: () => time.now() + serverSkew() });
  const post = async (path: string, body: unknown) => {
    const res = await srv.call('POST', path, body);
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.text}`);
    return res.json;
  };
  const alice = await post(I, { parent: srv.organizationUid, identity: { name: 'alice', claimMatch: { issuer: srv.url, subject: 'alice' } } });
  await post(RB, { parent: srv.organizationUid, roleBinding: { identityUid: alice.uid, roleUid: await srv.roleUid('viewer') } });
  const outsider = await post(I, {
    parent: srv.organizationUid,
    identity: { name: 'ci-bot', claimMatch: { issuer: 'https://token.actions.githubusercontent.com', subject: 'repo:acme/app' } },
  });
  return { srv, time, alice, outsider };
}

interface Shown {
  verificationUri: string;
  userCode: string;
  verificationUriComplete: string;
}

/** Starts `pctl auth login --device` in-process on `clock`; `shown` resolves with what it prints for the person. */
function startDeviceLogin(argv: string[], env: Record<string, string>, clock: Clock) {
  const { io, out, err, untilErr } = captureIO();
  const done: Promise<RunResult> = (async () => {
    const started = performance.now();
    const code = await main(argv, { io, env, clock });
    return { code, stdout: out(), stderr: err(), ms: performance.now() - started };
  })();
  const ended = () => done.then((r) => Promise.reject(new Error(`login ended (exit ${r.code}): ${r.stderr}`)));
  const shown: Promise<Shown> = Promise.race([
    untilErr(/open this URL in a browser on any device:\n\n {2}(\S+)\n\nand enter the code:\n\n {2}(\S+)\n\nOr open this URL, which holds the code[^\n]*\n\n {2}(\S+)\n/).then(
      (m) => ({ verificationUri: m[1]!, userCode: m[2]!, verificationUriComplete: m[3]! }),
    ),
    ended(),
  ]);
  shown.catch(() => undefined); // a test that never asks for it must not see an unhandled rejection
  /** The CLI's next sleep; fails the test at once if the login ends instead. */
  const nap = (time: Time) => Promise.race([time.nap(), ended()]);
  return { done, shown, nap, err };
}

/** The person at the verification page: enters the code, proves the owner token, then approves as `identityUid` or denies. */
async function person(srv: TestServer, typed: string, answer: { identityUid: string } | 'deny', b = browser()) {
  const entry = await b.go(`${srv.url}/oauth/device`);
  if (entry.status !== 200) throw new Error(`verification page: ${entry.status}`);
  let page = await b.go(`${srv.url}/oauth/device`, { step: 'code', user_code: typed, action: 'allow' });
  if (page.status !== 200) throw new Error(`code step: ${page.status} ${page.html}`);
  const csrf = csrfOf(page.html);
  if (page.html.includes('name="owner_token"')) {
    page = await b.go(`${srv.url}/oauth/device`, { csrf, step: 'owner', owner_token: srv.ownerToken });
    if (page.status !== 200) throw new Error(`owner step: ${page.status} ${page.html}`);
  }
  if (answer === 'deny') return b.go(`${srv.url}/oauth/device`, { csrf, step: 'pick', action: 'deny' });
  return b.go(`${srv.url}/oauth/device`, { csrf, step: 'pick', identity: answer.identityUid, action: 'allow' });
}

const form = (base: string, path: string, fields: Record<string, string>) =>
  request(base, 'POST', path, new URLSearchParams(fields).toString(), { 'content-type': 'application/x-www-form-urlencoded' });

const re = (s: string) => new RegExp(s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'));

// ---- the CLI against serve ----

test.serial('auth login --device end to end: the code entered elsewhere, approved, the token saved and working', async (t) => {
  const { srv, time, alice } = await setup();
  t.teardown(() => srv.dispose());
  const configDir = tempDir('pctl-device-');
  const env = { PCTL_CONFIG_DIR: configDir };

  const disc = (await request(srv.url, 'GET', '/.well-known/openid-configuration')).json;
  t.is(disc.device_authorization_endpoint, `${srv.url}/oauth/device_authorization`);
  t.true(disc.grant_types_supported.includes(DEVICE_GRANT));
  t.true(disc.grant_types_supported.includes('authorization_code'));

  const login = startDeviceLogin(['--api-url', srv.url, 'auth', 'login', '--device'], env, time.clock);
  const shown = await login.shown;
  t.is(shown.verificationUri, `${srv.url}/oauth/device`);
  t.regex(shown.userCode, USER_CODE);
  t.is(shown.verificationUriComplete, `${srv.url}/oauth/device?user_code=${shown.userCode}`);
  t.regex(login.err(), /Waiting for the sign-in to be approved \(the code expires in 10 minutes; Ctrl-C to give up\)…\n$/);

  // Polls at the server's interval while the sign-in is pending.
  for (let i = 0; i < 2; i++) {
    const nap = await login.nap(time);
    t.is(nap.ms, 5000);
    nap.wake();
  }
  const pending = await login.nap(time);

  // The person opens the complete URL: the code is filled in, and must still be confirmed.
  const b = browser();
  const prefilled = await b.go(shown.verificationUriComplete);
  t.is(prefilled.status, 200);
  t.true(prefilled.html.includes(`value="${shown.userCode}"`));
  t.regex(prefilled.headers.get('content-security-policy')!, /default-src 'none'/);
  t.is(prefilled.headers.get('x-frame-options'), 'DENY');
  t.false(/<script|<link|src="http/i.test(prefilled.html), 'self-contained: no scripts, no external assets');
  // Typed in lower case, without the dash: the same code.
  const approved = await person(srv, shown.userCode.replace('-', ' ').toLowerCase(), { identityUid: alice.uid }, b);
  t.is(approved.status, 200);
  t.regex(approved.html, /signed in as <b>alice<\/b>/);
  pending.wake();

  const result = await login.done;
  t.is(result.code, 0, result.stderr);
  t.regex(result.stderr, new RegExp(`Logged in to ${re(srv.url).source} as alice \\(${re(alice.uid).source}\\); token saved in profile "127\\.0\\.0\\.1", valid until \\d{4}-`));
  t.is(result.stdout, '');
  t.deepEqual(time.asked, [5000, 5000, 5000], 'one poll per interval, no more');

  // Saved exactly as the browser flow saves: URL and token in the profile, made current.
  const saved = JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8'));
  t.is(saved.currentProfile, '127.0.0.1');
  t.is(saved.profiles['127.0.0.1'].apiUrl, srv.url);
  const token = saved.profiles['127.0.0.1'].token as string;
  t.false(result.stderr.includes(token), 'the token is not printed');
  t.like(JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()), { iss: srv.url, sub: 'alice', aud: 'pctl' });

  const pctl = cli(env);
  const status = await pctl(['auth', 'status', '-o', 'json']);
  t.is(status.code, 0, status.stderr);
  t.like(JSON.parse(status.stdout), { profile: '127.0.0.1', apiUrl: srv.url, subject: 'alice', identity: { uid: alice.uid, name: 'alice' }, tokenSource: 'profile' });
  const list = await pctl(['groups', 'list', '-o', 'json']);
  t.is(list.code, 0, list.stderr);
  t.true(Array.isArray(JSON.parse(list.stdout)));
  t.is((await pctl(['groups', 'create', 'nope', '--parent', srv.organizationUid])).code, 4, 'alice is a viewer');

  // The code is spent: the page no longer takes it.
  const again = await b.go(`${srv.url}/oauth/device`, { step: 'code', user_code: shown.userCode });
  t.is(again.status, 400);
  t.regex(again.html, /unknown, expired or already used/);
});

test.serial('slow_down: the CLI waits 5 seconds more for every slow_down', async (t) => {
  const { srv, time, alice } = await setup();
  t.teardown(() => srv.dispose());
  const env = { PCTL_CONFIG_DIR: tempDir('pctl-device-') };
  const login = startDeviceLogin(['--api-url', srv.url, 'auth', 'login', '--device'], env, time.clock);
  const shown = await login.shown;

  (await login.nap(time)).wake(); // first poll at 5 s: pending
  // The next poll comes 4 s after the last one (as if the CLI's clock ran fast): slow_down.
  const early = await login.nap(time);
  t.is(early.ms, 5000);
  early.wake(4000);
  const slowed = await login.nap(time);
  t.is(slowed.ms, 10_000, 'the interval grows by 5 s');
  slowed.wake(); // 10 s after the slow_down: pending, and the interval stays at 10 s
  const steady = await login.nap(time);
  t.is(steady.ms, 10_000);
  // Early once more: another 5 s.
  steady.wake(9000);
  const slower = await login.nap(time);
  t.is(slower.ms, 15_000);

  t.is((await person(srv, shown.userCode, { identityUid: alice.uid })).status, 200);
  slower.wake();
  const result = await login.done;
  t.is(result.code, 0, result.stderr);
  t.deepEqual(time.asked, [5000, 5000, 10_000, 10_000, 15_000]);
});

test.serial('a denied sign-in: exit 4, one error line, nothing saved', async (t) => {
  const { srv, time } = await setup();
  t.teardown(() => srv.dispose());
  const configDir = tempDir('pctl-device-');
  const login = startDeviceLogin(['--api-url', srv.url, 'auth', 'login', '--device'], { PCTL_CONFIG_DIR: configDir }, time.clock);
  const shown = await login.shown;
  const nap = await login.nap(time);
  const denied = await person(srv, shown.userCode, 'deny');
  t.is(denied.status, 200);
  t.regex(denied.html, /Sign-in denied/);
  nap.wake();
  const result = await login.done;
  t.is(result.code, 4);
  t.regex(result.stderr, /\nerror: sign-in failed \(access_denied: the sign-in was denied\); nothing was saved\n$/);
  t.is(result.stderr.match(/^error:/gm)!.length, 1);
  t.false(existsSync(join(configDir, 'config.json')), 'nothing saved');
});

test.serial('expiry: the CLI gives up when the code expires (its own clock, or the server saying expired_token); exit 4, nothing saved', async (t) => {
  let skew = 0;
  const { srv, time } = await setup(() => skew);
  t.teardown(() => srv.dispose());
  const configDir = tempDir('pctl-device-');
  const env = { PCTL_CONFIG_DIR: configDir };
  const expired = /\nerror: the device code expired before the sign-in was approved \(after 10 minutes\); nothing was saved, run pctl auth login --device again\n$/;

  // The CLI's clock passes the code's lifetime: it gives up without another poll.
  const first = startDeviceLogin(['--api-url', srv.url, 'auth', 'login', '--device'], env, time.clock);
  const code1 = (await first.shown).userCode;
  (await first.nap(time)).wake();
  (await first.nap(time)).wake(600_000);
  const r1 = await first.done;
  t.is(r1.code, 4);
  t.regex(r1.stderr, expired);
  // Approving too late: the page refuses the code.
  const late = await browser().go(`${srv.url}/oauth/device`, { step: 'code', user_code: code1 });
  t.is(late.status, 400);
  t.regex(late.html, /unknown, expired or already used/);

  // The server's clock is ahead: it answers expired_token while the CLI still has time.
  const second = startDeviceLogin(['--api-url', srv.url, 'auth', 'login', '--device'], env, time.clock);
  const code2 = (await second.shown).userCode;
  const nap = await second.nap(time);
  skew = 600_000;
  // The person is too late too: an approval does not revive an expired code.
  t.is((await browser().go(`${srv.url}/oauth/device`, { step: 'code', user_code: code2 })).status, 400);
  nap.wake();
  const r2 = await second.done;
  t.is(r2.code, 4);
  t.regex(r2.stderr, expired);
  t.deepEqual(time.asked.slice(-1), [5000], 'one poll, then the server said expired_token');
  t.false(existsSync(join(configDir, 'config.json')), 'nothing saved');
});

test.serial('--device conflicts with --with-token (exit 2, nothing sent); an issuer without a device endpoint is named', async (t) => {
  const nothing = await stub(t, () => undefined, { expectNoRequests: true });
  const pctl = cli({ PCTL_CONFIG_DIR: tempDir('pctl-device-') });
  const both = await pctl(['--api-url', nothing.url, 'auth', 'login', '--device', '--with-token'], { stdin: 'x' });
  t.is(both.code, 2);
  t.regex(both.stderr, /error: option '--device' cannot be used with option '--with-token'/);

  const old = await stub(t, (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ issuer: 'http://x', authorization_endpoint: 'http://x/authorize', token_endpoint: 'http://x/token' }));
  });
  const r = await pctl(['--api-url', old.url, 'auth', 'login', '--device']);
  t.is(r.code, 1);
  t.regex(r.stderr, /^error: the issuer at http:\/\/127\.0\.0\.1:\d+ offers no device sign-in \(no device_authorization_endpoint\): sign in with pctl auth login \(a browser\) or --with-token instead\n$/);
  t.is(old.requests.length, 1, 'only discovery was asked');
});

test.serial('a token endpoint that never answers: each poll meets its deadline, backs off, and the CLI gives up with one error line', async (t) => {
  const time = manualTime();
  const deadline = manualDeadline();
  // Each poll, once its whole body is in (the stub's handler runs then): the event the deadline fires on.
  const polls: string[] = [];
  const pollWaiters = new Map<number, () => void>();
  const polled = (n: number) => new Promise<void>((done) => (polls.length >= n ? done() : pollWaiters.set(n, done)));
  const s = await stub(t, (req, res) => {
    const base = `http://${req.headers.host}`;
    const send = (body: unknown) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.url === '/.well-known/openid-configuration') {
      return send({ issuer: base, token_endpoint: `${base}/oauth/token`, device_authorization_endpoint: `${base}/oauth/device_authorization` });
    }
    if (req.url === '/oauth/device_authorization') {
      return send({ device_code: 'dc', user_code: 'BCDF-GHJK', verification_uri: `${base}/oauth/device`, expires_in: 600, interval: 5 });
    }
    // /oauth/token: no answer, ever.
    polls.push(req.body);
    pollWaiters.get(polls.length)?.();
  });
  const configDir = tempDir('pctl-device-');
  const login = startDeviceLogin(['--api-url', s.url, 'auth', 'login', '--device'], { PCTL_CONFIG_DIR: configDir }, { ...time.clock, deadline: deadline.deadline });
  const first = await login.nap(time);
  t.regex(login.err(), /enter the code:\n\n {2}BCDF-GHJK\n\nWaiting/, 'printed without the complete URL when the server has none');
  first.wake();
  for (let n = 1; ; n++) {
    await polled(n);
    deadline.fire();
    if (n === 4) break;
    (await login.nap(time)).wake();
  }
  const result = await login.done;
  t.is(result.code, 1);
  t.regex(result.stderr, /\nerror: the token request to http:\/\/127\.0\.0\.1:\d+ failed: [^\n]+\n$/);
  t.false(result.stderr.includes('    at '), 'no stack trace');
  t.deepEqual(time.asked, [5000, 10_000, 20_000, 40_000], 'the wait doubles after each failed poll');
  t.deepEqual(s.requests.map((r) => r.url), ['/.well-known/openid-configuration', '/oauth/device_authorization', ...Array(4).fill('/oauth/token')]);
  t.deepEqual(polls, Array(4).fill(`grant_type=${encodeURIComponent(DEVICE_GRANT)}&device_code=dc&client_id=pctl`));
  t.false(existsSync(join(configDir, 'config.json')));
});

test.serial('Ctrl-C while waiting for the approval: exit 130, no stack trace, nothing saved (the built CLI, a real SIGINT)', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.dispose());
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const configDir = tempDir('pctl-device-');
  const child = spawn(process.execPath, [join(root, 'bin/pctl.js'), '--api-url', srv.url, 'auth', 'login', '--device'], {
    cwd: root, env: { ...process.env, PCTL_CONFIG_DIR: configDir },
  });
  t.teardown(() => void child.kill('SIGKILL'));
  let err = '';
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  await new Promise<void>((waiting, failed) => {
    child.stderr.setEncoding('utf8').on('data', (s: string) => {
      err += s;
      if (err.includes('Ctrl-C to give up')) waiting();
    });
    void exited.then((code) => failed(new Error(`pctl exited (${code}) before waiting: ${err}`)));
  });
  child.kill('SIGINT');
  t.is(await exited, 130);
  t.false(err.includes('    at '), 'no stack trace');
  t.false(existsSync(join(configDir, 'config.json')), 'nothing saved');
});

// ---- the protocol ----

test('device authorization endpoint: the codes, the URIs, the interval; only client_id pctl', async (t) => {
  const { srv } = await setup();
  t.teardown(() => srv.dispose());
  const res = await form(srv.url, '/oauth/device_authorization', { client_id: 'pctl', scope: 'openid' });
  t.is(res.status, 200, res.text);
  t.is(res.headers.get('cache-control'), 'no-store');
  t.deepEqual(Object.keys(res.json).sort(), ['device_code', 'expires_in', 'interval', 'user_code', 'verification_uri', 'verification_uri_complete']);
  t.regex(res.json.user_code, USER_CODE);
  t.regex(res.json.device_code, /^[A-Za-z0-9_-]{43}$/);
  t.is(res.json.verification_uri, `${srv.url}/oauth/device`);
  t.is(res.json.verification_uri_complete, `${srv.url}/oauth/device?user_code=${res.json.user_code}`);
  t.is(res.json.expires_in, 600);
  t.is(res.json.interval, 5);
  const other = await form(srv.url, '/oauth/device_authorization', { client_id: 'pctl' });
  t.not(other.json.user_code, res.json.user_code);
  t.not(other.json.device_code, res.json.device_code);

  for (const fields of [{ client_id: 'other' }, {}] as Record<string, string>[]) {
    const bad = await form(srv.url, '/oauth/device_authorization', fields);
    t.is(bad.status, 401);
    t.is(bad.json.error, 'invalid_client');
  }
  // Not a form, not even a body: a clean OAuth error, never a 500.
  t.is((await request(srv.url, 'POST', '/oauth/device_authorization', { client_id: 'pctl' })).json.error, 'invalid_client');
  t.is((await request(srv.url, 'POST', '/oauth/device_authorization')).status, 401);
});

test('token endpoint, device grant: pending, slow_down, approval, single use, RFC 8628 errors', async (t) => {
  const { srv, time, alice } = await setup();
  t.teardown(() => srv.dispose());
  const start = (await form(srv.url, '/oauth/device_authorization', { client_id: 'pctl' })).json;
  const poll = (fields: Record<string, string> = {}) =>
    form(srv.url, '/oauth/token', { grant_type: DEVICE_GRANT, device_code: start.device_code, client_id: 'pctl', ...fields });

  const missing = await form(srv.url, '/oauth/token', { grant_type: DEVICE_GRANT, client_id: 'pctl' });
  t.is(missing.status, 400);
  t.deepEqual(missing.json, { error: 'invalid_request', error_description: 'device_code is required' });
  const unknown = await poll({ device_code: 'made-up' });
  t.is(unknown.json.error, 'invalid_grant');
  t.regex(unknown.json.error_description, /unknown or was already used/);
  t.regex((await poll({ client_id: 'other' })).json.error_description, /another client_id/);

  const first = await poll();
  t.is(first.status, 400);
  t.is(first.headers.get('cache-control'), 'no-store');
  t.deepEqual(Object.keys(first.json).sort(), ['error', 'error_description']);
  t.is(first.json.error, 'authorization_pending');
  time.advance(4999);
  const fast = await poll();
  t.is(fast.json.error, 'slow_down');
  t.regex(fast.json.error_description, /wait 10 seconds/);
  time.advance(5000);
  t.is((await poll()).json.error, 'slow_down', 'the interval is now 10 s: 5 s is still too fast');
  time.advance(15_000);
  t.is((await poll()).json.error, 'authorization_pending', '15 s after the last poll, with an interval of 15 s');

  t.is((await person(srv, start.user_code, { identityUid: alice.uid })).status, 200);
  time.advance(15_000);
  const ok = await poll();
  t.is(ok.status, 200, ok.text);
  t.is(ok.headers.get('cache-control'), 'no-store');
  t.is(ok.json.token_type, 'Bearer');
  t.is(ok.json.expires_in, 8 * 3600);
  for (const jwt of [ok.json.access_token, ok.json.id_token]) {
    t.like(JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString()), { iss: srv.url, sub: 'alice', aud: 'pctl' });
  }
  const works = await request(srv.url, 'GET', '/oauth/userinfo', undefined, { authorization: `Bearer ${ok.json.access_token}` });
  t.deepEqual(works.json, { sub: 'alice', iss: srv.url, identity: { uid: alice.uid, name: 'alice' } });

  // Single use: the device code is spent.
  time.advance(15_000);
  const reused = await poll();
  t.is(reused.status, 400);
  t.is(reused.json.error, 'invalid_grant');
  t.regex(reused.json.error_description, /unknown or was already used/);

  // The token endpoint still refuses other grant types, naming both it takes.
  const other = await form(srv.url, '/oauth/token', { grant_type: 'password' });
  t.is(other.json.error, 'unsupported_grant_type');
  t.regex(other.json.error_description, /authorization_code or urn:ietf:params:oauth:grant-type:device_code/);
  // Not a form: a clean error, never a 500.
  t.is((await request(srv.url, 'POST', '/oauth/token', { grant_type: DEVICE_GRANT, device_code: start.device_code })).json.error, 'unsupported_grant_type');
  t.is((await form(srv.url, '/oauth/token', { grant_type: DEVICE_GRANT, device_code: 'x'.repeat(5000), client_id: 'pctl' })).json.error, 'invalid_grant');
});

test('token endpoint, device grant: access_denied once, then the code is spent; expired_token, then forgotten', async (t) => {
  const { srv, time } = await setup();
  t.teardown(() => srv.dispose());
  const begin = async () => (await form(srv.url, '/oauth/device_authorization', { client_id: 'pctl' })).json;
  const poll = (deviceCode: string) => form(srv.url, '/oauth/token', { grant_type: DEVICE_GRANT, device_code: deviceCode, client_id: 'pctl' });

  const d = await begin();
  t.is((await person(srv, d.user_code, 'deny')).status, 200);
  const denied = await poll(d.device_code);
  t.is(denied.status, 400);
  t.deepEqual(denied.json, { error: 'access_denied', error_description: 'the sign-in was denied' });
  time.advance(5000);
  t.is((await poll(d.device_code)).json.error, 'invalid_grant');

  const e = await begin();
  time.advance(599_999);
  t.is((await poll(e.device_code)).json.error, 'authorization_pending', 'still good just before 600 s');
  time.advance(1);
  const expired = await poll(e.device_code);
  t.is(expired.status, 400);
  t.is(expired.json.error, 'expired_token');
  time.advance(5000);
  t.is((await poll(e.device_code)).json.error, 'expired_token', 'said again to a client that polls once more');
  time.advance(600_000);
  t.is((await poll(e.device_code)).json.error, 'invalid_grant', 'then forgotten');

  // Approved but expired before the client came back: expired_token, no token.
  const f = await begin();
  t.is((await person(srv, f.user_code, { identityUid: srv.ownerIdentityUid })).status, 200);
  time.advance(600_000);
  t.is((await poll(f.device_code)).json.error, 'expired_token');
});

test('verification page: escaping, wrong codes and forms, the owner token, identities of this issuer only, the session', async (t) => {
  const { srv, alice, outsider } = await setup();
  t.teardown(() => srv.dispose());
  const page = `${srv.url}/oauth/device`;
  const start = (await form(srv.url, '/oauth/device_authorization', { client_id: 'pctl' })).json;

  // A prefilled code is escaped; an overlong one too.
  const hostile = await browser().go(`${page}?user_code=${encodeURIComponent('"><script>alert(1)</script>')}`);
  t.is(hostile.status, 200);
  t.false(hostile.html.includes('<script'));
  t.true(hostile.html.includes('&#34;&#62;&#60;script&#62;'));
  t.regex(hostile.html, /Only enter a code that you got from pctl yourself/);

  const b = browser();
  for (const typed of ['', 'WRONG-CODE', 'BBBB-BBBB', '<b>x</b>', '\u00e9'.repeat(100)]) {
    const wrong = await b.go(page, { step: 'code', user_code: typed });
    t.is(wrong.status, 400, typed);
    t.regex(wrong.html, /That code is unknown, expired or already used/);
    t.false(wrong.html.includes('<b>x</b>'));
  }
  const stale = await b.go(page, { csrf: 'made-up', step: 'owner', owner_token: srv.ownerToken });
  t.is(stale.status, 400);
  t.regex(stale.html, /expired or was already used/);
  t.is((await b.go(page, { step: 'nonsense' })).status, 400);

  const owner = await b.go(page, { step: 'code', user_code: start.user_code });
  t.is(owner.status, 200);
  t.regex(owner.html, /name="owner_token"/);
  t.regex(owner.html, /action="\/oauth\/device"/);
  const csrf = csrfOf(owner.html);
  t.is((await b.go(page, { csrf, step: 'pick', identity: alice.uid })).status, 401, 'no picking before the owner token');
  const aliceToken = await srv.issueToken(alice.uid);
  const notOwner = await b.go(page, { csrf, step: 'owner', owner_token: aliceToken });
  t.is(notOwner.status, 401);
  t.regex(notOwner.html, /not the owner token/);
  t.false(notOwner.html.includes(aliceToken));
  t.is(b.jar.size, 0, 'no session for a failed proof');

  const pick = await b.go(page, { csrf, step: 'owner', owner_token: srv.ownerToken });
  t.is(pick.status, 200);
  t.false(pick.html.includes(srv.ownerToken));
  t.true(pick.html.includes(`value="${alice.uid}"`));
  t.false(pick.html.includes(outsider.uid), 'identities of other issuers are not listed');
  t.true(pick.html.includes(start.user_code), 'the picker names the code it approves');
  t.true(b.jar.has('pctl_signin'));
  t.is((await b.go(page, { csrf, step: 'pick', identity: outsider.uid })).status, 400, 'nor can they be posted');
  const done = await b.go(page, { csrf, step: 'pick', identity: alice.uid, action: 'allow' });
  t.is(done.status, 200);
  t.is((await b.go(page, { csrf, step: 'pick', identity: alice.uid, action: 'allow' })).status, 400, 'the form is used up');

  // The browser's session skips the owner token for the next device code.
  const next = (await form(srv.url, '/oauth/device_authorization', { client_id: 'pctl' })).json;
  const second = await b.go(page, { step: 'code', user_code: next.user_code });
  t.is(second.status, 200);
  t.false(second.html.includes('name="owner_token"'), 'proved once: straight to the identity picker');
  t.true(second.html.includes(`value="${alice.uid}"`));
  // The browser flow's sign-in page knows this browser too: one session for both.
  const authorize = new URL(`${srv.url}/oauth/authorize`);
  for (const [k, v] of Object.entries({
    response_type: 'code', client_id: 'pctl', redirect_uri: 'http://127.0.0.1:9/cb', state: 's', code_challenge: 'a'.repeat(43), code_challenge_method: 'S256',
  })) authorize.searchParams.set(k, v);
  const browserFlow = await b.go(authorize.toString());
  t.is(browserFlow.status, 200);
  t.false(browserFlow.html.includes('name="owner_token"'));
  t.regex(browserFlow.html, /on 127\.0\.0\.1:9 will act as/);
});

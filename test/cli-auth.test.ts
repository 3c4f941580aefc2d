// `pctl auth login --with-token`, `auth status|token|logout` without a browser, and the
// expired-token error every command gives ("run pctl auth login", exit 4).
import test from 'ava';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { closeAgent } from '../src/client/http.js';
import { cli } from './helpers/cli.js';
import { startTestServer, tempDir, type TestServer } from './helpers/serve.js';

let srv: TestServer;
/** Moves serve's clock: tokens are minted and checked at Date.now() + offset. */
let offset = 0;
let aliceUid: string;

test.before(async () => {
  srv = await startTestServer({ clock: () => Date.now() + offset });
  const res = await srv.call('POST', '/iam/v2/identities', {
    parent: srv.organizationUid, identity: { name: 'alice', claimMatch: { issuer: srv.url, subject: 'alice' } },
  });
  aliceUid = res.json.uid;
});

test.after.always(async () => {
  await closeAgent();
  await srv?.dispose();
});

function fresh(env: Record<string, string> = {}) {
  const dir = tempDir('pctl-cfg-');
  const profiles = () => JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles as Record<string, { apiUrl: string; token?: string }>;
  return { dir, profiles, pctl: cli({ PCTL_CONFIG_DIR: dir, ...env }) };
}

/** A token of serve's issuer that expired an hour ago. */
async function expiredToken(uid: string): Promise<string> {
  const saved = offset;
  offset = -2 * 3600_000;
  try {
    return await srv.issueToken(uid, 3600);
  } finally {
    offset = saved;
  }
}

test.serial('login --with-token checks the token against the API, then saves it', async (t) => {
  const { pctl, profiles } = fresh();
  const token = await srv.issueToken(aliceUid, 3600);
  const res = await pctl(['--profile', 'ci', '--api-url', srv.url, 'auth', 'login', '--with-token'], { stdin: `${token}\n` });
  t.is(res.code, 0, res.stderr);
  t.regex(res.stderr, new RegExp(`Logged in to .* as alice \\(${aliceUid}\\); token saved in profile "ci", valid until \\d{4}-`));
  t.false(res.stderr.includes(token) || res.stdout.includes(token));
  t.deepEqual(profiles().ci, { apiUrl: srv.url, token });

  const status = await pctl(['auth', 'status', '-o', 'json']);
  t.is(status.code, 0, status.stderr);
  t.like(JSON.parse(status.stdout), { profile: 'ci', subject: 'alice', identity: { uid: aliceUid, name: 'alice' }, tokenSource: 'profile' });
  t.is((await pctl(['auth', 'token'])).stdout, `${token}\n`);
});

test.serial('login --with-token refuses a token the API rejects, an expired one and an empty one; nothing is saved', async (t) => {
  const { pctl, dir } = fresh();
  const bad = await pctl(['--api-url', srv.url, 'auth', 'login', '--with-token'], { stdin: 'not-a-token\n' });
  t.is(bad.code, 4);
  t.regex(bad.stderr, /^error: The bearer token is not a JWT/);
  const forged = (await srv.issueToken(aliceUid, 3600)).slice(0, -4) + 'AAAA';
  const sig = await pctl(['--api-url', srv.url, 'auth', 'login', '--with-token'], { stdin: forged });
  t.is(sig.code, 4);
  t.false(sig.stderr.includes(forged));
  const expired = await pctl(['--api-url', srv.url, 'auth', 'login', '--with-token'], { stdin: await expiredToken(aliceUid) });
  t.is(expired.code, 4);
  t.regex(expired.stderr, /^error: the token read from stdin expired at \d{4}-\d\d-\d\dT[\d:]+Z; get a new one\n$/);
  const empty = await pctl(['--api-url', srv.url, 'auth', 'login', '--with-token'], { stdin: '' });
  t.is(empty.code, 2);
  t.throws(() => readFileSync(join(dir, 'config.json')), undefined, 'no profile was written');
});

test.serial('an expired token in the profile fails every command before sending, with the sign-in hint, exit 4', async (t) => {
  const { pctl } = fresh();
  const token = await expiredToken(aliceUid);
  t.is((await pctl(['--profile', 'old', '--api-url', srv.url, 'auth', 'login', '--with-token'], { stdin: await srv.issueToken(aliceUid) })).code, 0);
  // Replace the saved token by the expired one, as time would.
  t.is((await pctl(['config', 'set', 'old', 'token'], { stdin: token })).code, 0);
  for (const argv of [['groups', 'list'], ['identities', 'get', aliceUid], ['auth', 'status'], ['auth', 'token']]) {
    const res = await pctl(argv);
    t.is(res.code, 4, argv.join(' '));
    t.regex(res.stderr, /^error: the token for profile old expired at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ; run pctl auth login\n$/, argv.join(' '));
    t.is(res.stdout, '');
  }
});

test.serial('an expired PCTL_TOKEN says so and how to fix it', async (t) => {
  const { pctl } = fresh({ PCTL_API_URL: srv.url, PCTL_TOKEN: await expiredToken(aliceUid) });
  const res = await pctl(['groups', 'list']);
  t.is(res.code, 4);
  t.regex(res.stderr, /^error: the token in PCTL_TOKEN expired at [^;]+; get a new one, or unset PCTL_TOKEN and run pctl auth login\n$/);
});

test.serial('PCTL_TOKEN or PCTL_API_URL set but empty is exit 2 with one line, never the saved profile', async (t) => {
  // A profile holding the owner's token: what an empty PCTL_TOKEN used to fall back to.
  const { pctl } = fresh();
  const owner = await srv.issueToken(srv.ownerIdentityUid, 600);
  t.is((await pctl(['--profile', 'owner', '--api-url', srv.url, 'auth', 'login', '--with-token'], { stdin: owner })).code, 0);
  const before = (await srv.call('GET', '/iam/v2/groups?page_size=200')).json.groups.length;
  for (const [name, value] of [['PCTL_TOKEN', ''], ['PCTL_TOKEN', ' \n'], ['PCTL_API_URL', '']] as const) {
    for (const argv of [['groups', 'create', 'made-by-accident', '--parent', srv.organizationUid], ['auth', 'token'], ['auth', 'status']]) {
      const res = await pctl(argv, { env: { [name]: value } });
      t.is(res.code, 2, `${name} ${argv.join(' ')}`);
      t.is(res.stderr, `error: ${name} is set but empty (did the command that set it fail?): give it a value, or unset it to use the profile's\n`);
      t.is(res.stdout, '');
    }
  }
  t.is((await srv.call('GET', '/iam/v2/groups?page_size=200')).json.groups.length, before, 'nothing was created');
  t.is((await pctl(['auth', 'token'])).stdout, `${owner}\n`, 'unset, the profile is used');
});

test.serial('a 401 that says the token expired (the server clock is ahead) gets the same hint', async (t) => {
  const token = await srv.issueToken(aliceUid, 3600);
  const { pctl } = fresh({ PCTL_API_URL: srv.url });
  t.is((await pctl(['auth', 'login', '--with-token'], { stdin: token })).code, 0);
  offset = 2 * 3600_000;
  try {
    const res = await pctl(['groups', 'list']);
    t.is(res.code, 4);
    t.regex(res.stderr, /^error: the token for profile 127\.0\.0\.1 expired; run pctl auth login\n$/);
  } finally {
    offset = 0;
  }
});

test.serial('auth status and auth token when not logged in: exit 4 and a hint', async (t) => {
  const { pctl } = fresh();
  const none = await pctl(['auth', 'status']);
  t.is(none.code, 4);
  t.regex(none.stderr, /^error: not logged in: no profile or API URL is configured; run pctl auth login --api-url URL\n$/);
  const noToken = await pctl(['auth', 'token'], { env: { PCTL_API_URL: srv.url } });
  t.is(noToken.code, 4);
  t.regex(noToken.stderr, /not logged in/);
  t.is((await pctl(['auth', 'logout'])).code, 0, 'logging out when logged out is fine');
  t.is((await pctl(['--profile', 'nope', 'auth', 'logout'])).code, 3);
});

test.serial('auth status with PCTL_TOKEN reports it as the source; a rejected token is exit 4', async (t) => {
  const token = await srv.issueToken(srv.ownerIdentityUid, 600);
  const { pctl } = fresh({ PCTL_API_URL: srv.url, PCTL_TOKEN: token });
  const res = await pctl(['auth', 'status']);
  t.is(res.code, 0, res.stderr);
  t.regex(res.stdout, /Token from: +PCTL_TOKEN/);
  t.regex(res.stdout, /Profile: +\(none\)/);
  t.false(res.stdout.includes(token));
  const other = await srv.issueToken(aliceUid, 600);
  const forged = other.split('.').slice(0, 2).join('.') + '.' + token.split('.')[2];
  const rejected = await pctl(['auth', 'status'], { env: { PCTL_TOKEN: forged } });
  t.is(rejected.code, 4);
  t.regex(rejected.stderr, /signature/);
});

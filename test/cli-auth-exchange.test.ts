// `pctl auth login --identity-token` (how CI signs in, as the vendor's clients do): a workload
// token made by `pctl serve token --as-issuer` exchanged for a pattern identity, `auth status`
// through Validate, the token renewed near its expiry with its refresh token, and the
// refusals, each as the CLI shows it.
import test from 'ava';
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { closeAgent } from '../src/client/http.js';
import { issueTestIssuerToken } from '../src/server/auth/authenticate.js';
import { importSigningKey } from '../src/server/auth/tokens.js';
import { cli } from './helpers/cli.js';
import { signingJwk, startTestServer, storeUnderTest, tempDir, type TestServer } from './helpers/serve.js';

const GH = 'https://token.actions.githubusercontent.com';
const SUBJECT = 'repo:acme/app:ref:refs/heads/main';
// serve token reads a SQLite data dir.
const sqliteTest = storeUnderTest === 'postgres' ? test.skip : test.serial;
let srv: TestServer;
let deployer: string;

test.before(async () => {
  srv = await startTestServer({ trustTestIssuers: true });
  const id = await srv.ok('POST', '/iam/v2/identities', {
    parent: srv.organizationUid,
    identity: { name: 'deployer', claimMatch: { issuer: GH, subjectPattern: 'repo:acme/app:ref:refs/heads/(main|release-.*)', claims: { repository: 'acme/app' } } },
  });
  deployer = id.uid as string;
  await srv.ok('POST', '/iam/v2/roleBindings', { parent: srv.organizationUid, roleBinding: { identityUid: deployer, roleUid: await srv.roleUid('viewer') } });
});

test.after.always(async () => {
  await closeAgent();
  await srv?.dispose();
});

function fresh() {
  const dir = tempDir('pctl-cfg-');
  const file = join(dir, 'config.json');
  const profile = () => (JSON.parse(readFileSync(file, 'utf8')) as { profiles: Record<string, { token?: string; refreshToken?: string }> }).profiles.ci!;
  return { dir, file, profile, pctl: cli({ PCTL_CONFIG_DIR: dir }) };
}

function tokenFile(token: string): string {
  const file = join(tempDir('pctl-id-'), 'token');
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  return file;
}

/** A workload token as `pctl serve token --as-issuer` makes it. */
async function asIssuer(args: string[]): Promise<{ code: number; token: string; stderr: string }> {
  const res = await cli({})(['serve', 'token', '--data', srv.dataDir, '--as-issuer', GH, ...args]);
  return { code: res.code, token: res.stdout.trim(), stderr: res.stderr };
}

sqliteTest('login --identity-token exchanges a workload token for its identity, status goes through Validate, the token is renewed near expiry', async (t) => {
  const made = await asIssuer(['--subject', SUBJECT, '--audience', srv.url, '--claim', 'repository=acme/app']);
  t.is(made.code, 0, made.stderr);
  const { pctl, profile, file } = fresh();
  const login = await pctl(['--profile', 'ci', '--api-url', srv.url, 'auth', 'login', '--identity-token', tokenFile(made.token), '--identity', deployer]);
  t.is(login.code, 0, login.stderr);
  t.regex(login.stderr, new RegExp(`Logged in to ${srv.url} as .*deployer \\(${deployer}\\); token saved in profile "ci"`));
  const saved = profile();
  t.truthy(saved.token);
  t.truthy(saved.refreshToken, 'the refresh token is kept with it');
  t.is(statSync(file).mode & 0o777, 0o600);

  const status = await pctl(['--profile', 'ci', 'auth', 'status', '-o', 'json']);
  t.is(status.code, 0, status.stderr);
  const shown = JSON.parse(status.stdout) as { issuer: string; subject: string; identity: { uid: string } };
  t.is(shown.issuer, srv.url);
  t.is(shown.subject, deployer);
  t.is(shown.identity.uid, deployer);
  t.false(status.stdout.includes(saved.token!), 'never the token');

  // 58 minutes later (the token lives an hour) the next command renews it first.
  const later = { now: () => new Date(Date.now() + 58 * 60_000), sleep: async () => {} };
  const before = readFileSync(file);
  const list = await pctl(['--profile', 'ci', 'groups', 'list', '-o', 'json'], { clock: later });
  t.is(list.code, 0, list.stderr);
  t.not(profile().token, saved.token);
  t.not(profile().refreshToken, saved.refreshToken, 'the refresh token rotated');

  // The profile as it was: its refresh token is spent, so it is refused, and the sign-in revoked.
  writeFileSync(file, before);
  chmodSync(file, 0o600);
  const reused = await pctl(['--profile', 'ci', 'groups', 'list'], { clock: later });
  t.is(reused.code, 4);
  t.regex(reused.stderr, /Could not refresh the token of profile ci: The refresh token was already used/);
  t.regex(reused.stderr, /revoked/);
});

sqliteTest('login --identity-token refusals: a pattern that does not match, an identity whose claimMatch rejects the token, a wrong audience, an expired token, an unknown key', async (t) => {
  const key = await importSigningKey(signingJwk(srv));
  const token = (subject: string, audience = srv.url, now = Date.now(), claims: Record<string, string> = { repository: 'acme/app' }) =>
    issueTestIssuerToken(key, { issuer: GH, subject, audience: [audience], claims, ttlSeconds: 600, now });
  const other = await srv.ok('POST', '/iam/v2/identities', { parent: srv.organizationUid, identity: { name: 'other', claimMatch: { issuer: GH, subject: 'repo:acme/other:ref:refs/heads/main' } } });
  const refusals: [string, Promise<string>, string[], RegExp][] = [
    ['a pattern that does not match', token('repo:acme/app:ref:refs/heads/dev'), [], /No identity accepts this token/],
    ['an assumed identity whose claimMatch rejects the token', token(SUBJECT), ['--identity', other.uid as string], /does not accept this token: its subject .* does not match the identity's subject/],
    ['a claim the identity requires, missing', token(SUBJECT, srv.url, Date.now(), {}), ['--identity', deployer], /its claim repository is not "acme\/app"/],
    ['a token for another audience', token(SUBJECT, 'https://elsewhere.test'), ['--identity', deployer], /audience "https:\/\/elsewhere.test" is none this server answers for/],
    ['an expired token', token(SUBJECT, srv.url, Date.now() - 2 * 3600_000), [], /has expired/],
    ['a token signed by an unknown key', (async () => {
      const { privateKey } = await (await import('jose')).generateKeyPair('ES256');
      const { SignJWT } = await import('jose');
      return new SignJWT({ repository: 'acme/app' }).setProtectedHeader({ alg: 'ES256', kid: key.kid }).setIssuer(GH).setSubject(SUBJECT).setAudience(srv.url)
        .setIssuedAt().setExpirationTime('10m').sign(privateKey);
    })(), [], /signature is not valid/],
  ];
  for (const [what, made, extra, message] of refusals) {
    const { pctl, dir } = fresh();
    const res = await pctl(['--profile', 'ci', '--api-url', srv.url, 'auth', 'login', '--identity-token', tokenFile(await made), ...extra]);
    t.is(res.code, 4, `${what}: ${res.stderr}`);
    t.regex(res.stderr, message, what);
    const config = join(dir, 'config.json');
    t.false(existsSync(config) && readFileSync(config, 'utf8').includes('"ci"'), `${what}: nothing saved`);
  }
  const usage = await fresh().pctl(['--api-url', srv.url, 'auth', 'login', '--identity', deployer]);
  t.is(usage.code, 2);
  t.regex(usage.stderr, /--identity goes with --identity-token/);
});

sqliteTest('logout revokes the sign-in of the refresh token: the token it held is refused from then on', async (t) => {
  const made = await asIssuer(['--subject', SUBJECT, '--audience', srv.url, '--claim', 'repository=acme/app']);
  const { pctl, profile } = fresh();
  t.is((await pctl(['--profile', 'ci', '--api-url', srv.url, 'auth', 'login', '--identity-token', tokenFile(made.token)])).code, 0);
  const { token } = profile();
  const out = await pctl(['--profile', 'ci', 'auth', 'logout']);
  t.is(out.code, 0, out.stderr);
  t.is(profile().refreshToken, undefined);
  const after = await pctl(['auth', 'status'], { env: { PCTL_TOKEN: token!, PCTL_API_URL: srv.url } });
  t.is(after.code, 4);
  t.regex(after.stderr, /revoked/);
});

sqliteTest('serve token --as-issuer refuses what would make it serve\'s own token', async (t) => {
  const own = await cli({})(['serve', 'token', '--data', srv.dataDir, '--as-issuer', srv.url, '--subject', 'x']);
  t.is(own.code, 2);
  t.regex(own.stderr, /is this serve's own issuer/);
  const reserved = await asIssuer(['--subject', 'x', '--claim', 'act={}']);
  t.is(reserved.code, 2);
  t.regex(reserved.stderr, /act is set by serve/);
  const noSubject = await asIssuer([]);
  t.is(noSubject.code, 2);
  t.regex(noSubject.stderr, /--subject: is required with --as-issuer/);
});

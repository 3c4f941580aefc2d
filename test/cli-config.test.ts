// Profiles: `pctl config …`, the file on disk, and how flags > env > profile pick the API.
import test from 'ava';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { closeAgent } from '../src/client/http.js';
import { openConfig, saveProfile } from '../src/config/index.js';
import { cli, lines } from './helpers/cli.js';
import { startTestServer, tempDir, type TestServer } from './helpers/serve.js';

let srv: TestServer;

test.before(async () => {
  srv = await startTestServer();
});

test.after.always(async () => {
  await closeAgent();
  await srv?.dispose();
});

/** A runner with its own empty config dir and no API env. */
function fresh() {
  const dir = tempDir('pctl-cfg-');
  return { dir, pctl: cli({ PCTL_CONFIG_DIR: dir }) };
}

test('set, list, get, use and delete profiles; tokens masked unless asked', async (t) => {
  const { dir, pctl } = fresh();
  t.is((await pctl(['config', 'set', 'prod', 'api-url', 'https://api.example.com/'])).code, 0);
  const tok = await pctl(['config', 'set', 'prod', 'token'], { stdin: 'prod-secret\n' });
  t.is(tok.code, 0, tok.stderr);
  t.is((await pctl(['config', 'set', 'dev', 'api-url', 'http://127.0.0.1:9'])).code, 0);

  const list = await pctl(['config', 'list']);
  t.deepEqual(lines(list.stdout), ['\tdev\thttp://127.0.0.1:9\t', '*\tprod\thttps://api.example.com\t***'], 'the first profile saved became current');
  t.false(list.stdout.includes('prod-secret'));

  const table = await pctl(['config', 'ls', '--no-color'], { tty: true });
  t.regex(lines(table.stdout)[0]!, /^CURRENT +NAME +API URL +TOKEN$/);

  t.deepEqual(JSON.parse((await pctl(['config', 'get', 'prod', '-o', 'json'])).stdout), {
    name: 'prod', apiUrl: 'https://api.example.com', token: '***', current: true,
  });
  t.is((await pctl(['config', 'get', 'prod', 'token'])).stdout, '***\n');
  t.is((await pctl(['config', 'get', 'prod', 'token', '--show-token'])).stdout, 'prod-secret\n');
  t.is((await pctl(['config', 'get', 'prod', 'api-url'])).stdout, 'https://api.example.com\n');
  t.is((await pctl(['config', 'get', 'dev', 'token'])).code, 3, 'dev has no token');

  t.is((await pctl(['config', 'use', 'dev'])).code, 0);
  t.is(JSON.parse((await pctl(['config', 'get', '-o', 'json'])).stdout).name, 'dev', 'get without a name shows the current one');

  // dev is current: deleting it asks first; without a terminal it needs --yes.
  const refused = await pctl(['config', 'delete', 'dev']);
  t.is(refused.code, 2);
  t.regex(refused.stderr, /^error: refusing to delete the current profile "dev" without confirmation: .*pass --yes/);
  const declined = await pctl(['config', 'delete', 'dev'], { tty: true, confirm: false });
  t.is(declined.code, 2);
  t.deepEqual(declined.questions, ['Delete profile "dev", the current profile, and its token?']);
  t.is(lines((await pctl(['config', 'list'])).stdout).length, 2, 'still there after "no"');
  t.is((await pctl(['config', 'delete', 'dev', '--yes'])).code, 0);
  t.is(lines((await pctl(['config', 'list'])).stdout).length, 1);
  t.is((await pctl(['config', 'get'])).code, 3, 'the deleted profile is no longer current');
  t.is((await pctl(['config', 'set', 'spare', 'api-url', 'http://127.0.0.1:9'])).code, 0);
  t.is((await pctl(['config', 'use', 'prod'])).code, 0);
  t.is((await pctl(['config', 'delete', 'spare'])).code, 0, 'a profile that is not current goes without a question');
  t.is((await pctl(['config', 'get'])).code, 0, 'prod is still current');

  const file = join(dir, 'config.json');
  t.is(statSync(file).mode & 0o777, 0o600, 'the file holding tokens is private');
  t.is(JSON.parse(readFileSync(file, 'utf8')).profiles.prod.token, 'prod-secret');
});

test('config errors: unknown profile (3), bad key, URL or name (2), a token as an argument (2)', async (t) => {
  const { pctl } = fresh();
  for (const argv of [['config', 'use', 'nope'], ['config', 'get', 'nope'], ['config', 'delete', 'nope']]) {
    const r = await pctl(argv);
    t.is(r.code, 3, argv.join(' '));
    t.is(r.stderr, 'error: Profile not found: "nope" (see: pctl config list)\n');
  }
  t.is((await pctl(['config', 'set', 'p', 'colour', 'x'])).code, 2);
  t.is((await pctl(['config', 'set', 'p', 'api-url', 'not a url'])).code, 2);
  t.is((await pctl(['config', 'set', '../evil', 'api-url', 'http://x'])).code, 2);
  t.is((await pctl(['config', 'set', 'p', 'token'], { stdin: 't' })).code, 2, 'a profile needs its URL first');
  await pctl(['config', 'set', 'p', 'api-url', 'http://x']);
  const leaked = await pctl(['config', 'set', 'p', 'token', 'secret-in-history']);
  t.is(leaked.code, 2);
  t.regex(leaked.stderr, /pass the token on stdin/);
  t.is((await pctl(['config', 'set', 'p', 'token'], { stdin: '' })).code, 2, 'an empty token is refused');
});

test('the profile serve registers makes `pctl groups list` work with no other setup', async (t) => {
  const { dir, pctl } = fresh();
  saveProfile('local', { apiUrl: srv.url, token: srv.ownerToken }, { makeCurrentIfNone: true, configDir: dir });
  const r = await pctl(['groups', 'list', '-o', 'id']);
  t.is(r.code, 0, r.stderr);
  t.true(lines(r.stdout).includes(srv.organizationUid));

  // A second registration does not steal "current" from a profile the user chose.
  saveProfile('other', { apiUrl: 'http://127.0.0.1:9' }, { configDir: dir });
  await pctl(['config', 'use', 'other']);
  saveProfile('local', { apiUrl: srv.url, token: srv.ownerToken }, { makeCurrentIfNone: true, configDir: dir });
  t.is(openConfig({ configDir: dir }).currentProfileName(), 'other');
});

test('flags > env > profile', async (t) => {
  const { dir, pctl } = fresh();
  saveProfile('good', { apiUrl: srv.url, token: srv.ownerToken }, { configDir: dir });
  saveProfile('dead', { apiUrl: 'http://127.0.0.1:1', token: 'dead-token' }, { makeCurrentIfNone: true, configDir: dir });

  t.is((await pctl(['groups', 'list'])).code, 1, 'the current profile (dead) is used');
  t.is((await pctl(['groups', 'list'], { env: { PCTL_PROFILE: 'good' } })).code, 0, 'PCTL_PROFILE picks another');
  t.is((await pctl(['groups', 'list', '--profile', 'good'])).code, 0, '--profile picks another');
  t.is((await pctl(['groups', 'list', '--profile', 'dead'], { env: { PCTL_PROFILE: 'good' } })).code, 1, '--profile beats PCTL_PROFILE');

  // URL from the flag or env, token from the profile or env.
  t.is((await pctl(['groups', 'list', '--profile', 'good', '--api-url', 'http://127.0.0.1:1'])).code, 1, '--api-url beats the profile');
  t.is((await pctl(['groups', 'list', '--profile', 'good'], { env: { PCTL_API_URL: 'http://127.0.0.1:1' } })).code, 1, 'PCTL_API_URL beats the profile');
  t.is((await pctl(['groups', 'list', '--api-url', srv.url], { env: { PCTL_API_URL: 'http://127.0.0.1:1', PCTL_TOKEN: srv.ownerToken } })).code, 0, '--api-url beats PCTL_API_URL');
  t.is((await pctl(['groups', 'list', '--profile', 'good'], { env: { PCTL_TOKEN: 'wrong' } })).code, 4, 'PCTL_TOKEN beats the profile token');

  const unknown = await pctl(['groups', 'list', '--profile', 'missing']);
  t.is(unknown.code, 3);
  t.regex(unknown.stderr, /^error: Profile not found: "missing"/);
});

test('config set NAME --api-url URL is the flag spelling of api-url URL', async (t) => {
  const { pctl } = fresh();
  t.is((await pctl(['config', 'set', 'staging', '--api-url', 'https://staging.example.com'])).code, 0);
  const got = await pctl(['config', 'get', 'staging', 'api-url']);
  t.is(got.stdout.trim(), 'https://staging.example.com');
  const nothing = await pctl(['config', 'set', 'staging']);
  t.is(nothing.code, 2);
  t.regex(nothing.stderr, /nothing to set/);
});

test('a config file that is not JSON: one line naming it, for a command that reads it and for one that writes it', async (t) => {
  const { dir, pctl } = fresh();
  writeFileSync(join(dir, 'config.json'), '{oops');
  for (const args of [['groups', 'list'], ['config', 'set', 'x', 'api-url', 'http://127.0.0.1:9']]) {
    const r = await pctl(args);
    t.is(r.code, 1, args.join(' '));
    t.is(r.stderr, `error: ${join(dir, 'config.json')} is not valid JSON: fix it, or remove it and save the profiles again\n`);
  }
  t.is(readFileSync(join(dir, 'config.json'), 'utf8'), '{oops', 'left as it was');
});

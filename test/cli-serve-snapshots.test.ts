// `pctl serve snapshot save|list|restore|delete` and `pctl serve reset --live` against a real
// serve, and the offline `pctl serve reset`, which now erases snapshots and keeps the new
// bootstrap as the state a live reset returns to.
import test from 'ava';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { cli, lines, serveWithCli, type RunResult } from './helpers/cli.js';
import { startTestServer, tempDir, type TestServer } from './helpers/serve.js';

let srv: TestServer;
let pctl: ReturnType<typeof cli>;
let stop: () => Promise<void>;

test.before(async () => {
  ({ srv, pctl, stop } = await serveWithCli());
});
test.after.always(() => stop());

const ok = (t: import('ava').ExecutionContext, r: RunResult, what: string) => t.is(r.code, 0, `${what}: ${r.stderr}`);
const groupNames = async () => lines((await pctl(['groups', 'list', '-o', 'json', '--jq', '.[].name'])).stdout).sort();

test.serial('save, list, restore and delete; restore and delete ask first, and a pipe without --yes is refused before anything is sent', async (t) => {
  const saved = await pctl(['serve', 'snapshot', 'save', 'clean']);
  ok(t, saved, 'save');
  t.regex(saved.stdout, /^clean\t\d+\t\d{4}-\d\d-\d\dT[\d:.]+Z\n$/);
  const listed = await pctl(['serve', 'snapshot', 'list', '-o', 'json']);
  ok(t, listed, 'list');
  const [info] = JSON.parse(listed.stdout);
  t.is(info.name, 'clean');
  t.deepEqual(lines((await pctl(['serve', 'snapshots', 'ls', '-o', 'id'])).stdout), ['clean']);

  ok(t, await pctl(['groups', 'create', 'scratch', '--parent', srv.organizationUid]), 'create');
  const refused = await pctl(['serve', 'snapshot', 'restore', 'clean']);
  t.is(refused.code, 2);
  t.regex(refused.stderr, /^error: refusing to restore snapshot clean without confirmation: stdin is not a terminal; pass --yes$/m);
  const declined = await pctl(['serve', 'snapshot', 'restore', 'clean'], { tty: true, confirm: false });
  t.is(declined.code, 2);
  t.deepEqual(declined.questions, ['Replace every resource of the running serve with snapshot clean?']);
  t.true((await groupNames()).includes('scratch'), 'neither restored');

  const restored = await pctl(['serve', 'snapshot', 'restore', 'clean'], { tty: true, confirm: true });
  ok(t, restored, 'restore');
  t.is(restored.stdout, '');
  t.is(restored.stderr, `Restored snapshot clean (saved ${info.createTime}).\n`);
  t.false((await groupNames()).includes('scratch'));

  ok(t, await pctl(['serve', 'snapshot', 'rm', 'clean', '--yes']), 'delete');
  t.is((await pctl(['serve', 'snapshot', 'list'])).stdout, '');
  t.is((await pctl(['serve', 'snapshot', 'delete', 'clean', '--yes'])).code, 3);
});

test.serial('names: a bad one is a usage error (exit 2) sent nowhere; an unknown one exit 3; an existing one exit 1 unless --force', async (t) => {
  // An API URL nothing listens on: a request sent would fail with exit 1, not 2.
  const offline = cli({ PCTL_API_URL: 'http://127.0.0.1:9', PCTL_TOKEN: srv.ownerToken, PCTL_CONFIG_DIR: tempDir('pctl-cfg-') });
  for (const argv of [['save', 'Bad'], ['save', '../x'], ['restore', '.initial', '--yes'], ['delete', 'a b', '--yes']]) {
    const r = await offline(['serve', 'snapshot', ...argv]);
    t.is(r.code, 2, argv.join(' '));
    t.regex(r.stderr, /^error: Invalid argument: name: must match \^\[a-z0-9\]/m);
  }
  const missing = await pctl(['serve', 'snapshot', 'restore', 'never-saved', '--yes']);
  t.is(missing.code, 3);
  t.regex(missing.stderr, /^error: Snapshot not found: never-saved$/m);

  ok(t, await pctl(['serve', 'snapshot', 'save', 'twice']), 'save');
  const again = await pctl(['serve', 'snapshot', 'save', 'twice']);
  t.is(again.code, 1);
  t.regex(again.stderr, /^error: Snapshot twice already exists; overwrite it with --force/m);
  ok(t, await pctl(['serve', 'snapshot', 'save', 'twice', '--force']), 'save --force');
  ok(t, await pctl(['serve', 'snapshot', 'delete', 'twice', '--yes']), 'delete');
});

test.serial('reset --live: back to the bootstrap without a restart, the owner token still good; --data with it is a usage error', async (t) => {
  const before = await groupNames();
  ok(t, await pctl(['groups', 'create', 'temporary', '--parent', srv.organizationUid]), 'create');
  const reset = await pctl(['serve', 'reset', '--live', '--yes']);
  ok(t, reset, 'reset --live');
  t.is(reset.stderr, 'Reset the running serve to the data its data dir was created with.\n');
  t.deepEqual(await groupNames(), before);
  const mixed = await pctl(['serve', 'reset', '--live', '--data', srv.dataDir, '--yes']);
  t.is(mixed.code, 2);
  t.regex(mixed.stderr, /--live resets the running serve of the current profile/);
});

test.serial('another identity than the owner: exit 4 on every snapshot command and on reset --live', async (t) => {
  const admin = await srv.person('snapshot-admin', 'owner', srv.organizationUid);
  const asAdmin = cli({ PCTL_API_URL: srv.url, PCTL_TOKEN: admin.token, PCTL_CONFIG_DIR: tempDir('pctl-cfg-') });
  for (const argv of [['snapshot', 'list'], ['snapshot', 'save', 'mine'], ['snapshot', 'restore', 'mine', '--yes'], ['reset', '--live', '--yes']]) {
    const r = await asAdmin(['serve', ...argv]);
    t.is(r.code, 4, argv.join(' '));
    t.regex(r.stderr, /^error: Permission denied: serve's control endpoints/m);
  }
  await pctl(['serve', 'reset', '--live', '--yes']);
});

test('the offline reset erases snapshots too and keeps its new bootstrap for a live reset', async (t) => {
  const dataDir = tempDir();
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const first = await startTestServer({ dataDir });
  await first.ok('POST', '/_pctl/snapshots', { name: 'old' });
  await first.dispose();

  const offline = cli({ PCTL_CONFIG_DIR: tempDir('pctl-cfg-') });
  const reset = await offline(['serve', 'reset', '--data', dataDir, '--yes']);
  ok(t, reset, 'serve reset');
  t.regex(reset.stderr, /^Erased .* \(its snapshots too\) and bootstrapped it again: organization [0-9a-f]{40};/);
  t.deepEqual(readdirSync(join(dataDir, 'snapshots')), ['.initial.db']);

  const second = await startTestServer({ dataDir });
  t.teardown(() => second.dispose());
  t.not(second.organizationUid, first.organizationUid);
  await second.ok('POST', '/iam/v2/groups', { parent: second.organizationUid, group: { name: 'made-later' } });
  await second.ok('POST', '/_pctl/reset');
  const groups = (await second.ok('GET', '/iam/v2/groups')).groups as { uid: string }[];
  t.deepEqual(groups.map((g) => g.uid), [second.organizationUid]);
  t.false(existsSync(join(dataDir, 'snapshots', 'old.db')));
});

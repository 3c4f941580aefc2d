// `pctl identities …`, `pctl roles …` and `pctl role-bindings …` end to end against a real serve.
import test from 'ava';
import YAML from 'yaml';
import { cli, lines, mustSucceed, serveWithCli } from './helpers/cli.js';
import type { TestServer } from './helpers/serve.js';

let srv: TestServer;
let pctl: ReturnType<typeof cli>;
let stop: () => Promise<void>;
let org: string;

const ISSUER = 'https://token.actions.githubusercontent.com';

test.before(async () => {
  ({ srv, pctl, stop } = await serveWithCli());
  org = srv.organizationUid;
});

test.after.always(() => stop?.());

const ok = (argv: string[]) => mustSucceed(pctl, argv);

const newGroup = async (name: string, parent = org) => (await ok(['groups', 'create', name, '--parent', parent, '-o', 'id'])).trim();

test('identities: create, get, list by group, update with masks, delete', async (t) => {
  const group = await newGroup('id-team');
  const created = JSON.parse(
    await ok(['identities', 'create', 'deployer', '--parent', group, '--issuer', ISSUER, '--subject', 'repo:acme/app:ref:refs/heads/main', '--description', 'CI deploys', '-o', 'json']),
  );
  t.like(created, { name: 'deployer', description: 'CI deploys', claimMatch: { issuer: ISSUER, subject: 'repo:acme/app:ref:refs/heads/main' } });
  t.true(created.uid.startsWith(`${group}/`), 'identities nest under their group');

  t.deepEqual(JSON.parse(await ok(['identities', 'get', created.uid, '-o', 'json'])), created);

  const piped = await ok(['identities', 'list', '--group', group]);
  t.is(piped, `deployer\t${created.uid}\t${ISSUER}\trepo:acme/app:ref:refs/heads/main\n`);
  t.deepEqual(lines(await ok(['identities', 'ls', '--children-of', group, '-o', 'id'])), [created.uid]);
  t.true(lines(await ok(['identities', 'list', '--descendants-of', org, '-o', 'id'])).includes(created.uid));

  const tty = await pctl(['identities', 'list', '--group', group, '--no-color'], { tty: true });
  t.regex(lines(tty.stdout)[0]!, /^NAME +UID +ISSUER +SUBJECT$/);
  t.regex(lines(tty.stdout)[1]!, new RegExp(`^deployer +${created.uid.split('/').pop()} +https://`), 'the uid short on a TTY');

  const r = await pctl(['identities', 'update', created.uid, '--subject', 'repo:acme/app:ref:refs/heads/prod', '--debug', '-o', 'json']);
  t.is(r.code, 0, r.stderr);
  t.regex(r.stderr, /updateMask=claimMatch\.subject\n/);
  const updated = JSON.parse(r.stdout);
  t.deepEqual(updated.claimMatch, { issuer: ISSUER, subject: 'repo:acme/app:ref:refs/heads/prod' }, 'the issuer is kept');
  t.is(updated.description, 'CI deploys');

  const cleared = JSON.parse(await ok(['identities', 'update', created.uid, '--description', '', '--name', 'deployer-2', '-o', 'json']));
  t.like(cleared, { name: 'deployer-2', description: '' });

  t.is((await pctl(['identities', 'delete', created.uid])).code, 2, 'no TTY, no --yes: refused');
  const del = await pctl(['identities', 'rm', created.uid, '-y']);
  t.is(del.code, 0, del.stderr);
  t.is(del.stdout, '');
  t.is((await pctl(['identities', 'get', created.uid])).code, 3);
});

test('identities create needs --parent, --issuer and --subject (exit 2 before any request)', async (t) => {
  const r = await pctl(['identities', 'create', 'x', '--parent', org, '--issuer', ISSUER]);
  t.is(r.code, 2);
  t.is(r.stdout, '');
  t.regex(r.stderr, /^error: required option '--subject <subject>' not specified/);

  // Several missing: all of them at once, not one per try.
  const none = await pctl(['identities', 'create', 'x']);
  t.is(none.code, 2);
  t.is(none.stderr, "error: required options '--parent <group>', '--issuer <url>', '--subject <subject>' not specified\n");

  const bad = await pctl(['identities', 'create', 'x', '--parent', org, '--issuer', 'not a url', '--subject', 's', '--debug']);
  t.is(bad.code, 2);
  t.is(bad.stderr, 'error: Invalid argument: claimMatch.issuer: must be an https URL (http only on a loopback host: 127.0.0.0/8, ::1, localhost)\n');
  t.notRegex(bad.stderr, /> POST/);
});

test('roles: list shows the built-in roles; get takes a uid or a name', async (t) => {
  const all = JSON.parse(await ok(['roles', 'list', '-o', 'json'])) as { uid: string; name: string }[];
  const names = all.map((r) => r.name);
  for (const n of ['owner', 'editor', 'viewer']) t.true(names.includes(n), n);

  const viewer = all.find((r) => r.name === 'viewer')!;
  t.is(JSON.parse(await ok(['roles', 'get', 'viewer', '-o', 'json'])).uid, viewer.uid);
  t.is(JSON.parse(await ok(['roles', 'get', viewer.uid, '-o', 'json'])).name, 'viewer');

  const table = await pctl(['roles', 'list', '--no-color'], { tty: true });
  t.regex(lines(table.stdout)[0]!, /^NAME +UID +DESCRIPTION$/);
  t.true(lines(table.stdout).some((l) => l.startsWith(`viewer   ${viewer.uid} `)), 'a built-in role\'s uid has one segment: shown whole');
  t.is(lines(table.stdout).length, all.length + 1);

  const missing = await pctl(['roles', 'get', 'no-such-role']);
  t.is(missing.code, 3);
  t.regex(missing.stderr, /^error: Role not found: no-such-role/);
});

test('role bindings: create with a role name, list, get, delete', async (t) => {
  const group = await newGroup('rb-team');
  const identity = (await ok(['identities', 'create', 'reader', '--parent', group, '--issuer', ISSUER, '--subject', 'rb-subject', '-o', 'id'])).trim();

  const created = JSON.parse(await ok(['role-bindings', 'create', '--parent', group, '--identity', identity, '--role', 'viewer', '-o', 'json']));
  t.is(created.role.name, 'viewer');
  t.is(created.identity.uid, identity);
  t.is(created.identity.subject, 'rb-subject', 'references come back expanded');
  t.is(created.group.uid, group);

  t.deepEqual(JSON.parse(await ok(['role-bindings', 'get', created.uid, '-o', 'json'])), created);
  t.is(await ok(['role-bindings', 'list', '--group', group]), `viewer\t${created.uid}\treader\trb-team\n`);

  const yaml = YAML.parse(await ok(['role-bindings', 'list', '--descendants-of', org, '-o', 'yaml'])) as { uid: string }[];
  t.true(yaml.some((b) => b.uid === created.uid));

  const tty = await pctl(['role-bindings', 'list', '--group', group, '--no-color'], { tty: true });
  t.regex(lines(tty.stdout)[0]!, /^NAME +UID +IDENTITY +GROUP$/);
  t.regex(lines(tty.stdout)[1]!, new RegExp(`^viewer +${created.uid.split('/').pop()} +reader +rb-team$`));

  const dup = await pctl(['role-bindings', 'create', '--parent', group, '--identity', identity, '--role', 'viewer']);
  t.is(dup.code, 1, 'ALREADY_EXISTS is a failed request');
  t.regex(dup.stderr, /^error: /);

  const badRole = await pctl(['role-bindings', 'create', '--parent', group, '--identity', identity, '--role', 'superuser']);
  t.is(badRole.code, 3);
  t.is(badRole.stdout, '');

  const badIdentity = await pctl(['role-bindings', 'create', '--parent', group, '--identity', `${group}/ffffffffffffffff`, '--role', 'owner']);
  t.is(badIdentity.code, 3);
  t.regex(badIdentity.stderr, /\n {2}identityUid: /, 'the field violation is shown');

  const del = await pctl(['role-bindings', 'delete', created.uid], { tty: true, confirm: true });
  t.is(del.code, 0, del.stderr);
  t.is(del.stdout, '');
  t.is((await pctl(['role-bindings', 'get', created.uid])).code, 3);
});

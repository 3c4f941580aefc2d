// `pctl roles create|update|delete` and `roles list --capabilities`: custom roles end to end.
import test from 'ava';
import { cli, lines, mustSucceed, serveWithCli } from './helpers/cli.js';
import type { TestServer } from './helpers/serve.js';

let srv: TestServer;
let pctl: ReturnType<typeof cli>;
let stop: () => Promise<void>;

test.before(async () => {
  ({ srv, pctl, stop } = await serveWithCli());
});

test.after.always(() => stop?.());

const ok = (argv: string[]) => mustSucceed(pctl, argv);

test('a custom role: create, list with capabilities, update, bind, delete once unbound', async (t) => {
  const group = (await ok(['groups', 'create', 'audit', '--parent', srv.organizationUid, '-o', 'id'])).trim();
  const role = JSON.parse(await ok(['roles', 'create', 'auditor', '--parent', 'audit', '--capability', 'groups.list,identity.list', '--capability', 'groups.list', '-o', 'json']));
  t.true(role.uid.startsWith(`${group}/`), 'a custom role nests under its group');
  t.deepEqual(role.capabilities, ['groups.list', 'identity.list']);

  const table = await pctl(['roles', 'list', '--capabilities', '-o', 'table']);
  t.regex(lines(table.stdout)[0]!, /CAPABILITIES/);
  t.true(lines(table.stdout).some((l) => l.includes('auditor') && l.includes('groups.list,identity.list')));
  t.notRegex(lines((await pctl(['roles', 'list', '-o', 'table'])).stdout)[0]!, /CAPABILITIES/, 'only with --capabilities (or -o wide)');

  const updated = JSON.parse(await ok(['roles', 'update', 'auditor', '--capability', 'groups.list', '--description', 'reads groups', '-o', 'json']));
  t.deepEqual(updated.capabilities, ['groups.list']);
  t.is(updated.description, 'reads groups');
  t.is(updated.name, 'auditor');

  const binding = (await ok(['role-bindings', 'create', '--parent', group, '--identity', srv.ownerIdentityUid, '--role', 'auditor', '-o', 'id'])).trim();
  const inUse = await pctl(['roles', 'delete', 'auditor', '--yes']);
  t.is(inUse.code, 1);
  t.regex(inUse.stderr, /RESOURCE_IN_USE/);
  await ok(['role-bindings', 'delete', binding, '--yes']);
  t.is((await pctl(['roles', 'delete', 'auditor', '--yes'])).code, 0);
  t.is((await pctl(['roles', 'get', role.uid])).code, 3);
});

test('unknown capabilities are a usage error before any request; built-in roles are read-only', async (t) => {
  const bad = await pctl(['roles', 'create', 'x', '--parent', srv.organizationUid, '--capability', 'groups.fly']);
  t.is(bad.code, 2);
  t.regex(lines(bad.stderr)[0]!, /^error: Invalid argument: capabilities\[0\]: "groups.fly" is not a known capability/);
  t.is((await pctl(['roles', 'get', 'x'])).code, 3, 'nothing was created');

  const builtin = await pctl(['roles', 'update', 'viewer', '--description', 'mine now']);
  t.is(builtin.code, 1);
  t.regex(builtin.stderr, /built in/);
  const refused = await pctl(['roles', 'delete', 'viewer']);
  t.is(refused.code, 2, 'no terminal and no --yes');
});

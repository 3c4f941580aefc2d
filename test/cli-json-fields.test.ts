// `--json FIELDS` (as in gh): only the fields asked, as JSON, for lists and single resources;
// alone, the fields of the command's resource; unknown fields and another -o are exit 2
// before any request; the selection comes before --jq.
import test from 'ava';
import { lines, serveWithCli } from './helpers/cli.js';
import type { TestServer } from './helpers/serve.js';
import type { cli } from './helpers/cli.js';

let srv: TestServer;
let pctl: ReturnType<typeof cli>;
let stop: () => Promise<void>;

test.before(async () => {
  ({ srv, pctl, stop } = await serveWithCli());
  await srv.ok('POST', '/iam/v2/groups', { parent: srv.organizationUid, group: { name: 'picked', description: 'not asked for' } });
});
test.after.always(() => stop?.());

test('--json uid,name: each group holds only those fields, in that order; get prints one object', async (t) => {
  const list = await pctl(['groups', 'list', '--json', 'name,uid']);
  t.is(list.code, 0, list.stderr);
  const groups = JSON.parse(list.stdout) as Record<string, string>[];
  t.true(groups.length >= 2);
  for (const g of groups) t.deepEqual(Object.keys(g), ['name', 'uid']);
  const picked = groups.find((g) => g.name === 'picked')!;
  const one = await pctl(['groups', 'get', picked.uid!, '--json', 'description']);
  t.is(one.code, 0, one.stderr);
  t.deepEqual(JSON.parse(one.stdout), { description: 'not asked for' });
});

test('--json with --jq: the selection first, then the filter', async (t) => {
  const r = await pctl(['groups', 'list', '--json', 'name', '--jq', '.[] | keys | join(",")']);
  t.is(r.code, 0, r.stderr);
  t.deepEqual([...new Set(lines(r.stdout))], ['name']);
});

test('--json alone lists the fields; an unknown field or another -o is exit 2, before any request', async (t) => {
  const listed = await pctl(['groups', 'list', '--json']);
  t.is(listed.code, 2);
  t.is(listed.stdout, '');
  t.deepEqual(lines(listed.stderr).map((l) => l.trim()), ['Specify one or more comma-separated fields for --json:', 'uid', 'name', 'description', 'resourceLimits', 'verified', 'kind', 'status', 'createTime', 'updateTime']);
  for (const [argv, message] of [
    [['repos', 'list', '--json', 'name,digest'], /^error: --json: unknown field digest \(available: uid, name, description/],
    [['groups', 'list', '--json', 'name', '-o', 'yaml'], /^error: --json prints JSON: it cannot be combined with -o yaml/],
  ] as const) {
    const r = await pctl([...argv], { env: { PCTL_API_URL: 'http://127.0.0.1:9' } });
    t.is(r.code, 2, r.stderr);
    t.regex(r.stderr, message);
  }
});

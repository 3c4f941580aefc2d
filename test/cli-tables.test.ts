// What a person at a terminal sees: lists sorted by name unless --order-by says otherwise,
// tags in natural order in a table, and tables that fit 80 and 120 columns with short uids.
// The real CLI, in-process, against a real serve on port 0 loaded with a seed.
import test from 'ava';
import stringWidth from 'string-width';
import { closeAgent } from '../src/client/http.js';
import type { SeedDocument } from '../src/server/data/seed.js';
import { cli, lines } from './helpers/cli.js';
import { startTestServer, tempDir, type TestServer } from './helpers/serve.js';

const digest = (i: number) => `sha256:${String(i).repeat(64)}`;
// Seeded out of order; as text they sort 1.16 1.18 1.22 1.9 latest.
const TAGS = ['latest', '1.22', '1.9', '1.16', '1.27-alpine', '1.18', '1.27'];
const NATURAL = ['1.9', '1.16', '1.18', '1.22', '1.27', '1.27-alpine', 'latest'];
const TEAMS = ['kilo', 'alpha', 'echo', 'hotel', 'bravo', 'golf', 'delta', 'charlie'];
const LONG = 'Owns the payment services, their deploy identities and the images they ship, in every region';

const seed: SeedDocument = {
  organizations: [{
    name: 'acme',
    groups: [
      ...TEAMS.map((name) => ({ name, description: `team ${name}` })),
      {
        name: 'platform',
        description: 'プラットフォームチームのグループです。'.repeat(3), // 114 columns
        groups: [{ name: 'payments-backend', description: LONG }],
        repos: [{ name: 'nginx', description: 'web server images', tags: TAGS.map((name, i) => ({ name, digest: digest(i), deprecated: name.startsWith('1.1') })) }],
      },
    ],
  }],
  libraries: [{ name: 'requests', ecosystem: 'PYTHON', versions: [{ version: '2.9.0', updateTime: '2015-12-21T00:00:00Z' }, { version: '2.10.0', updateTime: '2016-04-29T00:00:00Z' }] }],
};

let srv: TestServer;
let pctl: ReturnType<typeof cli>;
const uids: Record<string, string> = {};

test.before(async () => {
  srv = await startTestServer({ seed });
  pctl = cli({ PCTL_API_URL: srv.url, PCTL_TOKEN: srv.ownerToken, PCTL_CONFIG_DIR: tempDir('pctl-cfg-') });
  for (const g of (await srv.ok('GET', '/iam/v2/groups?page_size=200')).groups) uids[g.name] = g.uid;
  for (const r of (await srv.ok('GET', '/registry/v2/repos?page_size=200')).repos) uids[r.name] = r.uid;
});

test.after.always(async () => {
  await closeAgent();
  await srv?.dispose();
});

const last = (uid: string) => uid.slice(uid.lastIndexOf('/') + 1);
const requests = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('> GET '));

// ---- order ----

test('lists are sorted by name unless --order-by is given; --order-by uid gives the API order', async (t) => {
  const teams = ['--children-of', 'acme'];
  const byName = await pctl(['groups', 'list', ...teams, '--debug']);
  t.is(byName.code, 0, byName.stderr);
  t.deepEqual(lines(byName.stdout).map((l) => l.split('\t')[0]), [...TEAMS, 'platform'].sort());
  t.regex(requests(byName.stderr).at(-1)!, /[?&]order_by=name(&|$)/, 'asked of the server, not sorted here');

  const byUid = await pctl(['groups', 'list', ...teams, '--order-by', 'uid', '--debug']);
  const shown = lines(byUid.stdout).map((l) => l.split('\t')[1]!);
  t.deepEqual(shown, [...shown].sort(), 'uid order');
  t.is(shown.length, TEAMS.length + 1);
  t.regex(requests(byUid.stderr).at(-1)!, /[?&]order_by=uid(&|$)/);

  const desc = await pctl(['groups', 'list', ...teams, '--order-by', 'name desc', '-o', 'json']);
  t.deepEqual((JSON.parse(desc.stdout) as { name: string }[]).map((g) => g.name), [...TEAMS, 'platform'].sort().reverse());
});

test('every list command asks for order_by=name, and the server takes it; libraries versions keeps oldest first', async (t) => {
  const commands = [
    ['groups', 'list'], ['identities', 'list'], ['roles', 'list'], ['role-bindings', 'list'], ['identity-providers', 'list'],
    ['invites', 'list', '--group', 'acme'], ['account-associations', 'list'], ['repos', 'list'], ['tags', 'list', '--repo', 'nginx'],
    ['advisories', 'list'], ['libraries', 'list'], ['advisories', 'metadata'],
  ];
  for (const argv of commands) {
    const r = await pctl([...argv, '--debug', '-o', 'json']);
    t.is(r.code, 0, `${argv.join(' ')}: ${r.stderr}`);
    const listing = requests(r.stderr).at(-1)!;
    t.regex(listing, /[?&]order_by=name(&|$)/, argv.join(' '));
  }
  const versions = await pctl(['libraries', 'versions', 'requests', '--debug', '-o', 'json']);
  t.is(versions.code, 0, versions.stderr);
  t.notRegex(requests(versions.stderr).at(-1)!, /order_by/);
  t.deepEqual((JSON.parse(versions.stdout) as { version: string }[]).map((v) => v.version), ['2.9.0', '2.10.0']);
});

// ---- tags: natural order in a table ----

test('tags: a table sorts names naturally (1.9 before 1.16, latest last); a pipe keeps the server order', async (t) => {
  const tty = await pctl(['tags', 'list', '--repo', 'nginx', '--no-color'], { tty: true });
  t.is(tty.code, 0, tty.stderr);
  const [header, ...rows] = lines(tty.stdout);
  t.regex(header!, /^NAME +DIGEST +DEPRECATED +UPDATED$/);
  t.deepEqual(rows.map((l) => l.split(/ +/)[0]), NATURAL);

  const wide = await pctl(['tags', 'list', '--repo', 'nginx', '-o', 'wide']);
  t.deepEqual(lines(wide.stdout).slice(1).map((l) => l.split(/ +/)[0]), NATURAL, '-o wide and -o table in a pipe too');

  const piped = await pctl(['tags', 'list', '--repo', 'nginx']);
  t.deepEqual(lines(piped.stdout).map((l) => l.split('\t')[0]), [...TAGS].sort(), 'a pipe streams the order_by=name order: text');

  const asked = await pctl(['tags', 'list', '--repo', 'nginx', '--order-by', 'name', '--no-color'], { tty: true });
  t.deepEqual(lines(asked.stdout).slice(1).map((l) => l.split(/ +/)[0]), [...TAGS].sort(), 'an explicit --order-by is the server\'s');

  const limited = await pctl(['tags', 'list', '--repo', 'nginx', '--limit', '3', '--no-color'], { tty: true });
  t.deepEqual(lines(limited.stdout).slice(1).map((l) => l.split(/ +/)[0]), NATURAL.slice(0, 3), '--limit takes the first in the order shown');

  const deprecated = await pctl(['tags', 'list', '--repo', 'nginx', '--deprecated', '--limit', '1', '--no-color'], { tty: true });
  t.deepEqual(lines(deprecated.stdout).slice(1).map((l) => l.split(/ +/)[0]), ['1.16']);
});

// ---- fitting the terminal ----

for (const columns of [80, 120]) {
  test(`groups list at ${columns} columns: nothing wraps, NAME first, uids short, descriptions cut with …`, async (t) => {
    const r = await pctl(['groups', 'list', '--descendants-of', 'acme', '--no-color'], { tty: true, columns });
    t.is(r.code, 0, r.stderr);
    const [header, ...rows] = lines(r.stdout);
    t.regex(header!, /^NAME +UID +DESCRIPTION$/);
    for (const l of [header!, ...rows]) t.true(stringWidth(l) <= columns, `${stringWidth(l)} > ${columns}: ${l}`);

    // payments-backend is a depth-2 group: its full uid alone is 74 columns.
    const deep = uids['payments-backend']!;
    t.is(deep.split('/').length, 3);
    const row = rows.find((l) => l.startsWith('payments-backend '))!;
    t.regex(row, new RegExp(`^payments-backend +${last(deep)} +Owns the payment`));
    t.false(row.includes(deep));
    t.is(row.endsWith('…'), LONG.length > columns - row.indexOf('Owns'), row);
    t.is(header!.indexOf('DESCRIPTION'), row.indexOf('Owns'));

    const platform = rows.find((l) => l.startsWith('platform '))!;
    const at = stringWidth(header!.slice(0, header!.indexOf('DESCRIPTION')));
    t.is(stringWidth(platform.slice(0, platform.indexOf('プ'))), at, 'CJK text starts in its column');
    t.true(platform.endsWith('…'), 'and is cut by its screen width');
  });
}

test('a short uid from a table works as a reference, and -o wide shows the full uid', async (t) => {
  const r = await pctl(['groups', 'list', '--descendants-of', 'platform', '--no-color'], { tty: true, columns: 80 });
  const short = lines(r.stdout)[1]!.split(/ {3,}/)[1]!;
  t.is(short, last(uids['payments-backend']!));
  t.is((await pctl(['groups', 'get', short, '-o', 'id'])).stdout, `${uids['payments-backend']}\n`);
  const wide = await pctl(['groups', 'list', '--descendants-of', 'platform', '-o', 'wide', '--no-color'], { tty: true, columns: 200 });
  t.regex(lines(wide.stdout)[1]!, new RegExp(`^payments-backend +${uids['payments-backend']} `));
});

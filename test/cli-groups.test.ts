// `pctl groups …` end to end: the real CLI, in-process, against a real serve on port 0.
import test from 'ava';
import YAML from 'yaml';
import { cli, lines, serveWithCli } from './helpers/cli.js';
import { addGroups, type TestServer } from './helpers/serve.js';

let srv: TestServer;
let pctl: ReturnType<typeof cli>;
let stop: () => Promise<void>;
let org: string;

test.before(async () => {
  ({ srv, pctl, stop } = await serveWithCli());
  org = srv.organizationUid;
});

test.after.always(() => stop?.());

/** Creates a group through the CLI and returns its uid (via `-o id`). */
async function createGroup(name: string, parent = org, extra: string[] = []): Promise<string> {
  const r = await pctl(['groups', 'create', name, '--parent', parent, '-o', 'id', ...extra]);
  if (r.code !== 0) throw new Error(`create ${name} failed: ${r.stderr}`);
  return r.stdout.trim();
}

test('create prints the new group; get fetches it by its nested uid', async (t) => {
  const created = await pctl(['groups', 'create', 'platform', '--parent', org, '--description', 'the platform team', '-o', 'json']);
  t.is(created.code, 0, created.stderr);
  t.is(created.stderr, '');
  const group = JSON.parse(created.stdout);
  t.is(group.name, 'platform');
  t.is(group.description, 'the platform team');
  t.true(group.uid.startsWith(`${org}/`), 'a child uid is the parent uid plus a segment');
  t.regex(group.createTime, /^\d{4}-\d\d-\d\dT/);

  const got = await pctl(['groups', 'get', group.uid, '-o', 'json']);
  t.is(got.code, 0, got.stderr);
  t.deepEqual(JSON.parse(got.stdout), group);

  const nested = await createGroup('web', group.uid);
  t.is(nested.split('/').length, 3);
  const deep = await pctl(['groups', 'describe', nested, '-o', 'json']);
  t.is(deep.code, 0, deep.stderr);
  t.is(JSON.parse(deep.stdout).name, 'web');
});

test('list --descendants-of, --children-of and --name scope the listing', async (t) => {
  const team = await createGroup('scoping-team');
  const a = await createGroup('scoping-a', team);
  const b = await createGroup('scoping-b', a);

  const desc = await pctl(['groups', 'list', '--descendants-of', team, '-o', 'id']);
  t.is(desc.code, 0, desc.stderr);
  t.deepEqual(lines(desc.stdout).sort(), [a, b].sort());

  const children = await pctl(['groups', 'list', '--children-of', team, '-o', 'id']);
  t.deepEqual(lines(children.stdout), [a]);

  const byName = await pctl(['groups', 'ls', '--name', 'scoping-b', '-o', 'id']);
  t.deepEqual(lines(byName.stdout), [b]);

  const none = await pctl(['groups', 'list', '--name', 'scoping', '-o', 'json']);
  t.deepEqual(JSON.parse(none.stdout), [], 'the name filter is exact');
});

test('a listing of 120 groups with --page-size 50 follows nextPageToken to the end', async (t) => {
  const parent = await createGroup('paging');
  await addGroups(srv, parent, 120, (i) => `g-${String(i).padStart(3, '0')}`);
  const r = await pctl(['groups', 'list', '--children-of', parent, '--page-size', '50', '--order-by', 'name', '-o', 'json', '--debug']);
  t.is(r.code, 0, r.stderr);
  const names = (JSON.parse(r.stdout) as { name: string }[]).map((g) => g.name);
  t.is(names.length, 120);
  t.deepEqual(names, Array.from({ length: 120 }, (_, i) => `g-${String(i).padStart(3, '0')}`));
  // Three requests: 50 + 50 + 20, the later ones carrying the page token.
  const requests = r.stderr.split('\n').filter((l) => l.startsWith('> GET '));
  t.is(requests.length, 3);
  t.true(requests.slice(1).every((l) => l.includes('page_token=')));
  t.true(requests.every((l) => l.includes('page_size=50') && l.includes('order_by=name')));

  const desc = await pctl(['groups', 'list', '--children-of', parent, '--order-by', 'name desc', '--limit', '3', '-o', 'id']);
  t.is(lines(desc.stdout).length, 3);
  const firstDesc = await pctl(['groups', 'get', lines(desc.stdout)[0]!, '-o', 'json']);
  t.is(JSON.parse(firstDesc.stdout).name, 'g-119', 'order_by "name desc" reaches the server intact');

  const limited = await pctl(['groups', 'list', '--children-of', parent, '--limit', '75', '--page-size', '50', '-o', 'ndjson']);
  t.is(lines(limited.stdout).length, 75, '--limit caps the items across pages');

  const skipped = await pctl(['groups', 'list', '--children-of', parent, '--order-by', 'name', '--skip', '115', '-o', 'ndjson']);
  t.deepEqual(lines(skipped.stdout).map((l) => JSON.parse(l).name), ['g-115', 'g-116', 'g-117', 'g-118', 'g-119']);
});

test('--page-token resumes a listing where a previous page ended', async (t) => {
  const parent = await createGroup('resume');
  for (const n of ['r1', 'r2', 'r3']) await createGroup(n, parent);
  const first = await srv.call('GET', `/iam/v2/groups?uidp.children_of=${encodeURIComponent(parent)}&page_size=2&order_by=name`);
  const token = first.json.nextPageToken as string;
  t.truthy(token);
  const rest = await pctl(['groups', 'list', '--children-of', parent, '--order-by', 'name', '--page-token', token, '-o', 'json']);
  t.is(rest.code, 0, rest.stderr);
  const page = JSON.parse(rest.stdout) as { groups: { name: string }[]; nextPageToken: string };
  t.deepEqual(page.groups.map((g) => g.name), ['r3']);
  t.is(page.nextPageToken, '', 'the end');
});

test('-o json --page-token pages through a listing: the API page, its nextPageToken fed back until ""', async (t) => {
  const parent = await createGroup('round-trip');
  await addGroups(srv, parent, 7, (i) => `p-${i}`);
  const names: string[] = [];
  let token = '';
  const pages: number[] = [];
  do {
    const r = await pctl(['groups', 'list', '--children-of', parent, '--limit', '3', '-o', 'json', '--page-token', token]);
    t.is(r.code, 0, r.stderr);
    t.is(r.stderr, '');
    const page = JSON.parse(r.stdout) as { groups: { name: string }[]; nextPageToken: string };
    t.deepEqual(Object.keys(page), ['groups', 'nextPageToken']);
    names.push(...page.groups.map((g) => g.name));
    pages.push(page.groups.length);
    token = page.nextPageToken;
  } while (token && pages.length < 10);
  t.deepEqual(pages, [3, 3, 1]);
  t.deepEqual(names, Array.from({ length: 7 }, (_, i) => `p-${i}`));
  // Without --page-token, -o json stays one array (scripts that parse lists are unchanged).
  const plain = await pctl(['groups', 'list', '--children-of', parent, '--limit', '3', '-o', 'json']);
  t.true(Array.isArray(JSON.parse(plain.stdout)));
});

test('--limit that stops before the end says on a terminal how to continue; a pipe gets the data alone', async (t) => {
  const parent = await createGroup('continue');
  await addGroups(srv, parent, 5, (i) => `c-${i}`);
  const first = await pctl(['groups', 'list', '--children-of', parent, '--limit', '2', '--skip', '1'], { tty: true });
  t.is(first.code, 0, first.stderr);
  const m = /^More groups: pctl groups list --children-of (\S+) --limit 2 --page-token (\S+)\n$/.exec(first.stderr);
  t.truthy(m, first.stderr);
  t.is(m![1], parent);
  // The printed command, run as printed, lists the next items.
  const next = await pctl(['groups', 'list', '--children-of', parent, '--limit', '2', '--page-token', m![2]!, '-o', 'id']);
  const names = await Promise.all(lines(next.stdout).map(async (uid) => JSON.parse((await pctl(['groups', 'get', uid, '-o', 'json'])).stdout).name as string));
  t.deepEqual(names, ['c-3', 'c-4']);
  t.is((await pctl(['groups', 'list', '--children-of', parent, '--limit', '2'])).stderr, '', 'not on a pipe');
  t.is((await pctl(['groups', 'list', '--children-of', parent, '--limit', '5'], { tty: true })).stderr, '', 'nothing more to list: no hint');
});

test('update sends an updateMask of exactly the flags given; --description "" clears', async (t) => {
  const uid = await createGroup('masked', org, ['--description', 'before']);

  const rename = await pctl(['groups', 'update', uid, '--name', 'masked-renamed', '-o', 'json', '--debug']);
  t.is(rename.code, 0, rename.stderr);
  t.regex(rename.stderr, /> PATCH \S+\?updateMask=name\n/);
  const renamed = JSON.parse(rename.stdout);
  t.is(renamed.name, 'masked-renamed');
  t.is(renamed.description, 'before', 'fields not named in the mask keep their value');

  const both = await pctl(['groups', 'update', uid, '--name', 'masked-2', '--description', 'after', '--debug', '-o', 'json']);
  t.regex(both.stderr, /updateMask=name%2Cdescription/);
  t.like(JSON.parse(both.stdout), { name: 'masked-2', description: 'after' });

  const cleared = await pctl(['groups', 'update', uid, '--description', '', '-o', 'json']);
  t.is(cleared.code, 0, cleared.stderr);
  t.like(JSON.parse(cleared.stdout), { name: 'masked-2', description: '' });

  const nothing = await pctl(['groups', 'update', uid]);
  t.is(nothing.code, 2);
  t.regex(nothing.stderr, /^error: nothing to update/);
});

test('an invalid group name is refused before any request, in the server\'s words (exit 2)', async (t) => {
  for (const argv of [
    ['groups', 'create', 'Not Valid!', '--parent', org, '--debug'],
    ['groups', 'update', `${org}/0000000000000000`, '--name', 'UPPER', '--debug'],
  ]) {
    const r = await pctl(argv);
    t.is(r.code, 2);
    t.is(r.stdout, '');
    t.is(r.stderr, 'error: Invalid argument: name: must match ^[a-z0-9 ._-]{1,}$\n', 'one line: the violation is not repeated below it');
    t.notRegex(r.stderr, /> (POST|PATCH)/, 'no request was sent');
  }
  // The server words the same violation identically.
  const server = await srv.call('POST', '/iam/v2/groups', { parent: org, group: { name: 'Not Valid!' } });
  t.is(server.json.message, 'Invalid argument: name: must match ^[a-z0-9 ._-]{1,}$');
});

test('delete refuses without a TTY unless --yes; asks on a TTY; prints nothing on stdout', async (t) => {
  const uid = await createGroup('doomed');

  const refused = await pctl(['groups', 'delete', uid]);
  t.is(refused.code, 2);
  t.is(refused.stdout, '');
  t.regex(refused.stderr, /^error: refusing to delete group .* pass --yes\n$/);
  t.is((await pctl(['groups', 'get', uid])).code, 0, 'still there');

  const declined = await pctl(['groups', 'rm', uid], { tty: true, confirm: false });
  t.is(declined.code, 2);
  t.deepEqual(declined.questions, [`Delete group "doomed" (…/${uid.split('/').pop()})?`], 'the question names the group');
  t.is((await pctl(['groups', 'get', uid])).code, 0, 'still there after "no"');

  const confirmed = await pctl(['groups', 'delete', uid], { tty: true, confirm: true });
  t.is(confirmed.code, 0, confirmed.stderr);
  t.is(confirmed.stdout, '');
  t.is((await pctl(['groups', 'get', uid])).code, 3, 'gone');

  const other = await createGroup('doomed-too');
  const yes = await pctl(['groups', 'delete', other, '--yes']);
  t.is(yes.code, 0, yes.stderr);
  t.is(yes.stdout + yes.stderr, '', 'silent on a pipe');
  const gone = await pctl(['groups', 'get', other]);
  t.is(gone.code, 3);
  t.regex(gone.stderr, /^error: .*not found/i);
});

test('deleting a non-empty group fails with the precondition violation (exit 1)', async (t) => {
  const parent = await createGroup('full');
  await createGroup('child', parent);
  const r = await pctl(['groups', 'delete', parent, '-y']);
  t.is(r.code, 1);
  t.is(r.stdout, '');
  const [first, ...rest] = lines(r.stderr);
  t.regex(first!, /^error: /);
  t.true(rest.length >= 1);
  t.true(rest.every((l) => /^ {2}RESOURCE_NOT_EMPTY: /.test(l)), r.stderr);
});

test('table on a TTY, tab-separated without header on a pipe, header with explicit -o table', async (t) => {
  const uid = await createGroup('tabular', org, ['--description', 'shown in tables']);

  const piped = await pctl(['groups', 'get', uid]);
  t.is(piped.stdout, `tabular\t${uid}\tshown in tables\n`, 'NAME first, the full uid');

  const tty = await pctl(['groups', 'get', uid, '--no-color'], { tty: true });
  const [header, row] = lines(tty.stdout);
  const short = uid.slice(uid.lastIndexOf('/') + 1);
  t.regex(header!, /^NAME {2,}UID {2,}DESCRIPTION$/);
  t.regex(row!, new RegExp(`^tabular +${short} +shown in tables$`), 'the uid short: its last segment');
  t.is(header!.indexOf('UID'), row!.indexOf(short), 'columns are aligned');
  t.is(header!.indexOf('DESCRIPTION'), row!.indexOf('shown'));
  t.false(row!.includes(uid));
  const again = await pctl(['groups', 'get', short, '-o', 'id']);
  t.is(again.stdout, `${uid}\n`, 'the short uid is a reference to the same group');

  const explicit = await pctl(['groups', 'get', uid, '-o', 'table']);
  t.regex(lines(explicit.stdout)[0]!, /^NAME +UID +DESCRIPTION$/);
  t.true(lines(explicit.stdout)[1]!.includes(uid), 'the full uid off a TTY');
  t.notRegex(explicit.stdout, /\t/);

  const wide = await pctl(['groups', 'get', uid, '-o', 'wide']);
  t.regex(lines(wide.stdout)[0]!, /^NAME +UID +DESCRIPTION +VERIFIED +CREATED +UPDATED$/);
  t.regex(lines(wide.stdout)[1]!, /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/, 'RFC 3339 times off a TTY');

  const wideTty = await pctl(['groups', 'get', uid, '-o', 'wide', '--no-color'], { tty: true });
  t.regex(lines(wideTty.stdout)[1]!, new RegExp(`^tabular +${uid} `), 'the full uid with -o wide, on a TTY too');
  t.regex(lines(wideTty.stdout)[1]!, /(just now|seconds? ago)/, 'relative times on a TTY');
});

test('every output format of a list parses', async (t) => {
  const parent = await createGroup('formats');
  const kids = [await createGroup('f1', parent), await createGroup('f2', parent)];
  const base = ['groups', 'list', '--children-of', parent, '--order-by', 'name'];

  const json = await pctl([...base, '-o', 'json']);
  t.deepEqual((JSON.parse(json.stdout) as { uid: string }[]).map((g) => g.uid), kids);

  const yaml = await pctl([...base, '-o', 'yaml']);
  const seq = YAML.parse(yaml.stdout) as { uid: string; name: string }[];
  t.deepEqual(seq.map((g) => g.uid), kids);
  t.is(seq[0]!.name, 'f1');

  const ndjson = await pctl([...base, '-o', 'ndjson']);
  t.deepEqual(lines(ndjson.stdout).map((l) => JSON.parse(l).uid), kids);

  const ids = await pctl([...base, '-o', 'id']);
  t.is(ids.stdout, `${kids.join('\n')}\n`);

  const empty = ['groups', 'list', '--children-of', kids[0]!];
  t.deepEqual(JSON.parse((await pctl([...empty, '-o', 'json'])).stdout), []);
  t.deepEqual(YAML.parse((await pctl([...empty, '-o', 'yaml'])).stdout), []);
  t.is((await pctl([...empty, '-o', 'ndjson'])).stdout, '');
  t.is((await pctl(empty)).stdout, '');

  const one = await pctl(['groups', 'get', kids[0]!, '-o', 'yaml']);
  t.is(YAML.parse(one.stdout).uid, kids[0]);
});

test('color only on a TTY, and never with NO_COLOR or --no-color', async (t) => {
  const ansi = /\x1b\[/;
  t.regex((await pctl(['groups', 'list', '--limit', '1'], { tty: true })).stdout, ansi);
  t.notRegex((await pctl(['groups', 'list', '--limit', '1'], { tty: true, env: { NO_COLOR: '1' } })).stdout, ansi);
  t.notRegex((await pctl(['groups', 'list', '--limit', '1', '--no-color'], { tty: true })).stdout, ansi);
  t.notRegex((await pctl(['groups', 'list', '--limit', '1', '-o', 'table'])).stdout, ansi);
});

test('long cells are cut to the terminal width on a TTY only; uids never', async (t) => {
  const long = 'x'.repeat(300);
  const uid = await createGroup('long-description', org, ['--description', long]);
  const tty = await pctl(['groups', 'get', uid, '--no-color'], { tty: true, columns: 100 });
  const row = lines(tty.stdout)[1]!;
  t.true(row.length <= 100, `row is ${row.length} wide`);
  t.true(row.startsWith(`long-description   ${uid.slice(uid.lastIndexOf('/') + 1)}   xxx`), row);
  t.true(row.endsWith('…'));

  const piped = await pctl(['groups', 'get', uid], { columns: 100 });
  t.true(piped.stdout.includes(long), 'no truncation on a pipe');
});

test('groups list -o tree draws the hierarchy under --descendants-of; -o csv has a header and full uids', async (t) => {
  const top = await createGroup('tree-top');
  const left = await createGroup('left', top);
  await createGroup('leaf', left);
  await createGroup('right', top);
  const tree = await pctl(['groups', 'list', '--descendants-of', top, '-o', 'tree', '--order-by', 'name']);
  t.is(tree.code, 0, tree.stderr);
  t.is(tree.stdout, 'left\n  leaf\nright\n');
  const csv = await pctl(['groups', 'list', '--children-of', top, '-o', 'csv', '--order-by', 'name']);
  t.is(csv.code, 0, csv.stderr);
  const records = csv.stdout.split('\r\n');
  t.regex(records[0]!, /^NAME,UID,/);
  t.regex(records[1]!, new RegExp(`^left,${left},`), 'the full uid, not the short one a terminal table shows');
  t.is(records.length, 4, 'header, two groups, and the final CRLF');
});

// `pctl repos|tags|advisories …` end to end: the real CLI, in-process, against a real
// serve on port 0 loaded with a small seed document.
import test from 'ava';
import YAML from 'yaml';
import { closeAgent } from '../src/client/http.js';
import type { SeedDocument } from '../src/server/data/seed.js';
import { cli, lines } from './helpers/cli.js';
import { startTestServer, tempDir, type TestServer } from './helpers/serve.js';

const hex = (c: string) => `sha256:${c.repeat(64)}`;
const digest = (i: number) => `sha256:${(i.toString(16).padStart(2, '0') + 'ab').repeat(16)}`;

// nginx has 9 tags, every third one deprecated: 1.20, 1.23, 1.26.
const nginxTags = Array.from({ length: 9 }, (_, i) => ({ name: `1.${20 + i}`, digest: digest(i), deprecated: i % 3 === 0 }));

const seed: SeedDocument = {
  organizations: [{
    name: 'acme',
    groups: [
      {
        name: 'platform',
        repos: [
          { name: 'nginx', description: 'web server images', tags: nginxTags },
          { name: 'envoy', description: 'proxy', tags: [{ name: 'v1', digest: hex('d') }] },
        ],
        groups: [{ name: 'ci', repos: [{ name: 'tools/git', description: 'git client' }] }],
      },
      { name: 'security', repos: [{ name: 'cosign', tags: [{ name: '2.5', digest: hex('e'), deprecated: true }] }] },
      // Only the update test changes this one.
      { name: 'sandbox', repos: [{ name: 'scratch', description: 'to be renamed' }] },
    ],
  }],
  advisories: [
    { advisoryId: 'CGA-2026-0001', artifactName: 'nginx' },
    { advisoryId: 'CGA-2026-0002', artifactName: 'nginx' },
    { advisoryId: 'CGA-2026-0003', artifactName: 'envoy' },
    { advisoryId: 'CGA-2026-0004', artifactName: 'cosign' },
    { advisoryId: 'CGA-2026-0005', artifactName: 'git' },
  ],
};

let srv: TestServer;
let pctl: ReturnType<typeof cli>;
const groups: Record<string, string> = {};
const repos: Record<string, string> = {};

test.before(async () => {
  srv = await startTestServer({ seed });
  pctl = cli({ PCTL_API_URL: srv.url, PCTL_TOKEN: srv.ownerToken, PCTL_CONFIG_DIR: tempDir('pctl-cfg-') });
  for (const g of (await srv.call('GET', '/iam/v2/groups?page_size=200')).json.groups) groups[g.name] = g.uid;
  for (const r of (await srv.call('GET', '/registry/v2/repos?page_size=200')).json.repos) repos[r.name] = r.uid;
});

test.after.always(async () => {
  await closeAgent();
  await srv?.dispose();
});

const json = (text: string) => JSON.parse(text);
 
const plainText = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '');
const names = (items: { name: string }[]) => items.map((i) => i.name);

// ---- repos ----

test('repos list: every repo; --descendants-of, --children-of and --name scope it', async (t) => {
  const all = await pctl(['repos', 'list', '--order-by', 'name', '-o', 'json']);
  t.is(all.code, 0, all.stderr);
  t.is(all.stderr, '');
  t.deepEqual(names(json(all.stdout)), ['cosign', 'envoy', 'nginx', 'scratch', 'tools/git']);

  const under = await pctl(['repos', 'list', '--descendants-of', groups.platform!, '--order-by', 'name', '-o', 'json']);
  t.deepEqual(names(json(under.stdout)), ['envoy', 'nginx', 'tools/git']);

  const children = await pctl(['repos', 'ls', '--children-of', groups.platform!, '--order-by', 'name desc', '-o', 'json']);
  t.deepEqual(names(json(children.stdout)), ['nginx', 'envoy']);

  const byName = await pctl(['repos', 'list', '--name', 'tools/git', '-o', 'id']);
  t.deepEqual(lines(byName.stdout), [repos['tools/git']]);
  t.deepEqual(json((await pctl(['repos', 'list', '--name', 'nginx2', '-o', 'json'])).stdout), [], 'the name filter is exact');
});

test('repos list: paging flags (--page-size, --limit, --skip, --page-token)', async (t) => {
  const paged = await pctl(['repos', 'list', '--page-size', '1', '--order-by', 'name', '-o', 'id', '--debug']);
  t.is(paged.code, 0, paged.stderr);
  t.is(lines(paged.stdout).length, 5);
  t.is((paged.stderr.match(/^> GET /gm) ?? []).length, 5, 'one request per page of 1');

  const limited = await pctl(['repos', 'list', '--limit', '2', '--order-by', 'name', '-o', 'json']);
  t.deepEqual(names(json(limited.stdout)), ['cosign', 'envoy']);

  const skipped = await pctl(['repos', 'list', '--skip', '3', '--order-by', 'name', '-o', 'json']);
  t.deepEqual(names(json(skipped.stdout)), ['scratch', 'tools/git']);

  const first = await srv.call('GET', '/registry/v2/repos?page_size=2&order_by=name');
  const resumed = await pctl(['repos', 'list', '--page-token', first.json.nextPageToken, '--order-by', 'name', '-o', 'json']);
  t.deepEqual(names(json(resumed.stdout).repos), ['nginx', 'scratch', 'tools/git'], 'with --page-token, -o json is the API page');
  t.is(json(resumed.stdout).nextPageToken, '');
});

test('repos list: every output format', async (t) => {
  const args = ['repos', 'list', '--children-of', groups.platform!, '--order-by', 'name'];

  const plain = await pctl(args);
  t.is(plain.code, 0, plain.stderr);
  const rows = lines(plain.stdout).map((l) => l.split('\t'));
  t.deepEqual(rows, [['envoy', repos.envoy, 'proxy'], ['nginx', repos.nginx, 'web server images']], 'pipe: tab-separated, no header, full uids');

  const table = await pctl(args, { tty: true });
  const shown = lines(plainText(table.stdout));
  t.regex(shown[0]!, /^NAME\s+UID\s+DESCRIPTION$/);
  t.is(shown.length, 3);
  t.regex(shown[1]!, new RegExp(`^envoy\\s+${repos.envoy!.split('/').pop()}\\s+proxy$`), 'short uids on a TTY');

  const tableInPipe = await pctl([...args, '-o', 'table']);
  t.regex(lines(tableInPipe.stdout)[0]!, /^NAME\s+UID\s+DESCRIPTION$/, '-o table always has the header');
  t.true(lines(tableInPipe.stdout)[1]!.includes(repos.envoy!), 'full uids off a TTY');

  const wide = await pctl([...args, '-o', 'wide']);
  t.regex(lines(wide.stdout)[0]!, /^NAME\s+UID\s+DESCRIPTION\s+CREATED\s+UPDATED$/);
  t.regex(lines(wide.stdout)[1]!, /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);

  const asJson = json((await pctl([...args, '-o', 'json'])).stdout);
  t.is(asJson.length, 2);
  t.deepEqual(Object.keys(asJson[0]).sort(), ['createTime', 'description', 'name', 'uid', 'updateTime']);

  const asYaml = YAML.parse((await pctl([...args, '-o', 'yaml'])).stdout);
  t.deepEqual(asYaml, asJson);

  const nd = lines((await pctl([...args, '-o', 'ndjson'])).stdout).map((l) => JSON.parse(l));
  t.deepEqual(nd, asJson);

  t.deepEqual(lines((await pctl([...args, '-o', 'id'])).stdout), [repos.envoy, repos.nginx]);
});

test('repos get: by nested uid, every format', async (t) => {
  const got = await pctl(['repos', 'get', repos['tools/git']!, '-o', 'json']);
  t.is(got.code, 0, got.stderr);
  t.like(json(got.stdout), { uid: repos['tools/git'], name: 'tools/git', description: 'git client' });
  t.like(YAML.parse((await pctl(['repos', 'describe', repos['tools/git']!, '-o', 'yaml'])).stdout), { name: 'tools/git' });
  t.deepEqual(lines((await pctl(['repos', 'get', repos.nginx!, '-o', 'id'])).stdout), [repos.nginx]);
  const table = await pctl(['repos', 'get', repos.nginx!, '-o', 'table']);
  t.regex(table.stdout, /^NAME\s+UID\s+DESCRIPTION\n/);

  const missing = await pctl(['repos', 'get', `${groups.platform}/0000000000000000`]);
  t.is(missing.code, 3);
  t.is(missing.stdout, '');
  t.regex(missing.stderr, /^error: Repo not found/);
});

// Serial (ava runs serial tests before the concurrent ones): it renames `scratch` for a
// moment, which the listing tests running beside it would otherwise see.
test.serial('repos update: the updateMask names exactly the flags given', async (t) => {
  const uid = repos.scratch!;
  const desc = await pctl(['repos', 'update', uid, '--description', 'edge proxy', '-o', 'json', '--debug'], { env: { PCTL_DEBUG: 'api' } });
  t.is(desc.code, 0, desc.stderr);
  t.regex(desc.stderr, /> PATCH \S+\?updateMask=description\n/);
  t.regex(desc.stderr, /> \{"description":"edge proxy"\}\n/);
  t.like(json(desc.stdout), { name: 'scratch', description: 'edge proxy' });

  const both = await pctl(['repos', 'update', uid, '--name', 'scratch-2', '--description', '', '-o', 'json', '--debug']);
  t.is(both.code, 0, both.stderr);
  t.regex(both.stderr, /\?updateMask=name%2Cdescription\n/);
  t.like(json(both.stdout), { name: 'scratch-2', description: '' });

  const name = await pctl(['repos', 'update', uid, '--name', 'scratch', '-o', 'json', '--debug']);
  t.regex(name.stderr, /\?updateMask=name\n/);
  t.like(json(name.stdout), { name: 'scratch', description: '' }, 'the description was not in the mask: kept');

  const nothing = await pctl(['repos', 'update', uid]);
  t.is(nothing.code, 2);
  t.regex(nothing.stderr, /^error: nothing to update/);

  const bad = await pctl(['repos', 'update', uid, '--name', 'Not Valid!']);
  t.is(bad.code, 2, 'the server\'s repo-name rule, checked before any request');
  t.is(bad.stdout, '');
  t.regex(bad.stderr, /^error: Invalid argument: name: /);
  t.is(bad.stderr.match(/name: must match/g)?.length, 1, 'the violation is said once');
  t.is((await srv.call('GET', `/registry/v2/repos/${uid}`)).json.name, 'scratch', 'nothing changed');

  const missing = await pctl(['repos', 'update', `${groups.platform}/0000000000000000`, '--description', 'x']);
  t.is(missing.code, 3);
});

// ---- tags ----

test('tags list --repo: every tag, columns and formats; --repo is required', async (t) => {
  const all = await pctl(['tags', 'list', '--repo', repos.nginx!, '--order-by', 'name', '-o', 'json']);
  t.is(all.code, 0, all.stderr);
  t.deepEqual(names(json(all.stdout)), nginxTags.map((x) => x.name));

  const plain = await pctl(['tags', 'list', '--repo', repos.nginx!, '--order-by', 'name', '--limit', '1']);
  const [row] = lines(plain.stdout).map((l) => l.split('\t'));
  t.is(row![0], '1.20');
  t.is(row![1], digest(0), 'full digest in a pipe');
  t.is(row![2], 'yes');
  t.regex(row![3]!, /^\d{4}-\d\d-\d\dT/);
  t.is(row!.length, 4);

  const tty = await pctl(['tags', 'list', '--repo', repos.nginx!, '--order-by', 'name', '--limit', '2'], { tty: true });
  const ttyLines = lines(plainText(tty.stdout));
  t.regex(ttyLines[0]!, /^NAME\s+DIGEST\s+DEPRECATED\s+UPDATED$/);
  t.regex(ttyLines[1]!, new RegExp(`^1\\.20\\s+${digest(0).slice(0, 19)}\\s+yes\\s+`));
  t.false(ttyLines[1]!.includes(digest(0)), 'short digest on a TTY');
  t.regex(ttyLines[2]!, /^1\.21\s+sha256:[0-9a-f]{12}\s+no\s+/);

  const wide = await pctl(['tags', 'list', '--repo', repos.nginx!, '--limit', '1', '-o', 'wide']);
  t.regex(lines(wide.stdout)[0]!, /^NAME\s+DIGEST\s+DEPRECATED\s+UPDATED\s+UID$/);
  t.regex(lines(wide.stdout)[1]!, /\tsha256:[0-9a-f]{64}\t|\ssha256:[0-9a-f]{64}\s/, 'the full digest outside a TTY');

  const ids = lines((await pctl(['tags', 'list', '--repo', repos.nginx!, '-o', 'id'])).stdout);
  t.is(ids.length, 9);
  t.true(ids.every((id) => id.startsWith(`${repos.nginx}/`)));

  t.deepEqual(json((await pctl(['tags', 'list', '--repo', repos['tools/git']!, '-o', 'json'])).stdout), []);

  const missing = await pctl(['tags', 'list']);
  t.is(missing.code, 2);
  t.is(missing.stdout, '');
  t.regex(missing.stderr, /--repo/);

  const unknown = await pctl(['tags', 'list', '--repo', `${groups.platform}/0000000000000000`]);
  t.is(unknown.code, 3);
});

test('tags list --deprecated filters client-side across every page, and --limit counts kept tags', async (t) => {
  const base = ['tags', 'list', '--repo', repos.nginx!, '--order-by', 'name', '--page-size', '2'];
  const dep = await pctl([...base, '--deprecated', '-o', 'json', '--debug']);
  t.is(dep.code, 0, dep.stderr);
  t.deepEqual(names(json(dep.stdout)), ['1.20', '1.23', '1.26']);
  t.true(json(dep.stdout).every((x: { deprecated: boolean }) => x.deprecated));
  t.is((dep.stderr.match(/^> GET /gm) ?? []).length, 5, '9 tags in pages of 2: all 5 pages read');
  t.notRegex(dep.stderr, /deprecated=/, 'no server-side filter is sent');

  const limited = await pctl([...base, '--deprecated', '--limit', '2', '-o', 'json', '--debug']);
  t.deepEqual(names(json(limited.stdout)), ['1.20', '1.23'], '--limit counts the filtered tags');
  t.is((limited.stderr.match(/^> GET /gm) ?? []).length, 2, 'stops reading once the limit is reached');

  const nd = lines((await pctl([...base, '--deprecated', '-o', 'ndjson'])).stdout);
  t.is(nd.length, 3);
  t.deepEqual(lines((await pctl([...base, '--deprecated', '-o', 'id'])).stdout).length, 3);

  const none = await pctl(['tags', 'list', '--repo', repos.envoy!, '--deprecated', '-o', 'json']);
  t.deepEqual(json(none.stdout), []);

  const plain = await pctl(['tags', 'list', '--repo', repos.nginx!, '--limit', '4', '-o', 'json']);
  t.is(json(plain.stdout).length, 4, 'without --deprecated, --limit counts every tag');
});

// ---- advisories ----

test('advisories list: repeated --artifact and --advisory-id, sent as repeated query parameters', async (t) => {
  const all = await pctl(['advisories', 'list', '--order-by', 'name', '-o', 'json']);
  t.is(all.code, 0, all.stderr);
  t.is(json(all.stdout).length, 5);

  const one = await pctl(['advisories', 'list', '--artifact', 'nginx', '-o', 'json']);
  t.deepEqual(json(one.stdout).map((a: { advisoryId: string }) => a.advisoryId).sort(), ['CGA-2026-0001', 'CGA-2026-0002']);

  // The stated default order: by artifact name, then (one artifact's advisories) by uid.
  const byDefault: { artifactName: string; uid: string }[] = json((await pctl(['advisories', 'list', '-o', 'json'])).stdout);
  const key = (a: { artifactName: string; uid: string }) => [a.artifactName, a.uid];
  const sorted = [...byDefault].sort((a, b) => (key(a)[0]! < key(b)[0]! ? -1 : key(a)[0]! > key(b)[0]! ? 1 : key(a)[1]! < key(b)[1]! ? -1 : 1));
  t.deepEqual(byDefault, sorted);
  t.true(new Set(byDefault.map((a) => a.artifactName)).size < byDefault.length, 'some artifact has several advisories, so the tie-break shows');

  const two = await pctl(['advisories', 'ls', '--artifact', 'envoy', '--artifact', 'cosign', '-o', 'json', '--debug']);
  t.is(two.code, 0, two.stderr);
  t.regex(two.stderr, /artifactNames=envoy&artifactNames=cosign/);
  t.deepEqual(json(two.stdout).map((a: { artifactName: string }) => a.artifactName).sort(), ['cosign', 'envoy']);

  const ids = await pctl(['advisories', 'list', '--advisory-id', 'CGA-2026-0003', '--advisory-id', 'CGA-2026-0005', '-o', 'json', '--debug']);
  t.regex(ids.stderr, /advisoryIds=CGA-2026-0003&advisoryIds=CGA-2026-0005/);
  t.deepEqual(json(ids.stdout).map((a: { artifactName: string }) => a.artifactName).sort(), ['envoy', 'git']);

  const both = await pctl(['advisories', 'list', '--artifact', 'nginx', '--advisory-id', 'CGA-2026-0002', '--advisory-id', 'CGA-2026-0003', '-o', 'json']);
  t.deepEqual(json(both.stdout).map((a: { advisoryId: string }) => a.advisoryId), ['CGA-2026-0002'], 'the two filters combine');

  const none = await pctl(['advisories', 'list', '--artifact', 'nope', '-o', 'json']);
  t.deepEqual(json(none.stdout), []);

  const paged = await pctl(['advisories', 'list', '--page-size', '2', '--limit', '3', '-o', 'id']);
  t.is(lines(paged.stdout).length, 3);
});

test('advisories list: columns; advisories get', async (t) => {
  const table = await pctl(['advisories', 'list', '--artifact', 'envoy'], { tty: true });
  t.regex(lines(plainText(table.stdout))[0]!, /^NAME\s+ADVISORY ID\s+UPDATED$/);
  t.regex(lines(plainText(table.stdout))[1]!, /^envoy\s+CGA-2026-0003\s+/);

  const wide = await pctl(['advisories', 'list', '--artifact', 'envoy', '-o', 'wide']);
  t.regex(lines(wide.stdout)[0]!, /^NAME\s+ADVISORY ID\s+UPDATED\s+UID$/);

  const plain = lines((await pctl(['advisories', 'list', '--artifact', 'envoy'])).stdout)[0]!.split('\t');
  t.is(plain[0], 'envoy');
  t.is(plain[1], 'CGA-2026-0003');
  t.is(plain.length, 3);

  const uid = lines((await pctl(['advisories', 'list', '--advisory-id', 'CGA-2026-0004', '-o', 'id'])).stdout)[0]!;
  const got = await pctl(['advisories', 'get', uid, '-o', 'json']);
  t.is(got.code, 0, got.stderr);
  t.like(json(got.stdout), { uid, advisoryId: 'CGA-2026-0004', artifactName: 'cosign' });
  t.like(YAML.parse((await pctl(['advisories', 'describe', uid, '-o', 'yaml'])).stdout), { uid });

  const missing = await pctl(['advisories', 'get', '0'.repeat(32)]);
  t.is(missing.code, 3);
  t.is(missing.stdout, '');
});

test('exit 4: no token, and a viewer reading a repo outside its group or updating one', async (t) => {
  const none = await pctl(['repos', 'list'], { env: { PCTL_TOKEN: undefined } });
  t.is(none.code, 4);
  t.is(none.stdout, '');

  const identity = await srv.call('POST', '/iam/v2/identities', {
    parent: groups.platform, identity: { name: 'reg-viewer', claimMatch: { issuer: srv.url, subject: 'reg-viewer' } },
  });
  const viewer = (await srv.call('GET', '/iam/v2/roles?name=viewer')).json.roles[0].uid;
  await srv.call('POST', '/iam/v2/roleBindings', { parent: groups.platform, roleBinding: { identityUid: identity.json.uid, roleUid: viewer } });
  const asViewer = { env: { PCTL_TOKEN: await srv.issueToken(identity.json.uid) } };

  const visible = await pctl(['repos', 'list', '--order-by', 'name', '-o', 'json'], asViewer);
  t.is(visible.code, 0, visible.stderr);
  t.deepEqual(names(json(visible.stdout)), ['envoy', 'nginx', 'tools/git']);

  const hidden = await pctl(['repos', 'get', repos.cosign!], asViewer);
  t.is(hidden.code, 4);
  const update = await pctl(['repos', 'update', repos.nginx!, '--description', 'nope'], asViewer);
  t.is(update.code, 4);
  t.is(update.stdout, '');
  t.regex(update.stderr, /^error: /);
  const tags = await pctl(['tags', 'list', '--repo', repos.cosign!], asViewer);
  t.is(tags.code, 4);
});

test('advisories get takes an advisory id as well as a uid; an unknown id is exit 3', async (t) => {
  const byId = await pctl(['advisories', 'get', 'CGA-2026-0003', '-o', 'json']);
  t.is(byId.code, 0, byId.stderr);
  const advisory = JSON.parse(byId.stdout);
  t.is(advisory.artifactName, 'envoy');
  const byUid = await pctl(['advisories', 'get', advisory.uid, '-o', 'json']);
  t.deepEqual(JSON.parse(byUid.stdout), advisory);
  const unknown = await pctl(['advisories', 'get', 'CGA-1999-9999']);
  t.is(unknown.code, 3);
  t.regex(unknown.stderr, /^error: Advisory not found: /);
});

// `pctl api …` end to end against a real serve, plus the field/key parsing on its own.
import test from 'ava';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { closeAgent } from '../src/client/http.js';
import { buildFields, fieldsToQuery, methodAndPath, parseHeaders, parseKey } from '../src/cli/commands/api/fields.js';
import { UsageError } from '../src/cli/errors.js';
import type { SeedDocument } from '../src/server/data/seed.js';
import { cli, lines } from './helpers/cli.js';
import { startTestServer, tempDir, type TestServer } from './helpers/serve.js';

const hex = (c: string) => `sha256:${c.repeat(64)}`;
const seed: SeedDocument = {
  organizations: [{
    name: 'acme',
    groups: [{
      name: 'platform',
      repos: ['a', 'b', 'c', 'd', 'e'].map((n) => ({ name: `repo-${n}`, tags: [{ name: 'latest', digest: hex(n) }] })),
    }],
  }],
  advisories: [
    { advisoryId: 'CGA-1', artifactName: 'repo-a' },
    { advisoryId: 'CGA-2', artifactName: 'repo-b' },
    { advisoryId: 'CGA-3', artifactName: 'repo-c' },
  ],
};

let srv: TestServer;
let pctl: ReturnType<typeof cli>;
let org: string;
let platform: string;
const files = tempDir('pctl-api-files-');

test.before(async () => {
  srv = await startTestServer({ seed });
  pctl = cli({ PCTL_API_URL: srv.url, PCTL_TOKEN: srv.ownerToken, PCTL_CONFIG_DIR: tempDir('pctl-cfg-') });
  const all = (await srv.call('GET', '/iam/v2/groups?page_size=200')).json.groups as { uid: string; name: string }[];
  org = all.find((g) => g.name === 'acme')!.uid;
  platform = all.find((g) => g.name === 'platform')!.uid;
});

test.after.always(async () => {
  await closeAgent();
  await srv?.dispose();
});

const sentBody = (stderr: string) => {
  const line = stderr.split('\n').find((l) => l.startsWith('> {') || l.startsWith('> ['));
  return line === undefined ? undefined : JSON.parse(line.slice(2));
};
const requests = (stderr: string) => stderr.split('\n').filter((l) => /^> [A-Z]+ http/.test(l)).map((l) => l.slice(2));

// ---- the parsing, on its own ----

test('fields: -f strings, -F typed values, nested keys and arrays', async (t) => {
  const read = async (src: string) => `<${src}>`;
  const body = await buildFields(
    ['parent=acme', 'group[name]=tools', 'group[description]=42', 'tags[]=a', 'tags[]=b'],
    ['n=42', 'x=-1.5e3', 'on=true', 'off=false', 'nil=null', 'text=12abc', 'file=@notes.txt', 'deep[a][b]=1'],
    read,
  );
  t.deepEqual(body, {
    parent: 'acme', group: { name: 'tools', description: '42' }, tags: ['a', 'b'],
    n: 42, x: -1500, on: true, off: false, nil: null, text: '12abc', file: '<notes.txt>', deep: { a: { b: 1 } },
  });
  const proto = await buildFields(['__proto__[polluted]=yes'], [], read);
  t.is(({} as Record<string, unknown>).polluted, undefined, 'no prototype pollution');
  t.deepEqual(JSON.parse(JSON.stringify(proto)), JSON.parse('{"__proto__":{"polluted":"yes"}}'));

  for (const [f, F] of [[['novalue'], []], [[], ['=x']], [['a[b=1'], []], [['a]=1'], []], [['a=1', 'a[b]=2'], []], [['a=1', 'a=2'], []], [['a[][b]=1'], []]] as [string[], string[]][]) {
    await t.throwsAsync(buildFields(f, F, read), { instanceOf: UsageError }, JSON.stringify([f, F]));
  }
  t.deepEqual(parseKey('-f', 'a[b][]'), ['a', 'b', '']);
  t.deepEqual(fieldsToQuery({ a: 'x', n: 2, list: ['p', 'q'] }), [['a', 'x'], ['n', '2'], ['list', 'p'], ['list', 'q']]);
  t.throws(() => fieldsToQuery({ g: { name: 'x' } }), { instanceOf: UsageError });
  t.deepEqual(parseHeaders(['X-Trace: abc', 'Accept:application/yaml']), { 'x-trace': 'abc', accept: 'application/yaml' });
  t.throws(() => parseHeaders(['no colon']), { instanceOf: UsageError });
  t.throws(() => parseHeaders(['Host: evil']), { instanceOf: UsageError });
  t.deepEqual(methodAndPath('get', 'iam/v2/groups', false), { method: 'GET', path: '/iam/v2/groups' });
  t.deepEqual(methodAndPath('/iam/v2/groups', undefined, false), { method: 'GET', path: '/iam/v2/groups' });
  t.deepEqual(methodAndPath('/iam/v2/groups', undefined, true), { method: 'POST', path: '/iam/v2/groups' });
  t.throws(() => methodAndPath('DELETE', undefined, false), { instanceOf: UsageError });
  t.throws(() => methodAndPath('GET', 'https://elsewhere.example/x', false), { instanceOf: UsageError });
});

// ---- requests ----

test('GET: pipe prints the body as received, TTY pretty, -o json pretty, -o yaml', async (t) => {
  const path = `/registry/v2/repos?order_by=name&uidp.children_of=${encodeURIComponent(platform)}`;
  const piped = await pctl(['api', 'GET', path]);
  t.is(piped.code, 0, piped.stderr);
  t.is(piped.stderr, '');
  t.is(lines(piped.stdout).length, 1, 'compact, as received');
  const doc = JSON.parse(piped.stdout);
  t.deepEqual(doc.repos.map((r: { name: string }) => r.name), ['repo-a', 'repo-b', 'repo-c', 'repo-d', 'repo-e']);
  t.is(doc.totalCount, '5');

  const tty = await pctl(['api', path], { tty: true });
  t.is(tty.stdout, `${JSON.stringify(doc, null, 2)}\n`, 'pctl api PATH is a GET; pretty on a TTY');
  t.is((await pctl(['api', 'get', path, '-o', 'json'])).stdout, `${JSON.stringify(doc, null, 2)}\n`);
  t.deepEqual(YAML.parse((await pctl(['api', path, '-o', 'yaml'])).stdout), doc);
  t.is((await pctl(['api', path, '-o', 'ndjson'])).stdout, `${JSON.stringify(doc)}\n`);
  const table = await pctl(['api', path, '-o', 'table']);
  t.is(table.code, 2, 'no table for raw responses');
});

test('-q adds query parameters (repeatable) to those in the path; fields on a GET become query parameters', async (t) => {
  const r = await pctl(['api', '/vulnerabilities/v2/advisories?order_by=name', '-q', 'artifactNames=repo-a', '-q', 'artifactNames=repo-c', '--debug']);
  t.is(r.code, 0, r.stderr);
  t.regex(requests(r.stderr)[0]!, /\/vulnerabilities\/v2\/advisories\?order_by=name&artifactNames=repo-a&artifactNames=repo-c$/);
  t.deepEqual(JSON.parse(r.stdout).advisories.map((a: { advisoryId: string }) => a.advisoryId).sort(), ['CGA-1', 'CGA-3']);

  const viaFields = await pctl(['api', 'GET', '/vulnerabilities/v2/advisories', '-f', 'advisoryIds[]=CGA-2', '-f', 'advisoryIds[]=CGA-3', '--debug']);
  t.is(viaFields.code, 0, viaFields.stderr);
  t.regex(requests(viaFields.stderr)[0]!, /\?advisoryIds=CGA-2&advisoryIds=CGA-3$/);
  t.is(sentBody(viaFields.stderr), undefined, 'a GET has no body');
  t.is(JSON.parse(viaFields.stdout).totalCount, '2');

  const spaced = await pctl(['api', '/registry/v2/repos', '-q', 'order_by=name desc', '-q', 'page_size=1', '--debug']);
  t.regex(requests(spaced.stderr)[0]!, /order_by=name%20desc&page_size=1$/);
  t.is(JSON.parse(spaced.stdout).repos[0].name, 'repo-e');
});

test('POST with -f/-F builds the JSON body; PATCH with updateMask; DELETE prints nothing', async (t) => {
  const created = await pctl(['api', 'POST', '/iam/v2/groups', '-f', `parent=${org}`, '-f', 'group[name]=api-made', '-f', 'group[description]=via pctl api', '--debug'], { env: { PCTL_DEBUG: 'api' } });
  t.is(created.code, 0, created.stderr);
  t.deepEqual(sentBody(created.stderr), { parent: org, group: { name: 'api-made', description: 'via pctl api' } });
  t.regex(created.stderr, /^> content-type: application\/json$/m);
  const group = JSON.parse(created.stdout);
  t.is(group.name, 'api-made');

  const patched = await pctl(['api', 'PATCH', `/iam/v2/groups/${group.uid}`, '-q', 'updateMask=description', '-f', 'description=changed', '-f', 'name=ignored-by-mask']);
  t.is(patched.code, 0, patched.stderr);
  t.like(JSON.parse(patched.stdout), { name: 'api-made', description: 'changed' });

  const encoded = await pctl(['api', 'GET', `/iam/v2/groups/${encodeURIComponent(group.uid)}`]);
  t.is(JSON.parse(encoded.stdout).description, 'changed', 'percent-encoded uids reach the route too');

  const viaX = await pctl(['api', '-X', 'patch', `/iam/v2/groups/${group.uid}`, '-q', 'updateMask=description', '-f', 'description=via -X', '--debug']);
  t.is(viaX.code, 0, viaX.stderr);
  t.regex(requests(viaX.stderr)[0]!, /^PATCH /, '-X sets the method, as in gh api');
  t.is(JSON.parse(viaX.stdout).description, 'via -X');

  const deleted = await pctl(['api', '--method', 'DELETE', `/iam/v2/groups/${group.uid}`]);
  t.is(deleted.code, 0, deleted.stderr);
  t.is(deleted.stdout, '');
  const gone = await pctl(['api', `/iam/v2/groups/${group.uid}`]);
  t.is(gone.code, 3);
  t.is(gone.stdout, '');
  t.regex(gone.stderr, /^error: Group not found/);

  const implicitPost = await pctl(['api', '/iam/v2/groups', '-f', `parent=${org}`, '-f', 'group[name]=implicit-post', '--debug']);
  t.is(implicitPost.code, 0, implicitPost.stderr);
  t.regex(requests(implicitPost.stderr)[0]!, /^POST /, 'fields without a METHOD mean POST');
});

test('-F: numbers, booleans, null, @file and @- (stdin)', async (t) => {
  const file = join(files, 'description.txt');
  writeFileSync(file, 'from a file');
  const r = await pctl(
    ['api', 'POST', '/iam/v2/groups', '-F', `parent=${org}`, '-F', 'group[name]=@-', '-F', `group[description]=@${file}`,
      '-F', 'extra[n]=7', '-F', 'extra[ok]=true', '-F', 'extra[none]=null', '--debug'],
    { stdin: 'typed-fields', env: { PCTL_DEBUG: 'api' } },
  );
  t.deepEqual(sentBody(r.stderr), {
    parent: org, group: { name: 'typed-fields', description: 'from a file' }, extra: { n: 7, ok: true, none: null },
  });
  t.is(r.code, 1, 'serve refuses unknown fields (code 3)');
  t.regex(r.stderr, /^error: Invalid argument: extra: is not a known field$/m);

  const ok = await pctl(['api', 'POST', '/iam/v2/groups', '-F', `parent=${org}`, '-F', 'group[name]=@-', '-F', `group[description]=@${file}`], { stdin: 'typed-fields' });
  t.is(ok.code, 0, ok.stderr);
  t.like(JSON.parse(ok.stdout), { name: 'typed-fields', description: 'from a file' });
});

test('--input FILE and --input - send the body as is; -H adds headers', async (t) => {
  const file = join(files, 'body.json');
  writeFileSync(file, JSON.stringify({ parent: org, group: { name: 'from-input' } }));
  const fromFile = await pctl(['api', 'POST', '/iam/v2/groups', '--input', file, '-H', 'X-Request-Id: abc123', '--debug']);
  t.is(fromFile.code, 0, fromFile.stderr);
  t.is(JSON.parse(fromFile.stdout).name, 'from-input');
  t.regex(fromFile.stderr, /^> x-request-id: abc123$/m);

  const fromStdin = await pctl(['api', 'POST', '/iam/v2/groups', '--input', '-'], { stdin: JSON.stringify({ parent: org, group: { name: 'from-stdin' } }) });
  t.is(fromStdin.code, 0, fromStdin.stderr);
  t.is(JSON.parse(fromStdin.stdout).name, 'from-stdin');

  const badJson = await pctl(['api', 'POST', '/iam/v2/groups', '--input', '-'], { stdin: '{not json' });
  t.is(badJson.code, 1, 'the server refuses it: code 3, exit 1');
  t.is(badJson.stdout, '');
  t.regex(badJson.stderr, /^error: /);

  const accept = await pctl(['api', '/iam/v2/roles', '-H', 'Accept: application/json', '--debug']);
  t.is(accept.code, 0);
  t.is(accept.stderr.match(/^> accept: /gm)?.length, 1, 'a -H header replaces ours, it is not sent twice');
});

test('--paginate follows nextPageToken and merges the plural array, keeping totalCount', async (t) => {
  const r = await pctl(['api', '/registry/v2/repos', '-q', 'page_size=2', '-q', 'order_by=name', '--paginate', '--debug']);
  t.is(r.code, 0, r.stderr);
  t.is(requests(r.stderr).length, 3, '5 repos in pages of 2');
  t.regex(requests(r.stderr)[1]!, /page_token=/);
  const doc = JSON.parse(r.stdout);
  t.deepEqual(doc.repos.map((x: { name: string }) => x.name), ['repo-a', 'repo-b', 'repo-c', 'repo-d', 'repo-e']);
  t.is(doc.totalCount, '5');
  t.false('nextPageToken' in doc);

  const tags = await pctl(['api', 'GET', '/registry/v2/tags?page_size=1', '--paginate', '-o', 'yaml']);
  t.is(tags.code, 0, tags.stderr);
  t.is(YAML.parse(tags.stdout).tags.length, 5);

  const single = await pctl(['api', `/registry/v2/repos?page_size=200`, '--paginate']);
  t.is(JSON.parse(single.stdout).repos.length, 5);

  const notAList = await pctl(['api', '/.well-known/openid-configuration', '--paginate']);
  t.is(notAList.code, 0, notAList.stderr);
  t.is(JSON.parse(notAList.stdout).issuer, srv.url);

  t.is((await pctl(['api', 'POST', '/iam/v2/groups', '--paginate'])).code, 2, '--paginate is for GET');
});

test('-i prints the status line and headers before the body, also for an error (and still fails)', async (t) => {
  const ok = await pctl(['api', '/iam/v2/roles', '-i']);
  t.is(ok.code, 0, ok.stderr);
  const [headBlock, body] = ok.stdout.split('\n\n');
  t.regex(headBlock!, /^HTTP\/1\.1 200 OK\n/);
  t.regex(headBlock!, /^Content-Type: application\/json/m);
  t.true(Array.isArray(JSON.parse(body!).roles));

  const missing = await pctl(['api', '-i', 'GET', '/iam/v2/groups/nope']);
  t.is(missing.code, 3);
  t.regex(missing.stdout, /^HTTP\/1\.1 404 Not Found\n/);
  t.is(JSON.parse(missing.stdout.split('\n\n')[1]!).code, 5);
  t.regex(missing.stderr, /^error: /);

  const deleted = await pctl(['api', '-i', 'DELETE', `/iam/v2/groups/${(await srv.call('POST', '/iam/v2/groups', { parent: org, group: { name: 'to-delete' } })).json.uid}`]);
  t.is(deleted.code, 0, deleted.stderr);
  t.regex(deleted.stdout, /^HTTP\/1\.1 200 OK\n[^]*\n\n$/, 'headers only: the body is empty');
});

test('every route: the discovery document; an unknown route is the structured 404, exit 3', async (t) => {
  const discovery = await pctl(['api', 'GET', '/.well-known/openid-configuration']);
  t.is(discovery.code, 0, discovery.stderr);
  t.is(JSON.parse(discovery.stdout).issuer, srv.url);

  const unknown = await pctl(['api', 'GET', '/libraries/v2/nothing-here']);
  t.is(unknown.code, 3);
  t.is(unknown.stdout, '');
  t.is(lines(unknown.stderr).length, 1);
  t.regex(unknown.stderr, /^error: /);

  const unknownIncluded = await pctl(['api', 'GET', '/nope/v9/x', '-i']);
  t.is(unknownIncluded.code, 3);
  const err = JSON.parse(unknownIncluded.stdout.split('\n\n')[1]!);
  t.is(err.code, 5);
  t.true(Array.isArray(err.details));
});

test('errors: a validation error with its violations (exit 1); auth and permission (exit 4)', async (t) => {
  const invalid = await pctl(['api', 'POST', '/iam/v2/groups', '-f', `parent=${org}`, '-f', 'group[name]=Not Valid!']);
  t.is(invalid.code, 1);
  t.is(invalid.stdout, '');
  t.regex(invalid.stderr, /^error: Invalid argument: name: /);
  t.is(invalid.stderr.match(/name: must match/g)?.length, 1, 'the violation is said once');

  const noToken = await pctl(['api', '/iam/v2/groups'], { env: { PCTL_TOKEN: undefined } });
  t.is(noToken.code, 4);
  t.is(noToken.stdout, '');
  const badToken = await pctl(['api', '/iam/v2/groups'], { env: { PCTL_TOKEN: 'not-a-token' } });
  t.is(badToken.code, 4);

  const identity = await srv.call('POST', '/iam/v2/identities', {
    parent: platform, identity: { name: 'api-viewer', claimMatch: { issuer: srv.url, subject: 'api-viewer' } },
  });
  const viewer = (await srv.call('GET', '/iam/v2/roles?name=viewer')).json.roles[0].uid;
  await srv.call('POST', '/iam/v2/roleBindings', { parent: platform, roleBinding: { identityUid: identity.json.uid, roleUid: viewer } });
  const asViewer = { env: { PCTL_TOKEN: await srv.issueToken(identity.json.uid) } };
  t.is((await pctl(['api', '/registry/v2/repos'], asViewer)).code, 0);
  const denied = await pctl(['api', 'POST', '/iam/v2/groups', '-f', `parent=${platform}`, '-f', 'group[name]=nope'], asViewer);
  t.is(denied.code, 4);
  t.is(denied.stdout, '');
  t.regex(denied.stderr, /^error: /);
});

test('usage errors (exit 2) before any request', async (t) => {
  const cases: string[][] = [
    ['api', 'POST', '/iam/v2/groups', '-F', 'novalue'],
    ['api', 'POST', '/iam/v2/groups', '-F', 'a[b=1'],
    ['api', 'POST', '/iam/v2/groups', '-F', `body=@${join(files, 'missing.json')}`],
    ['api', 'POST', '/iam/v2/groups', '--input', join(files, 'missing.json')],
    ['api', 'POST', '/iam/v2/groups', '--input', '-', '-f', 'a=b'],
    ['api', 'GET', '/iam/v2/groups', '-q', 'novalue'],
    ['api', 'GET', '/iam/v2/groups', '-H', 'bad header'],
    ['api', 'GET', '/iam/v2/groups', '-f', 'group[name]=x'],
    ['api', 'GE T', '/iam/v2/groups'],
    ['api', 'DELETE'],
    ['api', '-X', 'DELETE', 'GET', '/iam/v2/groups'],
    ['api', '-X', 'DE LETE', '/iam/v2/groups'],
    ['api'],
  ];
  for (const argv of cases) {
    // An unreachable API URL: a request would fail with exit 1, not 2.
    const r = await pctl(argv, { env: { PCTL_API_URL: 'http://127.0.0.1:9' } });
    t.is(r.code, 2, `${argv.join(' ')}: ${r.stderr}`);
    t.is(r.stdout, '');
    t.regex(r.stderr, /error/);
  }
});

// The vulnerabilities domain of pctl serve at the HTTP level: advisories, list and get.
import test from 'ava';
import { startTestServer, request, type TestServer } from './helpers/serve.js';
import type { SeedDocument } from '../src/server/data/seed.js';

const ADV = '/vulnerabilities/v2/advisories';
const TS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

const seed: SeedDocument = {
  advisories: [
    { advisoryId: 'CGA-2026-0001', artifactName: 'nginx' },
    { advisoryId: 'CGA-2026-0002', artifactName: 'nginx', updateTime: '2026-01-02T00:00:00Z' },
    { advisoryId: 'CGA-2026-0002', artifactName: 'envoy' },
    { advisoryId: 'CGA-2026-0003', artifactName: 'envoy' },
    { advisoryId: 'CGA-2026-0004', artifactName: 'library/python' },
    { advisoryId: 'GHSA-abcd-efgh-ijkl', artifactName: 'redis' },
  ],
};

type Advisory = { uid: string; advisoryId: string; artifactName: string; updateTime: string };

let srv: TestServer;
test.before(async () => {
  srv = await startTestServer({ seed });
});
test.after.always(async () => {
  await srv?.dispose();
});

const list = async (query: string) => {
  const res = await srv.call('GET', `${ADV}${query}`);
  return res;
};
const pairs = (items: Advisory[]) => items.map((a) => `${a.advisoryId} ${a.artifactName}`).sort();

test('list: every advisory, in the list envelope', async (t) => {
  const res = await list('');
  t.is(res.status, 200);
  t.is(res.json.totalCount, '6');
  t.is(res.json.skipped, 0);
  t.falsy(res.json.nextPageToken);
  for (const a of res.json.advisories as Advisory[]) {
    t.regex(a.uid, /^[0-9a-f]{32}$/, 'advisory uids are flat: 32 lower-case hex');
    t.regex(a.updateTime, TS);
  }
  t.is(pairs(res.json.advisories).length, 6);
  const dated = (res.json.advisories as Advisory[]).find((a) => a.advisoryId === 'CGA-2026-0002' && a.artifactName === 'nginx')!;
  t.is(dated.updateTime, '2026-01-02T00:00:00.000Z');
});

test('artifactNames: exact match, repeated or comma-separated', async (t) => {
  t.deepEqual(pairs((await list('?artifactNames=nginx')).json.advisories), ['CGA-2026-0001 nginx', 'CGA-2026-0002 nginx']);
  const expected = ['CGA-2026-0001 nginx', 'CGA-2026-0002 envoy', 'CGA-2026-0002 nginx', 'CGA-2026-0003 envoy'];
  t.deepEqual(pairs((await list('?artifactNames=nginx&artifactNames=envoy')).json.advisories), expected);
  t.deepEqual(pairs((await list('?artifactNames=nginx,envoy')).json.advisories), expected);
  t.deepEqual(pairs((await list(`?artifactNames=${encodeURIComponent('nginx, envoy')}`)).json.advisories), expected);
  t.deepEqual(pairs((await list('?artifactNames=nginx,envoy&artifactNames=redis')).json.advisories), [...expected, 'GHSA-abcd-efgh-ijkl redis'].sort());
  t.deepEqual(pairs((await list(`?artifactNames=${encodeURIComponent('library/python')}`)).json.advisories), ['CGA-2026-0004 library/python']);
  // Exact: no prefix or case-insensitive matching.
  const none = await list('?artifactNames=ngin&artifactNames=NGINX&artifactNames=python');
  t.is(none.status, 200);
  t.deepEqual(none.json.advisories, []);
  t.is(none.json.totalCount, '0');
});

test('advisoryIds: exact match, repeated or comma-separated; combined with artifactNames as AND', async (t) => {
  t.deepEqual(pairs((await list('?advisoryIds=CGA-2026-0002')).json.advisories), ['CGA-2026-0002 envoy', 'CGA-2026-0002 nginx']);
  const expected = ['CGA-2026-0001 nginx', 'CGA-2026-0002 envoy', 'CGA-2026-0002 nginx', 'GHSA-abcd-efgh-ijkl redis'];
  t.deepEqual(pairs((await list('?advisoryIds=CGA-2026-0001&advisoryIds=CGA-2026-0002&advisoryIds=GHSA-abcd-efgh-ijkl')).json.advisories), expected);
  t.deepEqual(pairs((await list('?advisoryIds=CGA-2026-0001,CGA-2026-0002,GHSA-abcd-efgh-ijkl')).json.advisories), expected);
  t.deepEqual(pairs((await list('?advisoryIds=CGA-2026-0001,CGA-2026-0002&advisoryIds=GHSA-abcd-efgh-ijkl')).json.advisories), expected);
  t.deepEqual((await list('?advisoryIds=CGA-2026')).json.advisories, []);

  const both = await list('?advisoryIds=CGA-2026-0002,CGA-2026-0003&artifactNames=envoy');
  t.deepEqual(pairs(both.json.advisories), ['CGA-2026-0002 envoy', 'CGA-2026-0003 envoy']);
  t.is(both.json.totalCount, '2');
  t.deepEqual(pairs((await list('?advisoryIds=CGA-2026-0003&artifactNames=nginx')).json.advisories), []);
});

test('filters with the shared parameters: order, pages that keep the filter, skip', async (t) => {
  const ordered = await list('?artifactNames=nginx,envoy&order_by=name%20desc');
  t.deepEqual((ordered.json.advisories as Advisory[]).map((a) => a.artifactName), ['nginx', 'nginx', 'envoy', 'envoy']);

  const seen: Advisory[] = [];
  let token = '';
  do {
    const page = await list(`?artifactNames=nginx&artifactNames=envoy&page_size=1${token ? `&page_token=${encodeURIComponent(token)}` : ''}`);
    t.is(page.status, 200);
    t.is(page.json.totalCount, '4');
    seen.push(...page.json.advisories);
    token = page.json.nextPageToken;
  } while (token);
  t.is(seen.length, 4);
  t.is(new Set(seen.map((a) => a.uid)).size, 4);

  // A token belongs to its query: changing the filter mid-way is code 3.
  const first = await list('?artifactNames=nginx&page_size=1');
  const other = await list(`?artifactNames=envoy&page_size=1&page_token=${encodeURIComponent(first.json.nextPageToken)}`);
  t.is(other.status, 400);
  t.is(other.json.code, 3);

  const skipped = await list('?artifactNames=nginx,envoy&skip=3');
  t.is(skipped.json.advisories.length, 1);
  t.is(skipped.json.skipped, 3);
  t.is(skipped.json.totalCount, '4');

  const unknown = await list('?artifactName=nginx');
  t.is(unknown.status, 400);
  t.is(unknown.json.code, 3);
  t.regex(unknown.json.message, /artifactName/);
});

test('get: by uid; unknown uid is a structured 404; no writes', async (t) => {
  const all = (await list('')).json.advisories as Advisory[];
  const one = all[0]!;
  const got = await srv.call('GET', `${ADV}/${one.uid}`);
  t.is(got.status, 200);
  t.deepEqual(got.json, one);
  t.deepEqual(Object.keys(got.json).sort(), ['advisoryId', 'artifactName', 'createTime', 'uid', 'updateTime']);

  const missing = await srv.call('GET', `${ADV}/${'0'.repeat(32)}`);
  t.is(missing.status, 404);
  t.is(missing.json.code, 5);
  t.truthy(missing.json.details.find((d: { '@type': string }) => d['@type'].endsWith('ErrorInfo')));

  t.is((await srv.call('POST', ADV, { advisoryId: 'x', artifactName: 'y' })).status, 405);
  t.is((await srv.call('DELETE', `${ADV}/${one.uid}`)).status, 405);
  t.is((await request(srv.url, 'GET', ADV)).status, 401);
});

test('access: advisories.list held on any group reads every advisory; no binding reads none', async (t) => {
  const org = srv.organizationUid;
  const make = async (subject: string) => {
    const res = await srv.call('POST', '/iam/v2/identities', { parent: org, identity: { name: subject, claimMatch: { issuer: srv.url, subject } } });
    t.is(res.status, 200, res.text);
    return res.json.uid as string;
  };
  const group = await srv.call('POST', '/iam/v2/groups', { parent: org, group: { name: 'team' } });
  const viewer = (await srv.call('GET', '/iam/v2/roles?name=viewer')).json.roles[0].uid;
  const reader = await make('reader');
  t.is((await srv.call('POST', '/iam/v2/roleBindings', { parent: group.json.uid, roleBinding: { identityUid: reader, roleUid: viewer } })).status, 200);
  const nobody = await make('nobody');

  const readerToken = await srv.issueToken(reader);
  const asReader = await request(srv.url, 'GET', `${ADV}?artifactNames=nginx`, undefined, { authorization: `Bearer ${readerToken}` });
  t.is(asReader.json.totalCount, '2');

  const nobodyToken = await srv.issueToken(nobody);
  const none = await request(srv.url, 'GET', ADV, undefined, { authorization: `Bearer ${nobodyToken}` });
  t.is(none.status, 200);
  t.is(none.json.totalCount, '0');
  const one = (asReader.json.advisories as Advisory[])[0]!;
  const denied = await request(srv.url, 'GET', `${ADV}/${one.uid}`, undefined, { authorization: `Bearer ${nobodyToken}` });
  t.is(denied.status, 403);
  t.is(denied.json.code, 7);
  t.is((await request(srv.url, 'GET', `${ADV}/${one.uid}`, undefined, { authorization: `Bearer ${readerToken}` })).status, 200);
});

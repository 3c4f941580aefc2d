// One input rule set, at the HTTP level: every string field has a maximum, text must be
// UTF-8, an object field is an object, issuers are https (http only on loopback), and a
// single-valued query parameter is given once. Each violation is code 3 with a BadRequest
// field violation naming the field.
import test from 'ava';
import { startTestServer, type ApiResponse, type TestServer } from './helpers/serve.js';

const G = '/iam/v2/groups';
const I = '/iam/v2/identities';
const ROLES = '/iam/v2/roles';
const RB = '/iam/v2/roleBindings';
const REPOS = '/registry/v2/repos';

let srv: TestServer;
let org: string;
let group: string;
let identity: string;
let role: string;
let repo: string;

test.before(async () => {
  srv = await startTestServer({ seed: { organizations: [{ name: 'acme', repos: [{ name: 'nginx' }] }] } });
  org = srv.organizationUid;
  group = (await mustCall('POST', G, { parent: org, group: { name: 'rules' } })).uid;
  identity = (await mustCall('POST', I, { parent: org, identity: { name: 'ci', claimMatch: { issuer: 'https://issuer.example', subject: 'ci' } } })).uid;
  role = (await mustCall('POST', ROLES, { parent: org, role: { name: 'reader', capabilities: ['groups.list'] } })).uid;
  repo = (await mustCall('GET', REPOS)).repos[0].uid;
});

test.after.always(() => srv?.dispose());

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON as the API sent it; tests assert its shape
async function mustCall(method: string, path: string, body?: unknown): Promise<any> {
  const res = await srv.call(method, path, body);
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return res.json;
}

function violations(res: ApiResponse): { field: string; description: string }[] {
  const bad = (res.json?.details ?? []).find((d: { '@type': string }) => d['@type'] === 'type.googleapis.com/google.rpc.BadRequest');
  return bad?.fieldViolations ?? [];
}

/** A code-3 400 whose BadRequest names `field` (and, when given, says `description`). */
function isViolation(t: import('ava').ExecutionContext, res: ApiResponse, field: string, description?: string | RegExp, label = '') {
  t.is(res.status, 400, `${label} ${res.text.slice(0, 300)}`);
  t.is(res.json?.code, 3, label);
  const v = violations(res).find((x) => x.field === field);
  t.truthy(v, `${label}: no violation for ${field} in ${JSON.stringify(violations(res)).slice(0, 300)}`);
  if (v && typeof description === 'string') t.is(v.description, description, label);
  if (v && description instanceof RegExp) t.regex(v.description, description, label);
  t.true(res.json?.message.startsWith(`Invalid argument: `), label);
}

/** A raw request whose body is exactly these bytes. */
async function rawCall(method: string, path: string, body: Buffer): Promise<ApiResponse> {
  const res = await fetch(srv.url + path, { method, body, headers: { authorization: `Bearer ${srv.ownerToken}`, 'content-type': 'application/json' } });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: text ? JSON.parse(text) : undefined };
}

test('every string field has a maximum: names 255, issuer 2048, subject 1024, descriptions 4096, uid references 4096', async (t) => {
  const long = (n: number) => 'a'.repeat(n);
  const claim = (over: Record<string, string> = {}) => ({ issuer: 'https://issuer.example', subject: `s-${Math.random()}`, ...over });
  const creates: [string, unknown, string, string][] = [
    [G, { parent: org, group: { name: long(256) } }, 'name', 'must be at most 255 characters'],
    [G, { parent: org, group: { name: long(1_000_000) } }, 'name', 'must be at most 255 characters'],
    [G, { parent: org, group: { name: 'ok', description: long(4097) } }, 'description', 'must be at most 4096 characters'],
    [G, { parent: long(4097), group: { name: 'ok' } }, 'parent', 'must be at most 4096 characters'],
    [I, { parent: org, identity: { name: long(256), claimMatch: claim() } }, 'name', 'must be at most 255 characters'],
    [I, { parent: org, identity: { name: 'x', claimMatch: claim({ issuer: `https://issuer.example/${long(2030)}` }) } }, 'claimMatch.issuer', 'must be at most 2048 characters'],
    [I, { parent: org, identity: { name: 'x', claimMatch: claim({ subject: long(1025) }) } }, 'claimMatch.subject', 'must be at most 1024 characters'],
    [ROLES, { parent: org, role: { name: long(256), capabilities: [] } }, 'name', 'must be at most 255 characters'],
    [RB, { parent: org, roleBinding: { identityUid: long(4097), roleUid: role } }, 'identityUid', 'must be at most 4096 characters'],
    [RB, { parent: org, roleBinding: { identityUid: identity, roleUid: long(4097) } }, 'roleUid', 'must be at most 4096 characters'],
  ];
  for (const [path, body, field, description] of creates) isViolation(t, await srv.call('POST', path, body), field, description, `POST ${path} ${field}`);

  const updates: [string, unknown, string, string][] = [
    [`${G}/${group}`, { name: long(256) }, 'name', 'must be at most 255 characters'],
    [`${I}/${identity}`, { name: long(256) }, 'name', 'must be at most 255 characters'],
    [`${I}/${identity}`, { claimMatch: { subject: long(1025) } }, 'claimMatch.subject', 'must be at most 1024 characters'],
    [`${I}/${identity}`, { claimMatch: { issuer: `https://issuer.example/${long(2030)}` } }, 'claimMatch.issuer', 'must be at most 2048 characters'],
    [`${ROLES}/${role}`, { name: long(256) }, 'name', 'must be at most 255 characters'],
    [`${REPOS}/${repo}`, { description: long(4097) }, 'description', 'must be at most 4096 characters'],
  ];
  for (const [path, body, field, description] of updates) isViolation(t, await srv.call('PATCH', path, body), field, description, `PATCH ${path} ${field}`);

  // At the maximum is fine.
  t.is((await srv.call('POST', G, { parent: org, group: { name: long(255) } })).status, 200);
  t.is((await srv.call('POST', I, { parent: org, identity: { name: long(255), claimMatch: claim({ subject: long(1024) }) } })).status, 200);
  t.is((await srv.call('PATCH', `${ROLES}/${role}`, { name: 'r'.repeat(255) })).status, 200);
  t.is((await srv.call('GET', `${G}?name=${long(256)}`)).json.totalCount, '0', 'nothing too long was stored');
});

test('identity and role names hold no control characters, as in seed files', async (t) => {
  const created = await srv.call('POST', I, { parent: org, identity: { name: 'a\u001b[31mb', claimMatch: { issuer: 'https://issuer.example', subject: 'ctl' } } });
  isViolation(t, created, 'name', 'must not contain control characters');
  isViolation(t, await srv.call('PATCH', `${ROLES}/${role}`, { name: 'a\nb' }), 'name', 'must not contain control characters');
});

test('a request body that is not UTF-8 is code 3, never stored with U+FFFD in its place', async (t) => {
  const body = Buffer.concat([Buffer.from(`{"parent":"${org}","group":{"name":"ok","description":"caf`), Buffer.from([0xe9]), Buffer.from('"}}')]);
  const res = await rawCall('POST', G, body);
  isViolation(t, res, 'body', 'must be UTF-8 text');
  const patch = await rawCall('PATCH', `${G}/${group}`, Buffer.concat([Buffer.from('{"description":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]));
  isViolation(t, patch, 'body', 'must be UTF-8 text');
  t.is((await mustCall('GET', `${G}/${group}`)).description, '', 'the group is unchanged');
  const fine = await rawCall('POST', G, Buffer.from(`{"parent":"${org}","group":{"name":"utf8","description":"café 😀"}}`));
  t.is(fine.status, 200);
  t.is(fine.json.description, 'café 😀');
});

test('a query parameter that is not UTF-8 once percent-decoded is code 3 naming it', async (t) => {
  isViolation(t, await srv.call('GET', `${G}?name=caf%E9`), 'name', 'must be UTF-8 text once percent-decoded');
  isViolation(t, await srv.call('GET', `${G}?uidp.descendants_of=${org}%FF`), 'uidp.descendants_of');
  isViolation(t, await srv.call('GET', `${G}?name=%ED%A0%80`), 'name', undefined, 'an encoded surrogate');
  isViolation(t, await srv.call('PATCH', `${G}/${group}?updateMask=descr%C0%AEiption`, { description: 'x' }), 'updateMask');
  isViolation(t, await srv.call('GET', `${G}?na%FFme=x`), 'query', /parameter name/);
  isViolation(t, await srv.call('GET', `${G}/${org}%FF`), 'uid', undefined, 'the path');
  // Well-formed percent-encoded UTF-8 (and a stray % that encodes nothing) still work.
  const ok = await srv.call('GET', `${G}?name=${encodeURIComponent('rules')}&order_by=name%20desc`);
  t.is(ok.status, 200);
  t.is(ok.json.totalCount, '1');
  t.is((await srv.call('GET', `${G}?name=100%`)).status, 200);
});

test('a null (or any non-object) for an object field is code 3, with or without an update mask', async (t) => {
  const path = `${I}/${identity}`;
  const before = await mustCall('GET', path);
  for (const [query, body] of [
    ['', { claimMatch: null }],
    ['', { claimMatch: 'https://issuer.example' }],
    ['', { claimMatch: [] }],
    ['?updateMask=claimMatch', { claimMatch: null }],
    ['?updateMask=claimMatch', { claimMatch: 5 }],
    ['?updateMask=claimMatch.subject', { claimMatch: null }],
  ] as const) {
    isViolation(t, await srv.call('PATCH', path + query, body), 'claimMatch', 'must be an object', `${query} ${JSON.stringify(body)}`);
  }
  isViolation(t, await srv.call('PATCH', path, { claimMatch: { subjct: 'typo' } }), 'claimMatch.subjct', 'is not a known field', 'a typo inside the object');
  t.deepEqual(await mustCall('GET', path), before, 'the identity is unchanged (updateTime too)');
  // A leaf inside it may still be cleared by the mask (rule 3), and a whole object replaced.
  const moved = await srv.call('PATCH', `${path}?updateMask=claimMatch`, { claimMatch: { issuer: 'https://other.example', subject: 'ci' } });
  t.is(moved.status, 200, moved.text);
  t.deepEqual(moved.json.claimMatch, { issuer: 'https://other.example', subject: 'ci' });
});

test('an issuer is an https URL, or http on a loopback host only', async (t) => {
  let n = 0;
  const create = (issuer: string) => srv.call('POST', I, { parent: org, identity: { name: 'iss', claimMatch: { issuer, subject: `iss-${n++}` } } });
  const rule = 'must be an https URL (http only on a loopback host: 127.0.0.0/8, ::1, localhost)';
  for (const issuer of ['javascript:alert(1)', 'file:///etc/passwd', 'http://issuer.example', 'ftp://issuer.example', 'data:text/plain,x', 'http://10.0.0.1:8700', 'http://localhost.evil.example', 'not a url', 'https:']) {
    isViolation(t, await create(issuer), 'claimMatch.issuer', rule, issuer);
    isViolation(t, await srv.call('PATCH', `${I}/${identity}`, { claimMatch: { issuer } }), 'claimMatch.issuer', rule, `PATCH ${issuer}`);
  }
  for (const issuer of ['https://token.actions.githubusercontent.com', 'https://gitlab.example.com/', 'http://127.0.0.1:8700', 'http://127.8.9.10', 'http://[::1]:9000', 'http://localhost:8700', 'HTTP://LOCALHOST']) {
    const res = await create(issuer);
    t.is(res.status, 200, `${issuer}: ${res.text}`);
  }
});

test('a single-valued query parameter given twice, or in two spellings, is code 3 naming it', async (t) => {
  const cases: [string, string, string | RegExp][] = [
    [`${G}?page_size=1&page_size=2`, 'page_size', 'is given more than once'],
    [`${G}?page_size=1&pageSize=2`, 'page_size', 'is given twice, as page_size and pageSize'],
    [`${G}?pageSize=2&page_size=2`, 'page_size', 'is given twice, as pageSize and page_size'],
    [`${G}?order_by=name&orderBy=uid`, 'order_by', /order_by and orderBy/],
    [`${G}?skip=1&skip=1`, 'skip', 'is given more than once'],
    [`${G}?name=a&name=b`, 'name', 'is given more than once'],
    [`${G}?uidp.descendants_of=${org}&uidp.descendantsOf=${org}`, 'uidp.descendants_of', /uidp\.descendants_of and uidp\.descendantsOf/],
    [`/registry/v2/tags?uidp.children_of=${repo}&uidp.childrenOf=${repo}`, 'uidp.children_of', /uidp\.children_of and uidp\.childrenOf/],
    [`/registry/v2/tags?uidp.children_of=${org}/0000000000000000&uidp.children_of=${repo}`, 'uidp.children_of', 'is given more than once'],
  ];
  for (const [path, field, description] of cases) isViolation(t, await srv.call('GET', path), field, description, path);
  for (const query of ['updateMask=name&updateMask=description', 'updateMask=name&update_mask=name']) {
    isViolation(t, await srv.call('PATCH', `${G}/${group}?${query}`, { name: 'x', description: 'y' }), 'updateMask', undefined, query);
  }
  t.is((await mustCall('GET', `${G}/${group}`)).name, 'rules', 'nothing was changed');
  // Repeatable filters stay repeatable.
  t.is((await srv.call('GET', '/vulnerabilities/v2/advisories?artifactNames=a&artifactNames=b')).status, 200);
});

test('unknown body fields are named first, each a violation; a resource field beside parent says it belongs under the wrapper', async (t) => {
  // The reported mistake: the name given beside parent, not under group.
  const misplaced = await srv.call('POST', G, { parent: org, name: 'team-b' });
  t.is(misplaced.status, 400);
  t.is(misplaced.json.code, 3);
  t.deepEqual(violations(misplaced), [
    { field: 'name', description: 'is not a field of the request body: it belongs under "group" ({"parent": …, "group": {"name": …}})' },
  ]);
  t.is(misplaced.json.message, 'Invalid argument: name: is not a field of the request body: it belongs under "group" ({"parent": …, "group": {"name": …}})');

  // Several at once, at each depth, before any rule of the known fields (the name is invalid too).
  const several = await srv.call('POST', I, {
    parent: org, description: 'x', colour: 'red',
    identity: { name: 'Not Valid!', claimMatch: { issuer: 'https://issuer.example', subject: 's', colour: 'a' }, labels: {} },
  });
  t.deepEqual(violations(several), [
    { field: 'description', description: 'is not a field of the request body: it belongs under "identity" ({"parent": …, "identity": {"description": …}})' },
    { field: 'colour', description: 'is not a known field' },
    { field: 'claimMatch.colour', description: 'is not a known field' },
    { field: 'labels', description: 'is not a known field' },
  ]);
  t.regex(several.json.message, /^Invalid argument: description: is not a field of the request body: .* \(and 3 more\)$/);
  isViolation(t, await srv.call('POST', RB, { parent: org, roleBinding: { identityUid: identity, roleUid: role }, roleUid: role }), 'roleUid', /belongs under "roleBinding"/);
  t.deepEqual((await mustCall('GET', `${G}?name=team-b`)).groups ?? [], [], 'nothing was created');
});

// The registry domain of pctl serve at the HTTP level: repos (list, get, update) and tags.
import test from 'ava';
import { startTestServer, request, type TestServer } from './helpers/serve.js';
import type { SeedDocument } from '../src/server/data/seed.js';

const REPOS = '/registry/v2/repos';
const TAGS = '/registry/v2/tags';
const G = '/iam/v2/groups';
const TS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const hex = (c: string) => `sha256:${c.repeat(64)}`;

const seed: SeedDocument = {
  organizations: [{
    name: 'acme',
    groups: [
      {
        name: 'platform',
        repos: [
          {
            name: 'nginx', description: 'web server images',
            tags: [
              { name: '1.27', digest: hex('a'), deprecated: false },
              { name: '1.26', digest: hex('b') },
              { name: '1.25', digest: hex('c'), deprecated: true, updateTime: '2025-01-02T03:04:05Z' },
            ],
          },
          { name: 'envoy', tags: [{ name: 'v1', digest: hex('d') }] },
        ],
        groups: [{ name: 'ci', repos: [{ name: 'tools/git', description: 'git client' }] }],
      },
      { name: 'security', repos: [{ name: 'cosign', tags: [{ name: '2.5', digest: hex('e'), deprecated: true }] }] },
    ],
  }],
};

interface Ctx { srv: TestServer; groups: Record<string, string>; repos: Record<string, { uid: string; name: string; description: string; createTime: string; updateTime: string }> }

function detail(body: { details: { '@type': string }[] }, type: string) {
  return body.details.find((d) => d['@type'] === `type.googleapis.com/google.rpc.${type}`) as Record<string, unknown> | undefined;
}
const fields = (body: { details: { '@type': string }[] }) =>
  ((detail(body, 'BadRequest')?.fieldViolations ?? []) as { field: string }[]).map((v) => v.field);

async function setup(): Promise<Ctx> {
  const srv = await startTestServer({ seed });
  const groups: Ctx['groups'] = {};
  for (const g of (await srv.call('GET', `${G}?page_size=200`)).json.groups) groups[g.name] = g.uid;
  const repos: Ctx['repos'] = {};
  for (const r of (await srv.call('GET', `${REPOS}?page_size=200`)).json.repos) repos[r.name] = r;
  return { srv, groups, repos };
}

const names = (items: { name: string }[]) => items.map((i) => i.name);

test('repos list: the shared list parameters, through the one list engine', async (t) => {
  const { srv, groups } = await setup();
  try {
    const all = await srv.call('GET', REPOS);
    t.is(all.status, 200);
    t.is(all.json.totalCount, '4');
    t.is(all.json.skipped, 0);
    t.falsy(all.json.nextPageToken);
    for (const r of all.json.repos) {
      t.deepEqual(Object.keys(r).sort(), ['createTime', 'description', 'name', 'uid', 'updateTime']);
      t.regex(r.createTime, TS);
    }

    const under = await srv.call('GET', `${REPOS}?uidp.descendants_of=${encodeURIComponent(groups.platform!)}&order_by=name`);
    t.deepEqual(names(under.json.repos), ['envoy', 'nginx', 'tools/git']);
    t.is(under.json.totalCount, '3');

    const children = await srv.call('GET', `${REPOS}?uidp.children_of=${encodeURIComponent(groups.platform!)}&order_by=name%20desc`);
    t.deepEqual(names(children.json.repos), ['nginx', 'envoy']);

    const byName = await srv.call('GET', `${REPOS}?name=cosign`);
    t.deepEqual(names(byName.json.repos), ['cosign']);
    t.is((await srv.call('GET', `${REPOS}?name=cosig`)).json.totalCount, '0');

    // Paging keeps the order across cursors.
    const seen: string[] = [];
    let token = '';
    do {
      const page = await srv.call('GET', `${REPOS}?page_size=1&order_by=name${token ? `&page_token=${encodeURIComponent(token)}` : ''}`);
      t.is(page.status, 200);
      t.true(page.json.repos.length <= 1);
      seen.push(...names(page.json.repos));
      token = page.json.nextPageToken;
    } while (token);
    t.deepEqual(seen, ['cosign', 'envoy', 'nginx', 'tools/git']);

    const skipped = await srv.call('GET', `${REPOS}?order_by=name&skip=2`);
    t.deepEqual(names(skipped.json.repos), ['nginx', 'tools/git']);
    t.is(skipped.json.skipped, 2);

    const bad = await srv.call('GET', `${REPOS}?order_by=color`);
    t.is(bad.status, 400);
    t.is(bad.json.code, 3);
  } finally {
    await srv.dispose();
  }
});

test('repos get: by uid, raw or percent-encoded; unknown uid is a structured 404', async (t) => {
  const { srv, repos } = await setup();
  try {
    const nginx = repos.nginx!;
    t.true(nginx.uid.split('/').length === 3, 'org/group/repo');
    const raw = await srv.call('GET', `${REPOS}/${nginx.uid}`);
    t.is(raw.status, 200);
    t.deepEqual(raw.json, nginx);
    const encoded = await srv.call('GET', `${REPOS}/${encodeURIComponent(nginx.uid)}`);
    t.deepEqual(encoded.json, nginx);

    const missing = await srv.call('GET', `${REPOS}/${nginx.uid}0`);
    t.is(missing.status, 404);
    t.is(missing.json.code, 5);
    t.is(missing.json.status, 'NOT_FOUND');
    // A group's uid is not a repo.
    t.is((await srv.call('GET', `${REPOS}/${nginx.uid.split('/').slice(0, 2).join('/')}`)).status, 404);

    const anon = await request(srv.url, 'GET', REPOS);
    t.is(anon.status, 401);
    t.is(anon.json.code, 16);
  } finally {
    await srv.dispose();
  }
});

test('repos update: the four partial-update rules', async (t) => {
  const { srv, repos } = await setup();
  try {
    const uid = repos.nginx!.uid;
    const path = `${REPOS}/${encodeURIComponent(uid)}`;

    // No mask: only the fields present change.
    const a = await srv.call('PATCH', path, { description: 'NGINX images' });
    t.is(a.status, 200);
    t.is(a.json.name, 'nginx');
    t.is(a.json.description, 'NGINX images');
    t.true(a.json.updateTime >= repos.nginx!.updateTime);
    t.is(a.json.createTime, repos.nginx!.createTime);

    // A mask: only listed fields change, the rest of the body is ignored.
    const b = await srv.call('PATCH', `${path}?updateMask=name`, { name: 'library/nginx', description: 'ignored' });
    t.is(b.status, 200);
    t.is(b.json.name, 'library/nginx');
    t.is(b.json.description, 'NGINX images');

    // A listed field missing from the body is cleared.
    const c = await srv.call('PATCH', `${path}?updateMask=description`, {});
    t.is(c.json.description, '');
    t.is(c.json.name, 'library/nginx');

    // Both, comma-separated, snake_case spelling of the parameter too.
    const d = await srv.call('PATCH', `${path}?update_mask=name,description`, { name: 'nginx', description: 'back' });
    t.like(d.json, { name: 'nginx', description: 'back' });

    // Echoing the fetched resource back is fine (output-only fields are ignored without a mask).
    const got = (await srv.call('GET', path)).json;
    const e = await srv.call('PATCH', path, { ...got, description: 'echoed' });
    t.is(e.status, 200);
    t.is(e.json.description, 'echoed');

    // The change is durable and visible to get and list.
    t.is((await srv.call('GET', path)).json.description, 'echoed');
    t.is((await srv.call('GET', `${REPOS}?name=nginx`)).json.repos[0].description, 'echoed');
  } finally {
    await srv.dispose();
  }
});

test('repos update: bad input is code 3 (or 6 for a taken name) and changes nothing', async (t) => {
  const { srv, repos } = await setup();
  try {
    const uid = repos.nginx!.uid;
    const path = `${REPOS}/${uid}`;
    const before = (await srv.call('GET', path)).json;

    for (const name of ['', 'NGINX', '-lead', 'has space', 'tab\tname', 'x'.repeat(256)]) {
      const res = await srv.call('PATCH', path, { name, description: 'should not land' });
      t.is(res.status, 400, name);
      t.is(res.json.code, 3);
      t.deepEqual(fields(res.json), ['name']);
      t.regex(res.json.message, /^Invalid argument: name: must match/);
    }
    const cases: [string, unknown, string][] = [
      ['', { name: 42 }, 'name'],
      ['', { color: 'blue' }, 'color'],
      ['?updateMask=uid', { uid: 'x' }, 'updateMask'],
      ['?updateMask=digest', {}, 'updateMask'],
      ['', { description: 'x'.repeat(5000) }, 'description'],
    ];
    for (const [query, body, field] of cases) {
      const res = await srv.call('PATCH', path + query, body);
      t.is(res.status, 400, JSON.stringify(body));
      t.is(res.json.code, 3);
      t.deepEqual(fields(res.json), [field]);
    }
    const notJson = await srv.call('PATCH', path, '{"name":');
    t.is(notJson.status, 400);
    t.is(notJson.json.code, 3);
    const array = await srv.call('PATCH', path, '[]');
    t.is(array.json.code, 3);

    // Names are unique among a group's repos.
    const clash = await srv.call('PATCH', path, { name: 'envoy' });
    t.is(clash.status, 409);
    t.is(clash.json.code, 6);
    // The same name in another group is fine (and a rename to itself is a no-op).
    t.is((await srv.call('PATCH', path, { name: 'nginx' })).status, 200);

    t.deepEqual((await srv.call('GET', path)).json, before);

    const missing = await srv.call('PATCH', `${REPOS}/${uid}x`, { description: 'x' });
    t.is(missing.status, 404);
    t.is(missing.json.code, 5);

    // The published create rule: the parent in the path, the bare repo (its proto3 JSON) as the body.
    const published = await srv.call('POST', `${REPOS}/${srv.organizationUid}`, { name: 'published/shape', catalogTier: 'CATALOG_TIER_AI', sync_config: { source: 'chainguard/x' } });
    t.is(published.status, 200, published.text);
    t.like(published.json, { name: 'published/shape', catalogTier: 'CATALOG_TIER_AI', sync_config: { source: 'chainguard/x' } });
    const tag = await srv.call('POST', `${TAGS}/${published.json.uid}`, { name: 'latest', digest: hex('f') });
    t.is(tag.status, 200, tag.text);
    t.true(tag.json.uid.startsWith(`${published.json.uid}/`));
    // A bad tier is refused by the domain with the field named; nothing is made.
    const badTier = await srv.call('POST', REPOS, { parent: srv.organizationUid, repo: { name: 'bad-tier', catalogTier: 'GOLD' } });
    t.is(badTier.status, 400);
    t.regex(JSON.stringify(badTier.json), /catalogTier/);
    t.is((await srv.ok('GET', `${REPOS}?name=bad-tier`)).repos.length, 0);
    t.is((await srv.call('DELETE', `${REPOS}/${published.json.uid}`)).status, 200);
    t.is((await srv.call('GET', `${TAGS}/${tag.json.uid}`)).status, 404, 'its tags went with it');

    // Create and delete (the vendor's ReposService): an unknown parent is a 404 that makes nothing.
    const post = await srv.call('POST', REPOS, { parent: 'x', repo: { name: 'y' } });
    t.is(post.status, 404);
    t.is(post.json.code, 5);
    t.is((await srv.call('DELETE', path)).status, 200);
    t.is((await srv.call('GET', path)).status, 404);
  } finally {
    await srv.dispose();
  }
});

test('tags list: uidp.children_of a repo uid; digest, deprecated, updateTime; no server-side deprecated filter', async (t) => {
  const { srv, repos } = await setup();
  try {
    const nginx = repos.nginx!.uid;
    const res = await srv.call('GET', `${TAGS}?uidp.children_of=${encodeURIComponent(nginx)}&order_by=name%20desc`);
    t.is(res.status, 200);
    t.is(res.json.totalCount, '3');
    t.deepEqual(names(res.json.tags), ['1.27', '1.26', '1.25']);
    for (const tag of res.json.tags) {
      t.regex(tag.digest, /^sha256:[0-9a-f]{64}$/);
      t.is(typeof tag.deprecated, 'boolean');
      t.regex(tag.updateTime, TS);
      t.true(tag.uid.startsWith(`${nginx}/`), 'tags nest under their repo');
    }
    t.deepEqual(res.json.tags.map((x: { deprecated: boolean }) => x.deprecated), [false, false, true]);
    t.is(res.json.tags[2].updateTime, '2025-01-02T03:04:05.000Z');

    // The raw (unencoded) uid works as well, and pages follow.
    const page1 = await srv.call('GET', `${TAGS}?uidp.children_of=${nginx}&page_size=2`);
    t.is(page1.json.tags.length, 2);
    const page2 = await srv.call('GET', `${TAGS}?uidp.children_of=${nginx}&page_size=2&page_token=${encodeURIComponent(page1.json.nextPageToken)}`);
    t.is(page2.json.tags.length, 1);
    t.falsy(page2.json.nextPageToken);

    // Every tag, and the tags below a group.
    t.is((await srv.call('GET', TAGS)).json.totalCount, '5');
    const org = nginx.split('/')[0]!;
    t.is((await srv.call('GET', `${TAGS}?uidp.descendants_of=${org}`)).json.totalCount, '5');
    t.is((await srv.call('GET', `${TAGS}?uidp.children_of=${encodeURIComponent(repos['tools/git']!.uid)}`)).json.totalCount, '0');

    // A repo that does not exist is a 404 naming the parameter.
    const missing = await srv.call('GET', `${TAGS}?uidp.children_of=${nginx}0`);
    t.is(missing.status, 404);
    t.is(missing.json.code, 5);
    t.deepEqual(fields(missing.json), ['uidp.children_of']);

    // The spec: no server-side filter for end-of-life tags.
    const filtered = await srv.call('GET', `${TAGS}?uidp.children_of=${nginx}&deprecated=true`);
    t.is(filtered.status, 400);
    t.is(filtered.json.code, 3);
    t.deepEqual(fields(filtered.json), ['deprecated']);
  } finally {
    await srv.dispose();
  }
});

test('tags get (an extension of the spec): by uid', async (t) => {
  const { srv, repos } = await setup();
  try {
    const list = await srv.call('GET', `${TAGS}?uidp.children_of=${repos.cosign!.uid}`);
    const tag = list.json.tags[0];
    const got = await srv.call('GET', `${TAGS}/${encodeURIComponent(tag.uid)}`);
    t.is(got.status, 200);
    t.deepEqual(got.json, tag);
    t.like(got.json, { name: '2.5', digest: hex('e'), deprecated: true });
    t.is((await srv.call('GET', `${TAGS}/${repos.cosign!.uid}`)).status, 404);
    // PATCH (serve's extension, for v1's UpdateTag) changes what it names.
    const patched = await srv.call('PATCH', `${TAGS}/${tag.uid}?updateMask=deprecated`, { deprecated: false });
    t.is(patched.status, 200);
    t.like(patched.json, { uid: tag.uid, name: '2.5', deprecated: false });
  } finally {
    await srv.dispose();
  }
});

test('access: repos and tags are visible and writable only where role bindings allow', async (t) => {
  const { srv, groups, repos } = await setup();
  try {
    // An identity of this server's issuer, viewer on platform (and so on platform/ci).
    const identity = await srv.call('POST', '/iam/v2/identities', {
      parent: groups.platform, identity: { name: 'bot', claimMatch: { issuer: srv.url, subject: 'bot' } },
    });
    t.is(identity.status, 200, identity.text);
    const viewer = (await srv.call('GET', '/iam/v2/roles?name=viewer')).json.roles[0].uid;
    const binding = await srv.call('POST', '/iam/v2/roleBindings', { parent: groups.platform, roleBinding: { identityUid: identity.json.uid, roleUid: viewer } });
    t.is(binding.status, 200, binding.text);
    const token = await srv.issueToken(identity.json.uid);
    const as = (method: string, path: string, body?: unknown) => request(srv.url, method, path, body, { authorization: `Bearer ${token}` });

    const list = await as('GET', `${REPOS}?order_by=name`);
    t.is(list.status, 200);
    t.deepEqual(names(list.json.repos), ['envoy', 'nginx', 'tools/git']);
    t.is(list.json.totalCount, '3');
    t.is((await as('GET', `${REPOS}/${repos.nginx!.uid}`)).status, 200);

    const hidden = await as('GET', `${REPOS}/${repos.cosign!.uid}`);
    t.is(hidden.status, 403);
    t.is(hidden.json.code, 7);
    const patch = await as('PATCH', `${REPOS}/${repos.nginx!.uid}`, { description: 'viewers cannot' });
    t.is(patch.status, 403);
    t.is(patch.json.code, 7);
    t.is((await srv.call('GET', `${REPOS}/${repos.nginx!.uid}`)).json.description, 'web server images');

    t.is((await as('GET', TAGS)).json.totalCount, '4');
    t.is((await as('GET', `${TAGS}?uidp.children_of=${repos.nginx!.uid}`)).json.totalCount, '3');
    const otherTags = await as('GET', `${TAGS}?uidp.children_of=${repos.cosign!.uid}`);
    t.is(otherTags.status, 403);
    t.is(otherTags.json.code, 7);
  } finally {
    await srv.dispose();
  }
});

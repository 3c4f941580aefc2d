// Name and uid-suffix references, end to end against a real serve that logs each request
// (so that the tests can count lookups). Serial: the request log is shared.
import test from 'ava';
import { closeAgent } from '../src/client/http.js';
import type { SeedDocument } from '../src/server/data/seed.js';
import { cli, lines } from './helpers/cli.js';
import { startTestServer, storeUnderTest, tempDir, type TestServer } from './helpers/serve.js';

const seed: SeedDocument = {
  organizations: [{
    name: 'acme',
    groups: [
      {
        name: 'platform',
        repos: [{ name: 'nginx', tags: [{ name: '1.27', digest: `sha256:${'a'.repeat(64)}` }] }, { name: 'shared-name' }],
        groups: [{ name: 'web' }, { name: 'ci' }],
      },
      { name: 'security', groups: [{ name: 'web' }], repos: [{ name: 'shared-name' }] },
    ],
  }],
};

let srv: TestServer;
let pctl: ReturnType<typeof cli>;
const requests: string[] = [];
const uids: Record<string, string> = {};

test.before(async () => {
  srv = await startTestServer({ seed, log: (line) => requests.push(line) });
  pctl = cli({ PCTL_API_URL: srv.url, PCTL_TOKEN: srv.ownerToken, PCTL_CONFIG_DIR: tempDir('pctl-cfg-') });
  const all = (await srv.call('GET', '/iam/v2/groups?page_size=200')).json.groups as { uid: string; name: string }[];
  const byName = (name: string) => all.filter((g) => g.name === name).map((g) => g.uid);
  uids.acme = byName('acme')[0]!;
  uids.platform = byName('platform')[0]!;
  uids.security = byName('security')[0]!;
  uids.ci = byName('ci')[0]!;
  const webs = byName('web').sort((a, b) => (a.startsWith(uids.platform!) ? -1 : b.startsWith(uids.platform!) ? 1 : 0));
  uids.platformWeb = webs[0]!;
  uids.securityWeb = webs[1]!;
  const repos = (await srv.call('GET', '/registry/v2/repos?page_size=200')).json.repos as { uid: string; name: string }[];
  uids.nginx = repos.find((r) => r.name === 'nginx')!.uid;
});

test.after.always(async () => {
  await closeAgent();
  await srv?.dispose();
});

/** Runs pctl and returns its result with the requests it made. */
async function counted(argv: string[], opts: Parameters<typeof pctl>[1] = {}) {
  requests.length = 0;
  const r = await pctl(argv, opts);
  return { ...r, requests: [...requests].map((l) => decodeURIComponent(l.split(' ').slice(0, 2).join(' '))) };
}

const last16 = (uid: string) => uid.slice(uid.lastIndexOf('/') + 1);

test.serial('a full uid is used as is: no lookup', async (t) => {
  const r = await counted(['groups', 'get', uids.ci!, '-o', 'json']);
  t.is(r.code, 0, r.stderr);
  t.is(JSON.parse(r.stdout).name, 'ci');
  t.deepEqual(r.requests, [`GET /iam/v2/groups/${uids.ci}`]);
});

test.serial('groups get NAME: one filtered listing, and the group is not fetched again', async (t) => {
  const r = await counted(['groups', 'get', 'platform', '-o', 'json']);
  t.is(r.code, 0, r.stderr);
  t.is(JSON.parse(r.stdout).uid, uids.platform);
  t.is(r.requests.length, 1);
  t.regex(r.requests[0]!, /^GET \/iam\/v2\/groups\?.*name=platform/);
});

test.serial('a unique uid suffix: the last segment, or several segments', async (t) => {
  const one = await counted(['groups', 'get', last16(uids.ci!), '-o', 'id']);
  t.is(one.code, 0, one.stderr);
  t.is(one.stdout, `${uids.ci}\n`);
  const suffix = uids.ci!.split('/').slice(-2).join('/');
  const two = await counted(['groups', 'get', suffix, '-o', 'id']);
  t.is(two.code, 0, two.stderr);
  t.is(two.stdout, `${uids.ci}\n`);
});

test.serial('get by uid suffix prints the whole resource, as get by uid does', async (t) => {
  for (const [noun, uid] of [['groups', uids.ci!], ['repos', uids.nginx!]] as const) {
    const full = await counted([noun, 'get', uid, '-o', 'json']);
    const bySuffix = await counted([noun, 'get', last16(uid), '-o', 'json']);
    t.is(bySuffix.code, 0, bySuffix.stderr);
    t.deepEqual(JSON.parse(bySuffix.stdout), JSON.parse(full.stdout), noun);
    t.truthy(JSON.parse(bySuffix.stdout).createTime, `${noun}: not just uid and name`);
  }
});

test.serial('list scopes take names; each reference is looked up once per command', async (t) => {
  const r = await counted(['groups', 'list', '--descendants-of', 'platform', '--children-of', 'platform', '-o', 'id', '--order-by', 'name']);
  t.is(r.code, 0, r.stderr);
  t.deepEqual(lines(r.stdout).sort(), [uids.ci, uids.platformWeb].sort());
  const lookups = r.requests.filter((l) => /[?&]name=platform/.test(l));
  t.is(lookups.length, 1, r.requests.join('\n'));
  const listing = r.requests.filter((l) => l.includes(`uidp.descendants_of=${uids.platform}`));
  t.is(listing.length, 1);
  t.true(listing[0]!.includes(`uidp.children_of=${uids.platform}`));

  const ids = await counted(['identities', 'list', '--group', 'security', '-o', 'id']);
  t.is(ids.code, 0, ids.stderr);
  t.true(ids.requests.some((l) => l.includes(`uidp.children_of=${uids.security}`)));
});

test.serial('an ambiguous name exits 2 and lists the candidates (uid and name) on stderr', async (t) => {
  const r = await counted(['groups', 'get', 'web']);
  t.is(r.code, 2);
  t.is(r.stdout, '');
  const err = lines(r.stderr);
  t.regex(err[0]!, /^error: "web" is ambiguous: it matches 2 groups; give one of these uids instead$/);
  t.deepEqual(err.slice(1).sort(), [`  ${uids.platformWeb}: web`, `  ${uids.securityWeb}: web`].sort());

  const flag = await counted(['groups', 'create', 'x', '--parent', 'web']);
  t.is(flag.code, 2);
  t.regex(flag.stderr, /^error: --parent: "web" is ambiguous/);
  t.false(flag.requests.some((l) => l.startsWith('POST')), 'nothing was created');
});

test.serial('siblings may share a name, as help says: both are created, and the name is then ambiguous until one goes', async (t) => {
  const help = await pctl(['groups', 'create', '--help']);
  t.regex(help.stdout.replace(/\s+/g, ' '), /Siblings may share a name/);
  const first = await counted(['groups', 'create', 'twin', '--parent', uids.platform!, '-o', 'id']);
  const second = await counted(['groups', 'create', 'twin', '--parent', uids.platform!, '-o', 'id']);
  t.is(first.code, 0, first.stderr);
  t.is(second.code, 0, second.stderr);
  t.not(first.stdout, second.stdout);
  const both = await counted(['groups', 'get', 'twin']);
  t.is(both.code, 2);
  t.deepEqual(lines(both.stderr).slice(1).sort(), [`  ${first.stdout.trim()}: twin`, `  ${second.stdout.trim()}: twin`].sort());
  t.is((await counted(['groups', 'delete', second.stdout.trim(), '--yes'])).code, 0);
  const one = await counted(['groups', 'get', 'twin', '-o', 'id']);
  t.is(one.stdout.trim(), first.stdout.trim(), 'the name works again once it is unique');
  t.is((await counted(['groups', 'delete', 'twin', '--yes'])).code, 0);
});

test.serial('no match exits 3 (not found)', async (t) => {
  const r = await counted(['groups', 'get', 'no-such-group']);
  t.is(r.code, 3);
  t.regex(r.stderr, /^error: Group not found: no group has the name or uid suffix "no-such-group"/);
  const suffix = await counted(['groups', 'list', '--descendants-of', 'ffffffffffffffff']);
  t.is(suffix.code, 3);
  t.regex(suffix.stderr, /^error: --descendants-of: Group not found/);
});

test.serial('create, update and delete take references; delete asks about the uid it resolved to', async (t) => {
  const created = await counted(['groups', 'create', 'made-by-name', '--parent', 'platform', '-o', 'json']);
  t.is(created.code, 0, created.stderr);
  const made = JSON.parse(created.stdout);
  t.true(made.uid.startsWith(`${uids.platform}/`));

  const updated = await counted(['groups', 'update', 'made-by-name', '--description', 'renamed by name', '-o', 'json']);
  t.is(updated.code, 0, updated.stderr);
  t.is(JSON.parse(updated.stdout).description, 'renamed by name');

  const identity = await counted(['identities', 'create', 'bot', '--parent', 'made-by-name', '--issuer', 'https://issuer.example', '--subject', 'bot', '-o', 'json']);
  t.is(identity.code, 0, identity.stderr);
  t.true(JSON.parse(identity.stdout).uid.startsWith(`${made.uid}/`));
  const binding = await counted(['role-bindings', 'create', '--parent', 'made-by-name', '--identity', JSON.parse(identity.stdout).uid, '--role', 'viewer', '-o', 'json']);
  t.is(binding.code, 0, binding.stderr);

  const refused = await counted(['groups', 'delete', 'made-by-name']);
  t.is(refused.code, 2, 'no terminal, no --yes');
  t.deepEqual(refused.requests, [], 'refused before any lookup');

  const r = await pctl(['groups', 'delete', last16(made.uid)], { tty: true, confirm: false });
  t.is(r.code, 2);
  t.true(r.stderr.includes('Aborted'));
});

test.serial('repos: get/update by name or suffix; tags list --repo NAME', async (t) => {
  const got = await counted(['repos', 'get', 'nginx', '-o', 'json']);
  t.is(got.code, 0, got.stderr);
  t.is(JSON.parse(got.stdout).uid, uids.nginx);
  t.is(got.requests.length, 1);

  const tags = await counted(['tags', 'list', '--repo', 'nginx', '--jq', '.[].name']);
  t.is(tags.code, 0, tags.stderr);
  t.is(tags.stdout, '1.27\n');

  const bySuffix = await counted(['repos', 'update', last16(uids.nginx!), '--description', 'by suffix', '--jq', '.description']);
  t.is(bySuffix.code, 0, bySuffix.stderr);
  t.is(bySuffix.stdout, 'by suffix\n');

  const ambiguous = await counted(['tags', 'list', '--repo', 'shared-name']);
  t.is(ambiguous.code, 2);
  t.regex(ambiguous.stderr, /^error: --repo: "shared-name" is ambiguous: it matches 2 repos/);

  const repos = await counted(['repos', 'list', '--children-of', 'platform', '-o', 'id']);
  t.is(repos.code, 0, repos.stderr);
  t.is(lines(repos.stdout).length, 2);
});

test.serial('a name path from the organization: walked with children_of + name, a listing per level, each once', async (t) => {
  const r = await counted(['groups', 'list', '--descendants-of', 'acme/platform', '--children-of', 'acme/platform', '-o', 'id']);
  t.is(r.code, 0, r.stderr);
  const byUid = await pctl(['groups', 'list', '--children-of', uids.platform!, '-o', 'id']);
  t.deepEqual(lines(r.stdout), lines(byUid.stdout), 'the same groups as by uid');
  t.true(lines(r.stdout).includes(uids.ci!));
  const lookups = r.requests.filter((l) => !l.includes('uidp.descendants_of'));
  t.is(lookups.length, 2, r.requests.join('\n'));
  t.regex(lookups[0]!, /^GET \/iam\/v2\/groups\?.*name=acme/);
  t.false(lookups[0]!.includes('uidp.children_of'), 'the organization: by name alone');
  t.true(lookups[1]!.includes(`uidp.children_of=${uids.acme}`) && /[?&]name=platform(&|$)/.test(lookups[1]!), lookups[1]);

  // "web" alone is ambiguous; its path is not.
  const web = await counted(['groups', 'get', 'acme/security/web', '-o', 'id']);
  t.is(web.code, 0, web.stderr);
  t.is(web.stdout, `${uids.securityWeb}\n`);
  t.is(web.requests.length, 3, 'one listing per level, and the group is not fetched again');
});

test.serial('identities create --parent PATH makes the identity in that group', async (t) => {
  const r = await counted(['identities', 'create', 'path-bot', '--parent', 'acme/platform', '--issuer', 'https://issuer.example', '--subject', 'path-bot', '-o', 'json']);
  t.is(r.code, 0, r.stderr);
  const made = JSON.parse(r.stdout) as { uid: string };
  t.teardown(() => srv.call('DELETE', `/iam/v2/identities/${made.uid}`));
  t.is(made.uid.slice(0, made.uid.lastIndexOf('/')), uids.platform!);
});

test.serial('a name path that stops: exit 3, naming the level that is missing', async (t) => {
  const below = await counted(['groups', 'get', 'acme/platform/nope']);
  t.is(below.code, 3);
  t.is(lines(below.stderr)[0], 'error: Group not found: "acme/platform/nope": no group in acme/platform is named "nope" (see: pctl groups list)');

  const org = await counted(['identities', 'create', 'x', '--parent', 'nosuch/platform', '--issuer', 'https://issuer.example', '--subject', 'x']);
  t.is(org.code, 3);
  t.is(lines(org.stderr)[0], 'error: --parent: Group not found: "nosuch/platform": no organization is named "nosuch" (see: pctl groups list)');
  t.false(org.requests.some((l) => l.startsWith('POST')), 'nothing was created');
});

test.serial('a name path through siblings of the same name: exit 2, the candidates on stderr', async (t) => {
  const twins: string[] = [];
  for (let i = 0; i < 2; i++) {
    const r = await srv.call('POST', '/iam/v2/groups', { parent: uids.security, group: { name: 'twin' } });
    t.is(r.status, 200, JSON.stringify(r.json));
    twins.push(r.json.uid as string);
  }
  t.teardown(async () => {
    for (const uid of twins) await srv.call('DELETE', `/iam/v2/groups/${uid}`);
  });
  for (const path of ['acme/security/twin', 'acme/security/twin/deeper']) {
    const r = await counted(['groups', 'list', '--children-of', path]);
    t.is(r.code, 2, path);
    const err = lines(r.stderr);
    t.is(err[0], `error: --children-of: "${path}" is ambiguous: 2 groups in acme/security are named "twin"; give one of these uids instead`);
    t.deepEqual(err.slice(1).sort(), twins.map((uid) => `  ${uid}: acme/security/twin`).sort());
  }
});

test.serial('role-bindings create --identity takes a name, a uid suffix or a name path for --parent, with the same errors', async (t) => {
  const make = async (name: string, parent: string) => {
    const r = await srv.call('POST', '/iam/v2/identities', { parent, identity: { name, claimMatch: { issuer: 'https://issuer.example', subject: `${name}@${parent}` } } });
    t.is(r.status, 200, JSON.stringify(r.json));
    return r.json.uid as string;
  };
  const ciBot = await make('ci-bot', uids.ci!);
  const twins = [await make('twin-bot', uids.ci!), await make('twin-bot', uids.platformWeb!)];
  const made: string[] = [];
  t.teardown(async () => {
    for (const uid of made) await srv.call('DELETE', `/iam/v2/roleBindings/${uid}`);
    for (const uid of [ciBot, ...twins]) await srv.call('DELETE', `/iam/v2/identities/${uid}`);
  });

  for (const [identity, parent, role] of [['ci-bot', 'acme/platform/ci', 'viewer'], [last16(ciBot), 'ci', 'editor']]) {
    const r = await counted(['role-bindings', 'create', '--parent', parent!, '--identity', identity!, '--role', role!, '-o', 'json']);
    t.is(r.code, 0, r.stderr);
    const binding = JSON.parse(r.stdout);
    t.like(binding, { identity: { uid: ciBot, name: 'ci-bot' } });
    made.push(binding.uid);
  }

  const ambiguous = await counted(['role-bindings', 'create', '--parent', 'ci', '--identity', 'twin-bot', '--role', 'viewer']);
  t.is(ambiguous.code, 2);
  const err = lines(ambiguous.stderr);
  t.is(err[0], 'error: --identity: "twin-bot" is ambiguous: it matches 2 identities; give one of these uids instead');
  t.deepEqual(err.slice(1).sort(), twins.map((uid) => `  ${uid}: twin-bot`).sort());
  t.false(ambiguous.requests.some((l) => l.startsWith('POST')), 'nothing was created');

  const unknown = await counted(['role-bindings', 'create', '--parent', 'ci', '--identity', 'nobody', '--role', 'viewer']);
  t.is(unknown.code, 3);
  t.regex(unknown.stderr, /^error: --identity: Identity not found: no identity has the name or uid suffix "nobody" \(see: pctl identities list\)\n$/);
});

test.serial('roles: two custom roles of one name are ambiguous, as other kinds are; a uid suffix picks one', async (t) => {
  const make = async (parent: string) => (await srv.ok('POST', '/iam/v2/roles', { parent, role: { name: 'auditor', capabilities: ['groups.list'] } })).uid as string;
  const twins = [await make(uids.ci!), await make(uids.securityWeb!)];
  const bot = (await srv.ok('POST', '/iam/v2/identities', { parent: uids.ci, identity: { name: 'audit-bot', claimMatch: { issuer: 'https://issuer.example', subject: 'audit-bot' } } })).uid as string;
  const made: string[] = [];
  t.teardown(async () => {
    for (const uid of made) await srv.call('DELETE', `/iam/v2/roleBindings/${uid}`);
    await srv.call('DELETE', `/iam/v2/identities/${bot}`);
    for (const uid of twins) await srv.call('DELETE', `/iam/v2/roles/${uid}`);
  });

  const ambiguous = await counted(['role-bindings', 'create', '--parent', 'ci', '--identity', 'audit-bot', '--role', 'auditor']);
  t.is(ambiguous.code, 2);
  const err = lines(ambiguous.stderr);
  t.is(err[0], 'error: --role: "auditor" is ambiguous: it matches 2 roles; give one of these uids instead');
  t.deepEqual(err.slice(1).sort(), twins.map((uid) => `  ${uid}: auditor`).sort());
  t.false(ambiguous.requests.some((l) => l.startsWith('POST')), 'nothing was created');
  const get = await counted(['roles', 'get', 'auditor']);
  t.is(get.code, 2);
  t.is(lines(get.stderr)[0], 'error: "auditor" is ambiguous: it matches 2 roles; give one of these uids instead');

  const bySuffix = await counted(['role-bindings', 'create', '--parent', 'ci', '--identity', 'audit-bot', '--role', last16(twins[0]!), '-o', 'json']);
  t.is(bySuffix.code, 0, bySuffix.stderr);
  const binding = JSON.parse(bySuffix.stdout);
  made.push(binding.uid);
  t.like(binding, { role: { uid: twins[0] } });
  // A built-in role's name is no custom role's: still one match.
  const viewer = await counted(['roles', 'get', 'viewer', '-o', 'json']);
  t.is(viewer.code, 0, viewer.stderr);
});

test.serial('invites: a uid suffix names one (get, delete); none matching is not found, as for other kinds', async (t) => {
  const created = await counted(['invites', 'create', '--parent', 'acme/platform/ci', '--role', 'viewer', '--ttl', '1d', '-o', 'json']);
  t.is(created.code, 0, created.stderr);
  const invite = JSON.parse(created.stdout) as { uid: string };
  const got = await counted(['invites', 'get', last16(invite.uid), '-o', 'json']);
  t.is(got.code, 0, got.stderr);
  t.is(JSON.parse(got.stdout).uid, invite.uid);

  const unknown = await counted(['invites', 'get', '0123456789abcdef']);
  t.is(unknown.code, 3);
  t.is(unknown.stderr, 'error: Invite not found: no invite has the uid suffix "0123456789abcdef" (see: pctl invites list)\n');

  const deleted = await counted(['invites', 'delete', last16(invite.uid), '--yes']);
  t.is(deleted.code, 0, deleted.stderr);
  t.true(deleted.requests.includes(`DELETE /iam/v2/groupInvites/${invite.uid}`), deleted.requests.join('\n'));
});

// serve token reads a SQLite data dir: registered only when the store under test is SQLite.
if (storeUnderTest === 'sqlite') test.serial('serve token --identity takes a name or a uid suffix, with the same errors as every reference', async (t) => {
  const bot = await srv.person('token-bot', 'viewer', uids.acme!);
  const twinIssuer = (await srv.ok('GET', `/iam/v2/identities/${encodeURIComponent(bot.id.uid)}`)).claimMatch.issuer as string;
  const twins = [uids.ci!, uids.security!].map(async (parent) => (await srv.ok('POST', '/iam/v2/identities', { parent, identity: { name: 'token-twin', claimMatch: { issuer: twinIssuer, subject: `twin@${parent}` } } })).uid as string);
  const twinUids = await Promise.all(twins);
  t.teardown(async () => {
    for (const uid of [bot.id.uid, ...twinUids]) await srv.call('DELETE', `/iam/v2/identities/${uid}`);
  });
  const serveToken = cli({ PCTL_CONFIG_DIR: tempDir('pctl-cfg-') });

  for (const ref of ['token-bot', last16(bot.id.uid)]) {
    const r = await serveToken(['serve', 'token', '--data', srv.dataDir, '--identity', ref]);
    t.is(r.code, 0, r.stderr);
    const token = r.stdout.trim();
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { sub: string };
    t.is(claims.sub, 'token-bot', ref);
    // serve takes it: the identity's own token.
    const asBot = await cli({ PCTL_API_URL: srv.url, PCTL_TOKEN: token, PCTL_CONFIG_DIR: tempDir('pctl-cfg-') })(['groups', 'get', 'acme', '-o', 'id']);
    t.is(asBot.stdout, `${uids.acme}\n`, asBot.stderr);
  }

  const ambiguous = await serveToken(['serve', 'token', '--data', srv.dataDir, '--identity', 'token-twin']);
  t.is(ambiguous.code, 2);
  const err = lines(ambiguous.stderr);
  t.is(err[0], 'error: --identity: "token-twin" is ambiguous: it matches 2 identities; give one of these uids instead');
  t.deepEqual(err.slice(1).sort(), twinUids.map((uid) => `  ${uid}: token-twin`).sort());
  t.is(ambiguous.stdout, '');

  const unknown = await serveToken(['serve', 'token', '--data', srv.dataDir, '--identity', 'nobody']);
  t.is(unknown.code, 3);
  t.is(unknown.stderr, 'error: --identity: Identity not found: no identity has the name or uid suffix "nobody" (see: pctl identities list)\n');
});

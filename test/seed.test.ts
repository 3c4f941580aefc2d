// Seed files: validation with paths, loading at bootstrap, `pctl serve --seed/--demo`,
// `pctl serve export` round trips, `pctl serve reset`.
import test from 'ava';
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { cli, type RunResult } from './helpers/cli.js';
import { startTestServer, tempDir, request } from './helpers/serve.js';
import { startServer } from '../src/server/index.js';
import { demoSeed } from '../src/server/data/demo.js';
import { SeedValidationError, validateSeed, type SeedDocument } from '../src/server/data/seed.js';

const hex = (c: string) => `sha256:${c.repeat(64)}`;
const GH = 'https://token.actions.githubusercontent.com';

/** Runs `pctl …` in-process with a private config dir. */
function pctl(argv: string[]): Promise<RunResult> {
  const configDir = tempDir('pctl-seed-config-');
  return cli({ PCTL_CONFIG_DIR: configDir })(argv).finally(() => rmSync(configDir, { recursive: true, force: true }));
}

function violations(fn: () => unknown): { field: string; description: string }[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof SeedValidationError) return err.violations;
    throw err;
  }
  throw new Error('expected a SeedValidationError');
}

/** A seed with a bit of everything: nesting, identities, bindings (plain and path references), tags, advisories, two organizations. */
const richSeed: SeedDocument = {
  organizations: [
    {
      name: 'acme',
      description: 'Example organization',
      roleBindings: [{ identity: 'acme/platform/deployer', role: 'viewer' }],
      groups: [
        {
          name: 'platform',
          identities: [
            { name: 'deployer', description: 'CI deploys', claimMatch: { issuer: GH, subject: 'repo:acme/app:ref:refs/heads/main' } },
            { name: 'shadowed', claimMatch: { issuer: GH, subject: 'repo:acme/app:pull_request' } },
            { name: 'workflows', claimMatch: { issuer: GH, subjectPattern: 'repo:acme/.*:ref:refs/heads/main', audience: 'https://api.example', claimPatterns: { workflow_ref: 'acme/.*@refs/heads/main' } } },
          ],
          roles: [{ name: 'releaser', description: 'Updates repos', capabilities: ['repo.list', 'repo.update'] }],
          roleBindings: [{ identity: 'deployer', role: 'editor' }, { identity: 'deployer', role: 'releaser' }],
          repos: [
            {
              name: 'nginx', description: 'web server images',
              tags: [
                { name: '1.27', digest: hex('a'), deprecated: false },
                { name: '1.25', digest: hex('b'), deprecated: true },
              ],
            },
          ],
          groups: [
            {
              name: 'ci',
              // A nearer identity of the same name: the plain reference binds this one.
              identities: [{ name: 'shadowed', claimMatch: { issuer: GH, subject: 'repo:acme/ci:ref:refs/heads/main' } }],
              roleBindings: [
                { identity: 'shadowed', role: 'viewer' },
                { identity: 'deployer', role: 'viewer' },
                // …and the path form binds the other one.
                { identity: 'acme/platform/shadowed', role: 'editor' },
                { identity: 'shadowed', role: 'acme/platform/releaser' },
                { identity: 'shadowed', role: 'releaser' },
              ],
              roles: [{ name: 'releaser', capabilities: ['repo.list'] }],
              groups: [{ name: 'deep', groups: [{ name: 'deeper', repos: [{ name: 'tools/git' }] }] }],
            },
          ],
        },
        { name: 'security', description: 'sec', groups: [] },
      ],
    },
    { name: 'other org', repos: [{ name: 'nginx', tags: [{ name: 'latest', digest: hex('c') }] }] },
  ],
  advisories: [
    { advisoryId: 'CGA-2026-0001', artifactName: 'nginx' },
    { advisoryId: 'CGA-2026-0002', artifactName: 'tools/git', updateTime: '2025-12-31T23:59:59.5Z' },
  ],
};

test('validation: every shape problem at once, each by its path', (t) => {
  const bad = {
    organizations: [
      {
        name: 'acme',
        groups: [
          {
            name: 'platform',
            colour: 'blue',
            identities: [{ name: 'deployer' }],
            repos: [
              {
                name: 'Nginx',
                tags: [
                  { name: '1.27', digest: hex('a'), deprecated: 'no' },
                  { name: '1.26', digest: 'sha256:ABC' },
                  { name: '1.25', digest: hex('A') },
                ],
              },
            ],
          },
          { name: 'Bad Name!' },
        ],
      },
    ],
    advisories: [{ advisoryId: 'CGA 1', artifactName: 'a,b' }, 'nope'],
    extra: true,
  };
  const v = violations(() => validateSeed(bad));
  const byField = Object.fromEntries(v.map((x) => [x.field, x.description]));
  t.is(byField['organizations[0].groups[1].name'], 'must match ^[a-z0-9 ._-]{1,}$');
  t.is(byField['organizations[0].groups[0].colour'], 'is not a known field');
  t.is(byField['organizations[0].groups[0].identities[0].claimMatch'], 'exactly one of claimMatch, staticKeys, awsIdentity, servicePrincipal must be set', 'an identity without a relationship');
  t.regex(byField['organizations[0].groups[0].repos[0].name']!, /must match \^\[a-z0-9\]/);
  t.is(byField['organizations[0].groups[0].repos[0].tags[0].deprecated'], 'must be a boolean');
  t.regex(byField['organizations[0].groups[0].repos[0].tags[1].digest']!, /sha256:/);
  t.regex(byField['organizations[0].groups[0].repos[0].tags[2].digest']!, /lower-case hex/);
  t.truthy(byField['advisories[0].advisoryId']);
  t.truthy(byField['advisories[0].artifactName']);
  t.is(byField['advisories[1]'], 'must be an object');
  t.is(byField.extra, 'is not a known field');
  t.is(v.length, 11);

  t.deepEqual(violations(() => validateSeed([])), [{ field: '(document)', description: 'must be an object' }]);
  t.notThrows(() => validateSeed({}));
});

test('validation: duplicates where the API refuses them, unresolved references, unknown roles', (t) => {
  const claim = { issuer: GH, subject: 'same' };
  const v = violations(() =>
    validateSeed({
      organizations: [
        {
          name: 'acme',
          identities: [{ name: 'a', claimMatch: claim }],
          groups: [
            {
              name: 'x',
              identities: [{ name: 'b', claimMatch: claim }, { name: 'b', claimMatch: { issuer: GH, subject: 'other' } }],
              repos: [{ name: 'r', tags: [{ name: 't', digest: hex('a') }, { name: 't', digest: hex('b') }] }, { name: 'r' }],
              roleBindings: [{ identity: 'nobody', role: 'viewer' }, { identity: 'a', role: 'superuser' }, { identity: 'acme/x/b', role: 'viewer' }],
            },
            { name: 'x' },
          ],
        },
        { name: 'acme' },
      ],
      advisories: [{ advisoryId: 'A-1', artifactName: 'r' }, { advisoryId: 'A-1', artifactName: 'r' }],
    }),
  );
  const fields = v.map((x) => x.field).sort();
  t.deepEqual(fields, [
    'advisories[1]',
    'organizations[0].groups[0].identities[0].claimMatch',
    'organizations[0].groups[0].identities[1]',
    'organizations[0].groups[0].repos[0].tags[1]',
    'organizations[0].groups[0].repos[1]',
    'organizations[0].groups[0].roleBindings[0].identity',
    'organizations[0].groups[0].roleBindings[1].role',
    'organizations[0].groups[0].roleBindings[2].identity',
    'organizations[1]',
  ].sort(), 'two groups named x under one parent are allowed, as the API allows them');
  t.regex(v.find((x) => x.field === 'organizations[0].groups[0].roleBindings[2].identity')!.description, /is ambiguous: more than one group has the path acme\/x/);

  const roles = violations(() => validateSeed({
    organizations: [{ name: 'acme', roles: [{ name: 'viewer', capabilities: ['repo.list', 'repo.fly'] }], roleBindings: [{ identity: 'x', role: 'ghost' }] }],
  }));
  // Shape problems and unresolved references in one report.
  t.deepEqual(roles.map((x) => x.field), [
    'organizations[0].roles[0].name', 'organizations[0].roles[0].capabilities[1]', 'organizations[0].roleBindings[0].role', 'organizations[0].roleBindings[0].identity',
  ]);
  const refs = violations(() => validateSeed({
    organizations: [{ name: 'acme', identities: [{ name: 'x', claimMatch: { issuer: GH, subject: 's' } }], roleBindings: [{ identity: 'x', role: 'ghost' }] }],
  }));
  t.deepEqual(refs.map((x) => x.field), ['organizations[0].roleBindings[0].role']);
});

test('startServer: an invalid seed is refused as a whole and writes nothing', async (t) => {
  const dir = tempDir();
  try {
    const seed = { organizations: [{ name: 'acme', groups: [{ name: 'ok' }, { name: 'NOT OK' }] }] } as SeedDocument;
    const err = await t.throwsAsync(startServer({ dataDir: dir, port: 0, seed }), { instanceOf: SeedValidationError });
    t.deepEqual(err.violations.map((v) => v.field), ['organizations[0].groups[1].name']);
    t.false(existsSync(join(dir, 'pctl.db')));
    t.false(existsSync(join(dir, 'owner.token')));
    // The dir is usable afterwards: nothing half-written, no lock left behind.
    const srv = await startServer({ dataDir: dir, port: 0 });
    const groups = await request(srv.url, 'GET', '/iam/v2/groups', undefined, { authorization: `Bearer ${srv.ownerToken}` });
    t.deepEqual(groups.json.groups.map((g: { name: string }) => g.name), ['local']);
    await srv.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a seed loads at bootstrap: the first organization holds the owner, who owns every seeded organization', async (t) => {
  const srv = await startTestServer({ seed: richSeed });
  try {
    t.true(srv.seeded);
    const groups = (await srv.call('GET', '/iam/v2/groups?page_size=200&order_by=name')).json.groups as { uid: string; name: string }[];
    t.deepEqual(groups.map((g) => g.name), ['acme', 'ci', 'deep', 'deeper', 'other org', 'platform', 'security']);
    const acme = groups.find((g) => g.name === 'acme')!;
    const other = groups.find((g) => g.name === 'other org')!;
    t.is(srv.organizationUid, acme.uid);
    t.true(srv.ownerIdentityUid.startsWith(`${acme.uid}/`));

    const bindings = (await srv.call('GET', '/iam/v2/roleBindings?page_size=200')).json.roleBindings as {
      identity: { uid: string; name: string; subject: string }; group: { uid: string; name: string }; role: { name: string };
    }[];
    const owners = bindings.filter((b) => b.identity.uid === srv.ownerIdentityUid).map((b) => `${b.group.name}:${b.role.name}`).sort();
    t.deepEqual(owners, ['acme:owner', 'other org:owner']);
    const rest = bindings.filter((b) => b.identity.uid !== srv.ownerIdentityUid).map((b) => `${b.group.name}:${b.identity.subject}:${b.role.name}`).sort();
    t.deepEqual(rest, [
      'acme:repo:acme/app:ref:refs/heads/main:viewer',
      'ci:repo:acme/app:pull_request:editor',
      'ci:repo:acme/app:ref:refs/heads/main:viewer',
      'ci:repo:acme/ci:ref:refs/heads/main:releaser',
      'ci:repo:acme/ci:ref:refs/heads/main:releaser',
      'ci:repo:acme/ci:ref:refs/heads/main:viewer',
      'platform:repo:acme/app:ref:refs/heads/main:editor',
      'platform:repo:acme/app:ref:refs/heads/main:releaser',
    ]);
    // The two `releaser` bindings in ci name two different custom roles: ci's own and platform's.
    const ciReleasers = bindings.filter((b) => b.group.name === 'ci' && b.role.name === 'releaser').map((b) => (b as unknown as { role: { uid: string } }).role.uid);
    t.is(new Set(ciReleasers).size, 2);
    const roles = (await srv.call('GET', '/iam/v2/roles?name=releaser')).json.roles as { capabilities: string[] }[];
    t.deepEqual(roles.map((r) => r.capabilities.join(',')).sort(), ['repo.list', 'repo.list,repo.update']);

    const repos = (await srv.call('GET', '/registry/v2/repos?order_by=name')).json.repos as { uid: string; name: string }[];
    t.deepEqual(repos.map((r) => r.name), ['nginx', 'nginx', 'tools/git']);
    t.true(repos.some((r) => r.uid.startsWith(`${other.uid}/`)));
    const git = repos.find((r) => r.name === 'tools/git')!;
    t.is(git.uid.split('/').length, 6, 'org/platform/ci/deep/deeper/repo');

    const adv = (await srv.call('GET', '/vulnerabilities/v2/advisories?advisoryIds=CGA-2026-0002')).json.advisories;
    t.is(adv[0].updateTime, '2025-12-31T23:59:59.500Z');
  } finally {
    await srv.dispose();
  }
});

test('export → seed into a new dir → export gives the identical document (also while serve runs)', async (t) => {
  const a = await startTestServer({ seed: richSeed });
  const dirB = tempDir();
  const file = join(tempDir('pctl-seedfile-'), 'seed.yaml');
  try {
    const first = await pctl(['serve', 'export', '--data', a.dataDir]);
    t.is(first.code, 0, first.stderr);
    t.is(first.stderr, '');
    const doc = YAML.parse(first.stdout) as SeedDocument;
    // The bootstrap owner is not exported; everything seeded is.
    t.false(first.stdout.includes('owner'));
    t.is(doc.organizations![0]!.name, 'acme');
    t.deepEqual(doc.organizations!.map((o) => o.name), ['acme', 'other org']);
    t.deepEqual(validateSeed(doc), doc);
    // A pattern identity keeps its patterns (and only the fields it sets).
    t.deepEqual(doc.organizations![0]!.groups![0]!.identities!.find((i) => i.name === 'workflows')?.claimMatch, richSeed.organizations![0]!.groups![0]!.identities![2]!.claimMatch);
    const ci = doc.organizations![0]!.groups![0]!.groups![0]!;
    t.deepEqual(ci.roleBindings, [
      { identity: 'acme/platform/shadowed', role: 'editor' },
      { identity: 'deployer', role: 'viewer' },
      { identity: 'shadowed', role: 'acme/platform/releaser' },
      { identity: 'shadowed', role: 'releaser' },
      { identity: 'shadowed', role: 'viewer' },
    ]);
    t.deepEqual(ci.roles, [{ name: 'releaser', capabilities: ['repo.list'] }]);

    writeFileSync(file, first.stdout);
    const b = await startServer({ dataDir: dirB, port: 0, seed: validateSeed(YAML.parse(readFileSync(file, 'utf8'))) });
    await b.close();
    const second = await pctl(['serve', 'export', '--data', dirB]);
    t.is(second.code, 0, second.stderr);
    t.is(second.stdout, first.stdout);
  } finally {
    await a.dispose();
    rmSync(dirB, { recursive: true, force: true });
    rmSync(join(file, '..'), { recursive: true, force: true });
  }
});

test('sibling groups with one name, as the API allows them: export writes what seed reads, each keeping its own members', async (t) => {
  const a = await startTestServer();
  const dirB = tempDir();
  try {
    const org = a.organizationUid;
    const viewer = await a.roleUid('viewer');
    for (const subject of ['bot-1', 'bot-2']) {
      const web = await a.ok('POST', '/iam/v2/groups', { parent: org, group: { name: 'web', description: subject } });
      const bot = await a.ok('POST', '/iam/v2/identities', { parent: web.uid, identity: { name: 'bot', claimMatch: { issuer: GH, subject } } });
      await a.ok('POST', '/iam/v2/roleBindings', { parent: web.uid, roleBinding: { identityUid: bot.uid, roleUid: viewer } });
    }
    const first = await pctl(['serve', 'export', '--data', a.dataDir]);
    t.is(first.code, 0, first.stderr);
    const doc = validateSeed(YAML.parse(first.stdout));
    t.deepEqual(doc.organizations![0]!.groups!.map((g) => g.name), ['web', 'web']);

    const b = await startServer({ dataDir: dirB, port: 0, seed: doc });
    const second = await pctl(['serve', 'export', '--data', dirB]);
    t.is(second.stdout, first.stdout, 'the same document again');
    // Each web group's binding names the bot of that group, not the other one's.
    for (const web of b.store.children(b.organizationUid, 'group')) {
      const [binding] = b.store.children(web.uid, 'roleBinding');
      const identity = b.store.get(String(binding!.data.identityUid), 'identity')!;
      t.is(identity.parent, web.uid, web.data.description);
      t.is((identity.data.claimMatch as { subject: string }).subject, web.data.description);
    }
    await b.close();
  } finally {
    await a.dispose();
    rmSync(dirB, { recursive: true, force: true });
  }
});

test('export with no data is an error; export of a fresh dir is the default organization', async (t) => {
  const empty = tempDir();
  try {
    const res = await pctl(['serve', 'export', '--data', empty]);
    t.is(res.code, 1);
    t.regex(res.stderr, /^error: .*holds no pctl data/);
    t.false(existsSync(join(empty, 'pctl.db')));
    const srv = await startServer({ dataDir: empty, port: 0 });
    await srv.close();
    const fresh = await pctl(['serve', 'export', '--data', empty]);
    t.deepEqual(YAML.parse(fresh.stdout), { organizations: [{ name: 'local', description: 'Organization created by pctl serve' }] });
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
});

test('the demo data set: deterministic, valid, and loads with the promised counts', async (t) => {
  t.deepEqual(demoSeed(), demoSeed());
  const doc = validateSeed(demoSeed());
  t.is(doc.organizations![0]!.name, 'acme');

  const srv = await startTestServer({ seed: demoSeed() });
  try {
    const count = async (path: string) => Number((await srv.call('GET', path)).json.totalCount);
    t.is(await count('/registry/v2/repos'), 22);
    t.is(await count('/vulnerabilities/v2/advisories'), 100);
    t.is(await count('/iam/v2/groups'), 9); // acme and 8 groups below it
    t.is(await count('/iam/v2/identities'), 9); // 8 CI identities and the owner
    t.true((await count('/iam/v2/roleBindings')) >= 10);
    const tags = await count('/registry/v2/tags');
    t.true(tags >= 22 * 9 && tags <= 22 * 13, String(tags));

    // Some tags are deprecated, in every repo; digests are well-formed.
    let deprecated = 0;
    let token = '';
    do {
      const page = (await srv.call('GET', `/registry/v2/tags?page_size=200${token ? `&page_token=${encodeURIComponent(token)}` : ''}`)).json;
      for (const tag of page.tags) {
        t.regex(tag.digest, /^sha256:[0-9a-f]{64}$/);
        t.regex(tag.name, /^(\d+\.\d+|latest)$/, 'a version as people write it (never 17.-4)');
        if (tag.deprecated) deprecated++;
      }
      token = page.nextPageToken;
    } while (token);
    t.true(deprecated > 22 && deprecated < tags / 2, String(deprecated));

    // CI identities of the GitHub Actions issuer; advisories name real repos.
    const ids = (await srv.call('GET', '/iam/v2/identities?page_size=200')).json.identities as { claimMatch: { issuer: string; subject: string } }[];
    t.true(ids.some((i) => i.claimMatch.issuer === GH && i.claimMatch.subject === 'repo:acme/app:ref:refs/heads/main'));
    const repoNames = new Set(((await srv.call('GET', '/registry/v2/repos?page_size=200')).json.repos as { name: string }[]).map((r) => r.name));
    const first = (await srv.call('GET', '/vulnerabilities/v2/advisories?advisoryIds=CGA-2026-0001')).json.advisories;
    t.is(first.length, 1);
    t.true(repoNames.has(first[0].artifactName));
    t.is((await srv.call('GET', '/vulnerabilities/v2/advisories?advisoryIds=CGA-2026-0009')).json.advisories.length, 2);

    // The demo round-trips through export like any seed.
    const exported = await pctl(['serve', 'export', '--data', srv.dataDir]);
    t.is(exported.code, 0);
    const again = tempDir();
    try {
      const b = await startServer({ dataDir: again, port: 0, seed: validateSeed(YAML.parse(exported.stdout)) });
      await b.close();
      t.is((await pctl(['serve', 'export', '--data', again])).stdout, exported.stdout);
    } finally {
      rmSync(again, { recursive: true, force: true });
    }
  } finally {
    await srv.dispose();
  }
});

test('pctl serve --seed: a bad file exits 2 with each path, writes nothing, and the file is never written', async (t) => {
  const dir = tempDir();
  const files = tempDir('pctl-seedfile-');
  try {
    const bad = join(files, 'bad.yaml');
    writeFileSync(bad, [
      'organizations:',
      '  - name: acme',
      '    groups:',
      '      - name: platform',
      '      - name: Platform!',
      '        repos:',
      '          - name: nginx',
      '            tags:',
      '              - {name: "1.27", digest: "sha256:1234", deprecated: false}',
      'advisories:',
      '  - {advisoryId: CGA-2026-0001, artifactName: nginx, severity: high}',
      '',
    ].join('\n'));
    const before = readFileSync(bad, 'utf8');
    const mtime = statSync(bad).mtimeMs;
    const res = await pctl(['serve', '--seed', bad, '--data', dir, '--port', '0']);
    t.is(res.code, 2);
    t.is(res.stdout, '');
    const lines = res.stderr.trim().split('\n');
    t.regex(lines[0]!, /^error: seed file .*bad\.yaml is invalid \(3 problems\); nothing was written$/);
    t.true(lines.includes('  organizations[0].groups[1].name: must match ^[a-z0-9 ._-]{1,}$'), res.stderr);
    t.true(lines.some((l) => l.startsWith('  organizations[0].groups[1].repos[0].tags[0].digest: ')), res.stderr);
    t.true(lines.includes('  advisories[0].severity: is not a known field'), res.stderr);
    t.false(existsSync(join(dir, 'pctl.db')));
    t.is(readFileSync(bad, 'utf8'), before);
    t.is(statSync(bad).mtimeMs, mtime);

    const broken = join(files, 'broken.json');
    writeFileSync(broken, '{"organizations": [');
    const syntax = await pctl(['serve', '--seed', broken, '--data', dir, '--port', '0']);
    t.is(syntax.code, 2);
    t.regex(syntax.stderr, /not valid YAML or JSON/);

    const missing = await pctl(['serve', '--seed', join(files, 'nope.yaml'), '--data', dir, '--port', '0']);
    t.is(missing.code, 2);
    t.regex(missing.stderr, /no such file/);

    const both = await pctl(['serve', '--seed', bad, '--demo', '--data', dir, '--port', '0']);
    t.is(both.code, 2);
    t.false(existsSync(join(dir, 'pctl.db')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(files, { recursive: true, force: true });
  }
});

test('pctl serve --seed on a data dir that holds data: exit 2 with a hint to reset; the data stays', async (t) => {
  const srv = await startTestServer({ seed: richSeed });
  const dir = srv.dataDir;
  const files = tempDir('pctl-seedfile-');
  try {
    await srv.close();
    const file = join(files, 'seed.json');
    writeFileSync(file, JSON.stringify({ organizations: [{ name: 'fresh' }] }));
    const res = await pctl(['serve', '--seed', file, '--data', dir, '--port', '0']);
    t.is(res.code, 2);
    t.regex(res.stderr, /already holds data/);
    t.regex(res.stderr, /pctl serve reset --data .* --yes/);
    const exported = YAML.parse((await pctl(['serve', 'export', '--data', dir])).stdout) as SeedDocument;
    t.deepEqual(exported.organizations!.map((o) => o.name), ['acme', 'other org']);
  } finally {
    await srv.dispose();
    rmSync(files, { recursive: true, force: true });
  }
});

test('pctl serve reset --yes empties the data dir and bootstraps it again', async (t) => {
  const srv = await startTestServer({ seed: richSeed });
  const dir = srv.dataDir;
  try {
    const oldToken = srv.ownerToken;
    await srv.close();
    const refused = await pctl(['serve', 'reset', '--data', dir]);
    t.is(refused.code, 2);
    t.regex(refused.stderr, /--yes/);

    const res = await pctl(['serve', 'reset', '--data', dir, '--yes']);
    t.is(res.code, 0, res.stderr);
    t.regex(res.stderr, /bootstrapped/);
    // Bootstrapped right away: the export shows the default organization and nothing else.
    const exported = YAML.parse((await pctl(['serve', 'export', '--data', dir])).stdout) as SeedDocument;
    t.deepEqual(exported, { organizations: [{ name: 'local', description: 'Organization created by pctl serve' }] });

    // The old owner token is gone: the next start mints a new one.
    const again = await startServer({ dataDir: dir, port: 0 });
    try {
      t.not(again.ownerToken, oldToken);
      const groups = await request(again.url, 'GET', '/iam/v2/groups', undefined, { authorization: `Bearer ${again.ownerToken}` });
      t.deepEqual(groups.json.groups.map((g: { name: string }) => g.name), ['local']);
      t.is((await request(again.url, 'GET', '/iam/v2/groups', undefined, { authorization: `Bearer ${oldToken}` })).status, 401);
    } finally {
      await again.close();
    }
  } finally {
    await srv.dispose();
  }
});

/** Runs `pctl serve …` until it prints its URL, calls fn, then stops it as Ctrl-C would. */
async function whileServing(argv: string[], fn: (url: string, stderr: () => string) => Promise<void>): Promise<RunResult> {
  const configDir = tempDir('pctl-seed-config-');
  const { captureIO } = await import('./helpers/cli.js');
  const { main } = await import('../src/cli/main.js');
  const { io, out, err, untilOut } = captureIO();
  const running = main(argv, { io, env: { PCTL_CONFIG_DIR: configDir } });
  try {
    // The write of the URL resolves this (no polling, no timer); a serve that exits first rejects it.
    const url = await Promise.race([
      untilOut(/http:\/\/127\.0\.0\.1:\d+/).then((m) => m[0]),
      running.then((code) => Promise.reject(new Error(`serve exited (${code}) before printing its URL: ${err()}`))),
    ]);
    await fn(url, err);
  } finally {
    process.emit('SIGINT');
  }
  const code = await running;
  rmSync(configDir, { recursive: true, force: true });
  return { code, stdout: out(), stderr: err(), ms: 0, questions: [] };
}

test.serial('pctl serve --demo: loads on an empty dir; on a second run keeps the data with a notice', async (t) => {
  const dir = tempDir();
  try {
    let firstRepos = '';
    const first = await whileServing(['serve', '--demo', '--data', dir, '--port', '0'], async (url) => {
      const token = readFileSync(join(dir, 'owner.token'), 'utf8').trim();
      const repos = await request(url, 'GET', '/registry/v2/repos?order_by=name&page_size=200', undefined, { authorization: `Bearer ${token}` });
      t.is(repos.json.totalCount, '22');
      firstRepos = JSON.stringify(repos.json.repos);
      // Change something, to see that the second run keeps it.
      await request(url, 'PATCH', `/registry/v2/repos/${repos.json.repos[0].uid}`, { description: 'changed' }, { authorization: `Bearer ${token}` });
    });
    t.is(first.code, 0, first.stderr);
    t.regex(first.stderr, /Loaded the demo data set/);
    t.notRegex(first.stderr, /Notice/);

    const second = await whileServing(['serve', '--demo', '--data', dir, '--port', '0'], async (url) => {
      const token = readFileSync(join(dir, 'owner.token'), 'utf8').trim();
      const repos = await request(url, 'GET', '/registry/v2/repos?order_by=name&page_size=200', undefined, { authorization: `Bearer ${token}` });
      t.is(repos.json.totalCount, '22');
      t.is(repos.json.repos[0].description, 'changed');
      t.not(JSON.stringify(repos.json.repos), firstRepos);
    });
    t.is(second.code, 0, second.stderr);
    t.regex(second.stderr, /Notice: .* already holds data; starting with it as it is/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

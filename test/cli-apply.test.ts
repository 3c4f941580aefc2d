// pctl export, diff and apply against real serves: the demo data's round trip (export from one
// serve, apply to a fresh one, diff finds nothing), drift, --dry-run and bad manifests (checked
// through serve's request journal: nothing written), --prune, a failure half-way, uid anchors.
import test from 'ava';
import { generateKeyPairSync } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { closeAgent } from '../src/client/http.js';
import { demoSeed } from '../src/server/data/demo.js';
import { cli, lines, type RunResult } from './helpers/cli.js';
import { startTestServer, tempDir, type TestServer } from './helpers/serve.js';

const dir = tempDir('pctl-apply-');
let demo: TestServer;
let manifest: string;
let exported: RunResult;

const pctlFor = (srv: TestServer) => cli({ PCTL_API_URL: srv.url, PCTL_TOKEN: srv.ownerToken, PCTL_CONFIG_DIR: dir });

/** A serve with nothing but an empty organization acme (and its owner): where the demo manifest is applied. */
async function freshAcme(t: { teardown: (fn: () => Promise<void>) => void }): Promise<{ srv: TestServer; pctl: ReturnType<typeof cli> }> {
  const srv = await startTestServer({ seed: { organizations: [{ name: 'acme' }] } });
  t.teardown(async () => {
    await closeAgent();
    await srv.dispose();
  });
  return { srv, pctl: pctlFor(srv) };
}

/** The requests serve answered after `seq` that wrote something. */
async function writesSince(srv: TestServer, seq: number): Promise<string[]> {
  const { requests } = await srv.ok('GET', `/_pctl/requests?after=${seq}`);
  return (requests as { method: string; path: string }[]).filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`);
}
const lastSeq = async (srv: TestServer): Promise<number> => (await srv.ok('GET', '/_pctl/requests?limit=1')).last as number;

const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

test.before(async () => {
  demo = await startTestServer({ seed: demoSeed() });
  exported = await pctlFor(demo)(['export']);
  manifest = file('demo.yaml', exported.stdout);
});

test.after.always(async () => {
  await closeAgent();
  await demo?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

test.serial('export: the organization by name, ordered by name, without uids, times or the caller', (t) => {
  t.is(exported.code, 0, exported.stderr);
  const text = exported.stdout;
  t.regex(text, /^organizations:\n {2}- name: acme\n/);
  t.notRegex(text, /uid|Time|owner|codeSha256|clientSecret/);
  // Child groups in name order, references by name within reach and by path beyond it.
  const topGroups = [...text.matchAll(/^ {6}- name: (\S+)$/gm)].map((m) => m[1]);
  t.deepEqual(topGroups, ['apps', 'data', 'platform', 'security']);
  t.regex(text, /\{ identity: acme\/platform\/ci\/deployer, role: viewer \}/);
  t.regex(text, /\{ identity: deployer, role: editor \}/);
  t.regex(exported.stderr, /^note: your own identity owner and its 1 role binding are left out/m);
});

test.serial('the round trip: export from one serve, apply to a fresh one, diff finds nothing; a second apply has nothing to do', async (t) => {
  const { pctl } = await freshAcme(t);
  const applied = await pctl(['apply', '-f', manifest]);
  t.is(applied.code, 0, applied.stderr);
  // The organization's description is an update: the fresh one has none.
  // The 22 repos are created through the API too.
  t.regex(applied.stdout, /^Plan: 47 to create, 1 to update, 0 to delete\.$/m);
  t.regex(applied.stdout, /^Applied 48 changes\.$/m);
  t.notRegex(applied.stderr, /repo/);
  const diff = await pctl(['diff', '-f', manifest]);
  t.is(diff.code, 0, diff.stderr);
  t.is(diff.stdout, '');
  const again = await pctl(['apply', '-f', manifest]);
  t.is(again.code, 0);
  t.is(again.stdout, `Nothing to do: the server matches ${manifest}.\n`);
  // And the fresh serve exports what the demo serve did, repos included.
  const reexport = await pctl(['export']);
  t.deepEqual(YAML.parse(reexport.stdout), YAML.parse(exported.stdout));
});

test.serial('repos and identity emails: apply creates repos through the API and sets an email, export writes both, a changed email is an update and --prune deletes a repo left out', async (t) => {
  const { srv, pctl } = await freshAcme(t);
  const text = [
    'organizations:',
    '  - name: acme',
    '    groups:',
    '      - name: images',
    '        identities:',
    '          - { name: robot, email: robot@acme.example, claimMatch: { issuer: "https://ci.example", subject: robot } }',
    '        repos:',
    '          - { name: nginx, description: web server }',
    '          - { name: redis }',
    '',
  ].join('\n');
  const applied = await pctl(['apply', '-f', file('repos.yaml', text)]);
  t.is(applied.code, 0, applied.stderr);
  t.regex(applied.stdout, /^Plan: 4 to create, 0 to update, 0 to delete\.$/m);
  t.regex(applied.stdout, /^created repo acme\/images\/nginx$/m);
  const group = (await srv.ok('GET', '/iam/v2/groups?name=images')).groups[0];
  const reposOf = async () => (await srv.ok('GET', `/registry/v2/repos?uidp.children_of=${encodeURIComponent(group.uid)}`)).repos
    .map((r: { name: string; description: string }) => [r.name, r.description]).sort();
  t.deepEqual(await reposOf(), [['nginx', 'web server'], ['redis', '']]);
  const robot = () => srv.ok('GET', `/iam/v2/identities?uidp.children_of=${encodeURIComponent(group.uid)}&name=robot`).then((r) => r.identities[0]);
  t.is((await robot()).email, 'robot@acme.example');
  t.is((await pctl(['diff', '-f', join(dir, 'repos.yaml')])).code, 0, 'nothing differs');
  const exportedDoc = YAML.parse((await pctl(['export'])).stdout);
  t.like(exportedDoc.organizations[0].groups[0], { name: 'images', identities: [{ name: 'robot', email: 'robot@acme.example' }], repos: [{ name: 'nginx', description: 'web server' }, { name: 'redis' }] });

  const changed = file('repos-changed.yaml', text.replace('robot@acme.example', 'bots@acme.example').replace(/^ {10}- \{ name: redis \}\n/m, ''));
  const diff = await pctl(['diff', '-f', changed, '--prune']);
  t.is(diff.code, 1, diff.stderr);
  t.regex(diff.stdout, /^ {2}~ identity robot\n {6}email: "robot@acme\.example" → "bots@acme\.example"$/m);
  t.regex(diff.stdout, /^ {2}- repo redis$/m);
  const pruned = await pctl(['apply', '-f', changed, '--prune', '--yes']);
  t.is(pruned.code, 0, pruned.stderr);
  t.deepEqual(await reposOf(), [['nginx', 'web server']]);
  t.is((await robot()).email, 'bots@acme.example');
});

test.serial('identities of the published relationship forms: an AWS identity and a service principal created, exported and compared; a changed one is a note (no update exists)', async (t) => {
  const { srv, pctl } = await freshAcme(t);
  const text = [
    'organizations:',
    '  - name: acme',
    '    identities:',
    '      - { name: aws-deployer, awsIdentity: { awsAccount: "123456789012", arnPattern: "arn:aws:iam::123456789012:role/deploy-.*" } }',
    '      - { name: signer, servicePrincipal: SERVICE_PRINCIPAL_COSIGNED }',
    '',
  ].join('\n');
  const applied = await pctl(['apply', '-f', file('relationships.yaml', text)]);
  t.is(applied.code, 0, applied.stderr);
  t.regex(applied.stdout, /^Plan: 2 to create, 0 to update, 0 to delete\.$/m);
  const byName = async (name: string) => (await srv.ok('GET', `/iam/v2/identities?uidp.children_of=${encodeURIComponent(srv.organizationUid)}&name=${name}`)).identities[0];
  t.like(await byName('aws-deployer'), { awsIdentity: { awsAccount: '123456789012', arnPattern: 'arn:aws:iam::123456789012:role/deploy-.*' } });
  t.is((await byName('signer')).servicePrincipal, 'SERVICE_PRINCIPAL_COSIGNED');
  t.is((await pctl(['diff', '-f', join(dir, 'relationships.yaml')])).code, 0, 'nothing differs');
  const identitiesOut = YAML.parse((await pctl(['export'])).stdout).organizations[0].identities;
  t.deepEqual(identitiesOut, [
    { name: 'aws-deployer', awsIdentity: { awsAccount: '123456789012', arnPattern: 'arn:aws:iam::123456789012:role/deploy-.*' } },
    { name: 'signer', servicePrincipal: 'SERVICE_PRINCIPAL_COSIGNED' },
  ]);
  const changed = await pctl(['diff', '-f', file('relationships-changed.yaml', text.replace('SERVICE_PRINCIPAL_COSIGNED', 'SERVICE_PRINCIPAL_INGESTER'))]);
  t.is(changed.code, 0, 'no change apply could make');
  t.regex(changed.stderr, /^note: identity acme\/signer: its staticKeys, awsIdentity or servicePrincipal differs from the manifest's, and cannot be updated/m);
  const neither = await pctl(['diff', '-f', file('relationships-bad.yaml', text.replace('servicePrincipal: SERVICE_PRINCIPAL_COSIGNED', 'email: a@b.example'))]);
  t.is(neither.code, 2);
  t.regex(neither.stderr, /exactly one of claimMatch, staticKeys, awsIdentity, servicePrincipal must be set/);
});

test.serial('the published Group fields and static-keys identities: verified, an organization\'s kind and static keys exported from one serve, applied to a fresh one, exported the same; a changed verified is a diff', async (t) => {
  const { srv: source, pctl: fromSource } = await freshAcme(t);
  const org = source.organizationUid;
  await source.ok('PATCH', `/iam/v2/groups/${org}?updateMask=verified,kind`, { verified: true, kind: 'ORG_KIND_CUSTOMER' });
  const secure = await source.ok('POST', '/iam/v2/groups', { parent: org, group: { name: 'secure' } });
  await source.ok('PATCH', `/iam/v2/groups/${secure.uid}?updateMask=verified`, { verified: true });
  await source.ok('POST', '/iam/v2/groups', { parent: org, group: { name: 'plain' } });
  const publicJwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' });
  const issuerKeys = JSON.stringify({ keys: [{ ...publicJwk, kid: 'ci-1', use: 'sig', alg: 'ES256' }] });
  const expirationTime = new Date(Date.now() + 30 * 86_400_000).toISOString();
  await source.ok('POST', '/iam/v2/identities', {
    parent: secure.uid, identity: { name: 'keyed-bot', staticKeys: { issuer: 'https://keys.example.com', subject: 'bot', issuerKeys, expirationTime, audiences: ['acme'] } },
  });

  const first = await fromSource(['export']);
  t.is(first.code, 0, first.stderr);
  const doc = YAML.parse(first.stdout);
  t.like(doc.organizations[0], { name: 'acme', verified: true, kind: 'ORG_KIND_CUSTOMER' });
  const groupsOut = doc.organizations[0].groups as { name: string; verified?: boolean; kind?: string; identities?: unknown[] }[];
  t.deepEqual(groupsOut.map((g) => [g.name, g.verified, g.kind]), [['plain', undefined, undefined], ['secure', true, undefined]], 'a subgroup inherits the kind: only the organization says it');
  t.deepEqual(groupsOut[1]!.identities, [{ name: 'keyed-bot', staticKeys: { issuer: 'https://keys.example.com', subject: 'bot', issuerKeys, expirationTime, audiences: ['acme'] } }]);
  t.notRegex(first.stdout, /resourceLimits|status|"d"/);

  const { srv: target, pctl: toTarget } = await freshAcme(t);
  const path = file('published-fields.yaml', first.stdout);
  const applied = await toTarget(['apply', '-f', path]);
  t.is(applied.code, 0, applied.stderr);
  // Two groups and the identity made; the organization's verified and kind, and the new group's verified, updated.
  t.regex(applied.stdout, /^Plan: 3 to create, 2 to update, 0 to delete\.$/m);
  t.like(await target.ok('GET', `/iam/v2/groups/${target.organizationUid}`), { verified: true, kind: 'ORG_KIND_CUSTOMER' });
  const again = await toTarget(['export']);
  t.is(again.stdout, first.stdout);
  t.is((await toTarget(['diff', '-f', path])).code, 0, 'nothing differs');

  const unverified = file('published-fields-changed.yaml', YAML.stringify({
    organizations: [{ ...doc.organizations[0], groups: groupsOut.map((g) => (g.name === 'secure' ? { ...g, verified: false } : g)) }],
  }));
  const diff = await toTarget(['diff', '-f', unverified]);
  t.is(diff.code, 1, diff.stderr);
  t.is(diff.stdout, 'acme/secure\n  ~ group secure\n      verified: true → false\n');
  const reapplied = await toTarget(['apply', '-f', unverified]);
  t.is(reapplied.code, 0, reapplied.stderr);
  const targetSecure = (await target.ok('GET', '/iam/v2/groups?name=secure')).groups[0];
  t.false(targetSecure.verified);
});

test.serial('a kind on a subgroup, or on an organization that is not verified, is refused before any request; a private JWK is refused by serve', async (t) => {
  const { srv, pctl } = await freshAcme(t);
  const seq = await lastSeq(srv);
  const bad = await pctl(['apply', '-f', file('kinds-bad.yaml', [
    'organizations:',
    '  - name: acme',
    '    kind: ORG_KIND_DEV',
    '    groups:',
    '      - { name: team, verified: true, kind: ORG_KIND_DEV }',
    '',
  ].join('\n'))]);
  t.is(bad.code, 2, bad.stderr);
  t.regex(bad.stderr, /organizations\[0\]\.kind: may be set on a verified organization only \(add verified: true\)/);
  t.regex(bad.stderr, /organizations\[0\]\.groups\[0\]\.kind: is inherited from the organization: only an organization's kind may be set/);
  t.deepEqual(await writesSince(srv, seq), []);
  const privateJwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
  const res = await srv.call('POST', '/iam/v2/identities', {
    parent: srv.organizationUid, identity: { name: 'leaky', staticKeys: { issuer: 'https://keys.example.com', subject: 'bot', issuerKeys: JSON.stringify({ keys: [privateJwk] }) } },
  });
  t.is(res.status, 400, res.text);
  t.regex(res.json.message, /staticKeys\.issuerKeys: must hold public keys only: keys\[0\] has the private member "d"/);
});

test.serial('drift: a description changed with pctl groups update makes diff exit 1 with exactly that change', async (t) => {
  const pctl = pctlFor(demo);
  t.is((await pctl(['groups', 'update', 'platform', '--description', 'Platform team'])).code, 0);
  t.teardown(() => pctl(['groups', 'update', 'platform', '--description', 'Platform engineering']).then(() => undefined));
  const diff = await pctl(['diff', '-f', manifest]);
  t.is(diff.code, 1, diff.stderr);
  t.is(diff.stdout, 'acme/platform\n  ~ group platform\n      description: "Platform team" → "Platform engineering"\n');
  const json = await pctl(['diff', '-f', manifest, '-o', 'json']);
  t.is(json.code, 1);
  t.like(JSON.parse(json.stdout), {
    changes: [{ action: 'update', kind: 'group', path: 'acme/platform', name: 'platform', fields: [{ field: 'description', from: 'Platform team', to: 'Platform engineering' }] }],
    summary: { create: 0, update: 1, delete: 0 },
  });
});

test.serial('--dry-run shows the plan and writes nothing (the journal has no write)', async (t) => {
  const { srv, pctl } = await freshAcme(t);
  const before = await lastSeq(srv);
  const r = await pctl(['apply', '-f', manifest, '--dry-run']);
  t.is(r.code, 0, r.stderr);
  t.regex(r.stdout, /^acme\/platform\/ci\n {2}\+ group ci\n {2}\+ identity deployer\n/m);
  t.regex(r.stdout, /^Dry run: nothing was changed\.$/m);
  t.deepEqual(await writesSince(srv, before), []);
});

test.serial('a manifest with three mistakes: all three reported with their lines, exit 2, no request sent', async (t) => {
  const { srv, pctl } = await freshAcme(t);
  const bad = file('bad.yaml', [
    'organizations:', //                                                   1
    '  - name: acme', //                                                   2
    '    groups:', //                                                      3
    '      - name: Platform', //                                           4  upper case: the group name rule
    '        identities:', //                                              5
    '          - name: bot', //                                            6
    '            claimMatch: {issuer: "https://ci.example", subject: x}', // 7
    '            colour: blue', //                                         8  not a field
    '        roleBindings:', //                                            9
    '          - {identity: robot, role: viewer}', //                      10 names no identity
    '',
  ].join('\n'));
  const before = await lastSeq(srv);
  for (const command of ['diff', 'apply']) {
    const r = await pctl([command, '-f', bad]);
    t.is(r.code, 2, r.stderr);
    t.is(r.stdout, '');
    const problems = lines(r.stderr).slice(1);
    t.regex(r.stderr, /^error: .*bad\.yaml is not a valid manifest \(3 problems\); nothing was changed$/m);
    t.is(problems.length, 3, r.stderr);
    t.regex(r.stderr, /^ {2}line 4: organizations\[0\]\.groups\[0\]\.name: must match \^\[a-z0-9 \._-\]\{1,\}\$$/m);
    t.regex(r.stderr, /^ {2}line 8: organizations\[0\]\.groups\[0\]\.identities\[0\]\.colour: is not a known field$/m);
    t.regex(r.stderr, /^ {2}line 10: organizations\[0\]\.groups\[0\]\.roleBindings\[0\]\.identity: names no identity/m);
  }
  t.is(await lastSeq(srv), before, 'not one request');
});

test.serial('--prune deletes what the manifest leaves out, children first, never the caller; without a terminal only with --yes', async (t) => {
  const { srv, pctl } = await freshAcme(t);
  t.is((await pctl(['apply', '-f', manifest])).code, 0);
  // Without the group security, and so without acme's binding of its scanner.
  const smaller = file('smaller.yaml', exported.stdout.replace(/^ {6}- name: security\n(?: {8}.*\n)+/m, '').replace(/^ {4}roleBindings:\n {6}- \{ identity: acme\/security\/scanner, role: viewer \}\n/m, ''));
  const before = await lastSeq(srv);
  const refused = await pctl(['apply', '-f', smaller, '--prune']);
  t.is(refused.code, 2);
  t.regex(refused.stderr, /refusing to delete 5 resources without confirmation: stdin is not a terminal; pass --yes/);
  t.deepEqual(await writesSince(srv, before), []);
  const diff = await pctl(['diff', '-f', smaller, '--prune']);
  t.is(diff.code, 1);
  t.is(diff.stdout, 'acme\n  - role binding acme/security/scanner → viewer\nacme/security\n  - group security\n  - identity scanner\n  - repo cosign\n  - repo grype\n');
  t.regex(diff.stderr, /^note: refusing to delete the role binding acme\/owner → owner in acme: it is your own/m);
  const pruned = await pctl(['apply', '-f', smaller, '--prune', '--yes']);
  t.is(pruned.code, 0, pruned.stderr);
  // The group went last, after what was in it.
  t.deepEqual(lines(pruned.stdout).filter((l) => l.startsWith('deleted')).at(-1), 'deleted group acme/security');
  t.is((await pctl(['diff', '-f', smaller, '--prune'])).code, 0);
  t.is((await pctl(['auth', 'status', '-o', 'json'])).code, 0, 'the owner still signs in');
});

test.serial('a failure half-way: apply stops starting changes, reports applied, failed and not tried (exit 1); the next run converges', async (t) => {
  const { pctl } = await freshAcme(t);
  t.is((await pctl(['serve', 'faults', 'add', 'POST /iam/v2/groups error=9 times=1'])).code, 0);
  const r = await pctl(['apply', '-f', manifest]);
  t.is(r.code, 1);
  const m = /^error: apply stopped at a failure: (\d+) applied, 1 failed, (\d+) not tried; run it again once the cause is fixed$/m.exec(r.stderr);
  t.truthy(m, r.stderr);
  t.regex(r.stderr, /^failed: \+ group \S+ in acme\/\S+: Injected fault f\d+: FAILED_PRECONDITION/m);
  const notTried = lines(r.stderr).filter((l) => l.startsWith('not tried: '));
  t.is(notTried.length, Number(m![2]));
  t.true(notTried.length > 0);
  t.is(Number(m![1]) + 1 + notTried.length, 48);
  const again = await pctl(['apply', '-f', manifest]);
  t.is(again.code, 0, again.stderr);
  t.regex(again.stdout, new RegExp(`^Applied ${48 - Number(m![1])} changes\\.$`, 'm'));
  t.is((await pctl(['diff', '-f', manifest])).code, 0);
});

test.serial('uid anchors: a renamed group with its uid is an update of its name; without it, a create', async (t) => {
  const { srv, pctl } = await freshAcme(t);
  const made = await srv.ok('POST', '/iam/v2/groups', { parent: srv.organizationUid, group: { name: 'old-name', description: 'kept' } });
  const anchored = file('anchored.yaml', `organizations:\n  - name: acme\n    groups:\n      - {name: new-name, uid: "${made.uid}", description: kept}\n`);
  const diff = await pctl(['diff', '-f', anchored]);
  t.is(diff.code, 1);
  t.is(diff.stdout, 'acme/new-name\n  ~ group new-name\n      name: "old-name" → "new-name"\n');
  const plain = file('plain.yaml', 'organizations:\n  - name: acme\n    groups:\n      - {name: new-name, description: kept}\n');
  t.is((await pctl(['diff', '-f', plain])).stdout, 'acme/new-name\n  + group new-name\n');
  t.is((await pctl(['apply', '-f', anchored])).code, 0);
  t.is((await srv.ok('GET', `/iam/v2/groups/${made.uid}`)).name, 'new-name');
  t.is((await pctl(['diff', '-f', plain])).code, 0);
});

test.serial('export of a subtree names it by path, and what lies outside it by path too; it applies back as is', async (t) => {
  const pctl = pctlFor(demo);
  const r = await pctl(['export', 'acme/apps', '-o', 'json']);
  t.is(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout);
  t.is(doc.organizations[0].name, 'acme/apps');
  t.deepEqual(doc.organizations[0].roleBindings, [{ identity: 'acme/platform/ci/deployer', role: 'viewer' }]);
  const subtree = file('apps.json', r.stdout);
  t.is((await pctl(['diff', '-f', subtree, '--prune'])).code, 0);
});

test.serial('export where a listing is refused (PERMISSION_DENIED, as an endpoint may answer): the rest is written, the gap said on stderr', async (t) => {
  const { pctl } = await freshAcme(t);
  t.is((await pctl(['apply', '-f', manifest])).code, 0);
  t.is((await pctl(['serve', 'faults', 'add', 'GET /iam/v2/identities error=7'])).code, 0);
  const r = await pctl(['export', 'acme']);
  t.is(r.code, 0, r.stderr);
  const doc = YAML.parse(r.stdout);
  t.deepEqual(doc.organizations[0].groups.map((g: { name: string }) => g.name), ['apps', 'data', 'platform', 'security']);
  t.notRegex(r.stdout, /identities:/);
  t.regex(r.stdout, /roleBindings:/);
  t.regex(r.stderr, /^note: identities are left out: you may not list them \(Injected fault f\d+: PERMISSION_DENIED/m);
  // diff and apply need the whole picture: the same refusal is an error there (exit 4).
  const diff = await pctl(['diff', '-f', manifest]);
  t.is(diff.code, 4, diff.stderr);
});

test.serial('on a terminal: the plan in colour, and apply asks before deleting (no: nothing changes, exit 2)', async (t) => {
  const { srv, pctl } = await freshAcme(t);
  await srv.ok('POST', '/iam/v2/groups', { parent: srv.organizationUid, group: { name: 'stray' } });
  const empty = file('empty.yaml', 'organizations:\n  - name: acme\n    description: Organization created by pctl serve\n');
  const diff = await pctl(['diff', '-f', empty, '--prune'], { tty: true });
  t.is(diff.code, 1);
  t.true(diff.stdout.includes('\u001b[31m- group stray\u001b[39m'), diff.stdout);
  const before = await lastSeq(srv);
  const declined = await pctl(['apply', '-f', empty, '--prune'], { tty: true, confirm: false });
  t.is(declined.code, 2);
  t.deepEqual(declined.questions, ['Apply this plan, deleting 1 resource?']);
  t.regex(declined.stderr, /^Aborted; nothing was changed\.$/m);
  t.deepEqual(await writesSince(srv, before), []);
  const agreed = await pctl(['apply', '-f', empty, '--prune'], { tty: true, confirm: true });
  t.is(agreed.code, 0, agreed.stderr);
  t.is((await pctl(['diff', '-f', empty, '--prune'])).code, 0);
});

test.serial('on a terminal apply asks before any change, not only deletes; --yes skips; a pipe is not asked', async (t) => {
  const { srv, pctl } = await freshAcme(t);
  const more = file('more.yaml', 'organizations:\n  - name: acme\n    description: Organization created by pctl serve\n    groups:\n      - name: asked\n');
  const before = await lastSeq(srv);
  const declined = await pctl(['apply', '-f', more], { tty: true, confirm: false });
  t.is(declined.code, 2);
  t.deepEqual(declined.questions, ['Apply this plan?']);
  t.regex(declined.stdout, /\+ group asked/);
  t.regex(declined.stderr, /^Aborted; nothing was changed\.$/m);
  t.deepEqual(await writesSince(srv, before), []);

  const yes = await pctl(['apply', '-f', more, '--yes'], { tty: true });
  t.is(yes.code, 0, yes.stderr);
  t.deepEqual(yes.questions, [], '--yes: not asked');
  t.regex(yes.stdout, /^created group acme\/asked$/m);
  // Nothing to do: nothing asked, on a terminal either.
  const same = await pctl(['apply', '-f', more], { tty: true });
  t.deepEqual([same.code, same.questions], [0, []]);

  const piped = file('piped.yaml', 'organizations:\n  - name: acme\n    description: Organization created by pctl serve\n    groups:\n      - name: asked\n      - name: piped\n');
  const pipe = await pctl(['apply', '-f', piped]);
  t.is(pipe.code, 0, pipe.stderr);
  t.deepEqual(pipe.questions, [], 'no terminal: creates go ahead without a question');
});

test.serial('no server at the address: diff (exit 5) and apply (exit 1) say so in one line, no stack trace', async (t) => {
  const pctl = cli({ PCTL_API_URL: 'http://127.0.0.1:1', PCTL_TOKEN: 'any-token', PCTL_CONFIG_DIR: dir });
  const small = file('unreachable.yaml', 'organizations:\n  - name: acme\n');
  for (const [verb, code] of [['diff', 5], ['apply', 1]] as const) {
    const run = await pctl([verb, '-f', small]);
    t.is(run.code, code, run.stderr);
    t.deepEqual(lines(run.stderr), ['error: cannot connect to http://127.0.0.1:1: connection refused (is the server running?)']);
  }
});

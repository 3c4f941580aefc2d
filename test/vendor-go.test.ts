// The vendor's own client stack against serve: a Go program built from the published .proto
// files (proto/, chainguard-sdk) with Debian's Go toolchain, gRPC and protobuf, offline
// (test/helpers/go-client.ts), speaking gRPC over h2c with a bearer token, as the vendor's Go
// SDK, Terraform provider and chainctl do. Each scenario (test/go/vendorclient/*.go) runs as
// one process and reports its calls and checks; the test asserts them and reads serve's state
// back over REST. Without the toolchain the tests are skipped (failed when
// PCTL_REQUIRE_SHELLS is set, as in CI, which installs it: .ci/run).
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { goSuite, runGoScenario } from './helpers/go-client.js';
import { startTestServer } from './helpers/serve.js';

const suite = goSuite();
const { goTest } = suite;
const scenario = suite.scenario;

goTest('v1 over Go: a group made, listed by name and deleted, as REST sees it', async (t) => {
  const run = await scenario('v1-groups', { org: suite.srv.organizationUid });
  t.deepEqual(run.failed, [], run.stderr);
  t.is(run.exitCode, 0, run.stderr);
  const made = run.byStep.get('create')!;
  t.is(made.code, 'OK');
  const uid = (made.response as { id: string }).id;
  t.true(uid.startsWith(`${suite.srv.organizationUid}/`));
  t.is(run.byStep.get('delete')!.code, 'OK');
  t.is((await suite.srv.call('GET', `/iam/v2/groups/${uid}`)).status, 404, 'the group is gone for REST too');
});

goTest('a bad token is UNAUTHENTICATED for the Go client', async (t) => {
  const run = await scenario('v1-groups', { org: suite.srv.organizationUid }, 'not-a-token');
  t.is(run.byStep.get('create')?.code, 'Unauthenticated');
  t.is(run.exitCode, 0, 'the scenario stops after a failed create; no check ran');
});

for (const version of ['v2', 'v2beta1']) {
  goTest(`${version} IAM: the Terraform provider's calls for groups, roles, identities and role bindings, with its masks`, async (t) => {
    const issuer = (await suite.srv.ok('GET', `/iam/v2/identities/${suite.srv.ownerIdentityUid}`)).claimMatch.issuer as string;
    const run = await scenario('iam-provider', { version, org: suite.srv.organizationUid, issuer });
    t.deepEqual(run.failed, [], run.stderr);
    const calls = run.steps.filter((s) => s.code !== undefined);
    t.deepEqual(calls.filter((s) => s.step !== 'group get after delete' && s.code !== 'OK'), [], 'every call of the sequence succeeded');
    t.is(run.byStep.get('group get after delete')?.code, 'NotFound');
    t.is(run.exitCode, 0, run.stderr);
    // What the Go client made is REST's: the role's capabilities by serve's names.
    const role = run.byStep.get('role update')!.response as { uid: string };
    t.is((await suite.srv.call('GET', `/iam/v2/roles/${role.uid}`)).status, 404, 'deleted for REST too');
    t.like(run.byStep.get('role update')!.response, { capabilities: ['CAP_IAM_GROUPS_LIST', 'CAP_IAM_IDENTITY_LIST'] });
  });

  goTest(`${version} IAM: the SDK's list-all paging walks every group REST lists, once each`, async (t) => {
    for (let i = 0; i < 5; i++) await suite.srv.ok('POST', '/iam/v2/groups', { parent: suite.srv.organizationUid, group: { name: `page-${version}-${i}` } });
    const rest = (await suite.srv.ok('GET', `/iam/v2/groups?uidp.descendants_of=${suite.srv.organizationUid}&page_size=200`)).groups.map((g: { uid: string }) => g.uid).sort();
    const run = await scenario('iam-list-all', { version, org: suite.srv.organizationUid, page_size: 2 });
    t.deepEqual(run.failed, [], run.stderr);
    t.true(run.steps.filter((s) => s.step === 'page').length >= 3, 'several pages');
    t.deepEqual(run.byStep.get('walked')!.message!.split(',').sort(), rest);
  });

  goTest(`${version} IAM: what serve has no source for is UNIMPLEMENTED naming the closest call`, async (t) => {
    const run = await scenario('iam-unimplemented', { version, org: suite.srv.organizationUid });
    for (const step of ['CheckEligibility', 'ListTermsAcceptances', 'ListExternalGroupRoleMappings']) {
      t.is(run.byStep.get(step)?.code, 'Unimplemented', step);
      t.regex(run.byStep.get(step)?.message ?? '', /closest is/, step);
    }
  });
}

for (const version of ['v2', 'v2beta1']) {
  goTest(`${version} IAM: LookupIdentity, UpdateRoleBinding in place and BatchCreateRoleBindings`, async (t) => {
    const issuer = (await suite.srv.ok('GET', `/iam/v2/identities/${suite.srv.ownerIdentityUid}`)).claimMatch.issuer as string;
    const run = await scenario('iam-methods', { version, org: suite.srv.organizationUid, issuer });
    t.deepEqual(run.failed, [], run.stderr);
    t.is(run.byStep.get('lookup unknown')?.code, 'NotFound');
    for (const step of ['lookup', 'binding update', 'batch', 'identity delete']) t.is(run.byStep.get(step)?.code, 'OK', step);
    // The updated binding (the same uid, checked in Go) went with its identity, for REST too.
    const updated = run.byStep.get('binding update')!.response as { uid: string; roleUid: string };
    t.is(run.exitCode, 0, run.stderr);
    t.is((await suite.srv.call('GET', `/iam/v2/roleBindings/${updated.uid}`)).status, 404, 'gone with its identity');
  });
}

for (const version of ['v2', 'v2beta1']) {
  goTest(`${version} IAM: the provider's group invites (ttl a Duration), identity providers and account associations`, async (t) => {
    const run = await scenario('iam-others', { version, org: suite.srv.organizationUid, role: await suite.srv.roleUid('viewer') });
    t.deepEqual(run.failed, [], run.stderr);
    t.deepEqual(run.steps.filter((s) => s.code !== undefined && s.code !== 'OK'), [], 'every call succeeded');
    t.is(run.steps.filter((s) => s.code === 'OK').length, 11);
    t.is(run.exitCode, 0, run.stderr);
  });
}

for (const version of ['v2', 'v2beta1']) {
  goTest(`${version} IAM: a pattern identity (every ClaimMatch form) made, read and changed by the published masks`, async (t) => {
    const run = await scenario('iam-claim-patterns', { version, org: suite.srv.organizationUid });
    t.deepEqual(run.failed, [], run.stderr);
    for (const step of ['pattern create', 'pattern get', 'pattern update subject', 'pattern update whole']) t.is(run.byStep.get(step)?.code, 'OK', step);
    t.is(run.byStep.get('pattern update bad')?.code, 'InvalidArgument');
    t.regex(run.byStep.get('pattern update bad')?.message ?? '', /claimMatch\.subjectPattern/);
    // REST sees the exact pair it ended with, indexed: another identity cannot take it.
    const uid = (run.byStep.get('pattern create')!.response as { uid: string }).uid;
    const exact = { issuer: 'https://token.actions.githubusercontent.com', subject: 'repo:acme/app:ref:refs/heads/main' };
    t.deepEqual((await suite.srv.ok('GET', `/iam/v2/identities/${uid}`)).claimMatch, exact);
    const clash = await suite.srv.call('POST', '/iam/v2/identities', { parent: suite.srv.organizationUid, identity: { name: 'clash', claimMatch: exact } });
    t.is(clash.status, 409);
    await suite.srv.ok('DELETE', `/iam/v2/identities/${uid}`);
  });
}

for (const version of ['v2', 'v2beta1']) {
  goTest(`${version} IAM: Group kind (set on a verified organization, inherited by its groups) and status, over Go and REST`, async (t) => {
    const run = await scenario('iam-group-kind', { version, org: suite.srv.organizationUid });
    t.deepEqual(run.failed, [], run.stderr);
    for (const step of ['subgroup create', 'org get', 'org kind', 'subgroup get', 'org reset', 'subgroup delete']) t.is(run.byStep.get(step)?.code, 'OK', step);
    t.is(run.byStep.get('subgroup with kind')?.code, 'InvalidArgument');
    t.regex(run.byStep.get('subgroup with kind')?.message ?? '', /inherited from the organization/);
    t.is(run.byStep.get('subgroup kind')?.code, 'InvalidArgument');
    t.is(run.byStep.get('org kind unverified')?.code, 'FailedPrecondition');
    const org = await suite.srv.ok('GET', `/iam/v2/groups/${suite.srv.organizationUid}`);
    t.like(org, { verified: false, status: 'ORG_STATUS_READY' });
    t.is(org.kind, undefined, 'cleared for REST too');
  });
}

goTest('Auth: Register, GetHeadlessSession and Delete are UNIMPLEMENTED naming the closest call; Validate answers', async (t) => {
  const run = await scenario('auth-unimplemented');
  for (const [step, closest] of [['Register', /CreateIdentity/], ['GetHeadlessSession', /device/], ['Delete', /DeleteIdentity/]] as const) {
    t.is(run.byStep.get(step)?.code, 'Unimplemented', step);
    t.regex(run.byStep.get(step)?.message ?? '', closest, step);
  }
  t.is(run.byStep.get('Validate')?.code, 'OK');
  t.truthy((run.byStep.get('Validate')!.response as { subject?: string }).subject);
});

goTest('LookupGroup: the verified organization named as the email domain of the token; every miss one NOT_FOUND', async (t) => {
  const keys = await generateKeyPair('RS256');
  const issuer = 'https://login.example.com';
  const mail = await startTestServer({ trustedIssuers: { [issuer]: { keys: [{ ...(await exportJWK(keys.publicKey)), kid: 'mail', alg: 'RS256' }] } } });
  t.teardown(() => mail.dispose());
  const home = await mail.ok('POST', '/iam/v2/groups', { parent: mail.organizationUid, group: { name: 'people' } });
  const tokenFor = async (email: string) => {
    await mail.ok('POST', '/iam/v2/identities', { parent: home.uid, identity: { name: email.replace(/\W/g, '-'), claimMatch: { issuer, subject: email } } });
    const iat = Math.floor(Date.now() / 1000);
    return new SignJWT({ iss: issuer, sub: email, aud: 'pctl', iat, exp: iat + 3600, email }).setProtectedHeader({ alg: 'RS256', kid: 'mail' }).sign(keys.privateKey);
  };
  const lookup = async (token: string) => (await runGoScenario(suite.binary, { address: new URL(mail.url).host, token, scenario: 'iam-lookup-group', params: { version: 'v2' } })).byStep.get('lookup')!;
  const ana = await tokenFor('ana@acme.example');
  t.is((await lookup(ana)).code, 'NotFound', 'no organization of that name');
  await mail.ok('PATCH', `/iam/v2/groups/${mail.organizationUid}?update_mask=name`, { name: 'acme.example' });
  t.is((await lookup(ana)).code, 'NotFound', 'named so, but not verified');
  await mail.ok('PATCH', `/iam/v2/groups/${mail.organizationUid}?update_mask=verified`, { verified: true });
  const found = await lookup(ana);
  t.is(found.code, 'OK');
  t.like(found.response, { group: { uid: mail.organizationUid, name: 'acme.example', verified: true } });
  t.is((await lookup(await tokenFor('bo@other.example'))).code, 'NotFound', 'another domain');
});

for (const version of ['v2', 'v2beta1']) {
  goTest(`${version} IAM: ListRoleBindings by group lists that group's bindings; by identity is refused, not ignored`, async (t) => {
    const team = await suite.srv.ok('POST', '/iam/v2/groups', { parent: suite.srv.organizationUid, group: { name: `bound-${version}` } });
    const id = await suite.srv.ok('POST', '/iam/v2/identities', { parent: team.uid, identity: { name: 'bot', claimMatch: { issuer: 'https://ci.example', subject: `bot-${version}` } } });
    const binding = await suite.srv.ok('POST', '/iam/v2/roleBindings', { parent: team.uid, roleBinding: { identityUid: id.uid, roleUid: await suite.srv.roleUid('viewer') } });
    const run = await scenario('iam-binding-filters', { version, group: team.uid, identity: id.uid });
    t.is(run.byStep.get('by group')?.code, 'OK');
    t.deepEqual((run.byStep.get('by group')!.response as { roleBindings: { uid: string }[] }).roleBindings.map((b) => b.uid), [binding.uid]);
    t.is(run.byStep.get('by identity')?.code, 'InvalidArgument');
    t.regex(run.byStep.get('by identity')?.message ?? '', /closest is group/);
    await suite.srv.ok('DELETE', `/iam/v2/identities/${id.uid}`);
  });
}

for (const version of ['v2', 'v2beta1']) {
  goTest(`${version} IAM: static_keys, aws_identity and service_principal identities stored and returned (matching no token)`, async (t) => {
    const run = await scenario('iam-relationships', { version, org: suite.srv.organizationUid });
    t.deepEqual(run.failed, [], run.stderr);
    for (const kind of ['static', 'aws', 'principal']) for (const op of ['create', 'get']) t.is(run.byStep.get(`${kind} ${op}`)?.code, 'OK', `${kind} ${op}`);
    const keys = (run.byStep.get('static get')!.response as { staticKeys: { expirationTime: string; issuerKeys: string } }).staticKeys;
    t.is(keys.issuerKeys, '{"keys":[]}');
    t.true(Date.parse(keys.expirationTime) > Date.now() + 364 * 86_400_000, 'expires 365 days after creation by default');
    for (const kind of ['static', 'aws', 'principal']) {
      const uid = (run.byStep.get(`${kind} create`)!.response as { uid: string }).uid;
      const rest = await suite.srv.ok('GET', `/iam/v2/identities/${uid}`);
      t.truthy(rest.staticKeys ?? rest.awsIdentity ?? rest.servicePrincipal, `${kind} over REST`);
      await suite.srv.ok('DELETE', `/iam/v2/identities/${uid}`);
    }
    const both = await suite.srv.call('POST', '/iam/v2/identities', { parent: suite.srv.organizationUid, identity: { name: 'both', servicePrincipal: 'SERVICE_PRINCIPAL_INGESTER', claimMatch: { issuer: 'https://x.example', subject: 's' } } });
    t.is(both.status, 400);
    t.regex(both.text, /exactly one of claimMatch, staticKeys, awsIdentity, servicePrincipal/);
  });
}

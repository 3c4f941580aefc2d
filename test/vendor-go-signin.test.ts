// The provider's sign-in flow with the vendor's own client stack (the Go client built from the
// published protos, test/go/vendorclient/signin.go): a GitHub-Actions-shaped identity token
// (pctl serve token --as-issuer) exchanged over gRPC with identity=UID and aud=the API URL for
// a pattern identity, the API called with the minted token, refreshed, a rotated-out refresh
// token refused; and the SDK's HTTP/1 form POST. Skipped without the Go toolchain (failed
// when PCTL_REQUIRE_SHELLS is set, as in CI).
import { issueTestIssuerToken } from '../src/server/auth/authenticate.js';
import { importSigningKey } from '../src/server/auth/tokens.js';
import { goSuite, runGoScenario } from './helpers/go-client.js';
import { signingJwk } from './helpers/serve.js';

const GH = 'https://token.actions.githubusercontent.com';
let deployer: string;

const suite = goSuite({ trustTestIssuers: true }, async (srv) => {
  const id = await srv.ok('POST', '/iam/v2/identities', {
    parent: srv.organizationUid,
    identity: { name: 'deployer', claimMatch: { issuer: GH, subjectPattern: 'repo:acme/app:ref:refs/heads/.*', claims: { repository: 'acme/app' } } },
  });
  deployer = id.uid as string;
  await srv.ok('POST', '/iam/v2/roleBindings', { parent: srv.organizationUid, roleBinding: { identityUid: deployer, roleUid: await srv.roleUid('viewer') } });
});
const { goTest } = suite;

async function workloadToken(): Promise<string> {
  const key = await importSigningKey(signingJwk(suite.srv));
  return issueTestIssuerToken(key, { issuer: GH, subject: 'repo:acme/app:ref:refs/heads/main', audience: [suite.srv.url], claims: { repository: 'acme/app' }, ttlSeconds: 600, now: Date.now() });
}

goTest('the provider flow over gRPC: exchange (identity, aud), API calls with the minted token, refresh; a rotated-out refresh token is UNAUTHENTICATED', async (t) => {
  const run = await runGoScenario(suite.binary, {
    address: new URL(suite.srv.url).host, token: await workloadToken(), scenario: 'sts-provider-flow', params: { identity: deployer, aud: suite.srv.url, org: suite.srv.organizationUid },
  });
  t.deepEqual(run.failed, [], run.stderr);
  for (const step of ['exchange', 'validate', 'list groups', 'refresh', 'validate refreshed']) t.is(run.byStep.get(step)?.code, 'OK', `${step}: ${run.byStep.get(step)?.message}`);
  t.is(run.byStep.get('create group (viewer may not)')?.code, 'PermissionDenied');
  const reused = run.byStep.get('refresh again with the rotated-out token')!;
  t.is(reused.code, 'Unauthenticated');
  t.regex(reused.message!, /already used/);
});

goTest("the SDK's HTTP/1 fallback: form POSTs to /sts/exchange and /sts/exchange_refresh_token, read as proto JSON; refusals carry the vendor's codes", async (t) => {
  const run = await runGoScenario(suite.binary, { address: new URL(suite.srv.url).host, token: await workloadToken(), scenario: 'sts-http1', params: { identity: deployer, aud: suite.srv.url } });
  t.deepEqual(run.failed, [], run.stderr);
  for (const step of ['exchange', 'validate', 'refresh']) t.is(run.byStep.get(step)?.code, 'OK', `${step}: ${run.byStep.get(step)?.message}`);
  t.is(run.byStep.get('exchange for another identity')?.code, 'PermissionDenied');
  t.is(run.byStep.get('exchange for another audience')?.code, 'InvalidArgument');
});

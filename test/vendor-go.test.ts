// The vendor's own client stack against serve: a Go program built from the published .proto
// files (proto/, chainguard-sdk) with Debian's Go toolchain, gRPC and protobuf, offline
// (test/helpers/go-client.ts), speaking gRPC over h2c with a bearer token, as the vendor's Go
// SDK, Terraform provider and chainctl do. Each scenario (test/go/vendorclient/*.go) runs as
// one process and reports its calls and checks; the test asserts them and reads serve's state
// back over REST. Without the toolchain the tests are skipped (failed when
// PCTL_REQUIRE_SHELLS is set, as in CI, which installs it: .ci/run).
import test from 'ava';
import { BUILD_TIMEOUT_MS, goToolchainMissing, runGoScenario, vendorClient, type GoRun } from './helpers/go-client.js';
import { startTestServer, type TestServer } from './helpers/serve.js';

const missing = goToolchainMissing();
if (missing.length && process.env.PCTL_REQUIRE_SHELLS) throw new Error(`the Go toolchain is missing: apt-get install ${missing.join(' ')}`);
const goTest = missing.length ? test.skip : test.serial;

let srv: TestServer;
let binary: string;

test.before(async (t) => {
  if (missing.length) return;
  t.timeout(BUILD_TIMEOUT_MS + 60_000, 'building the Go client (cached after the first run)');
  srv = await startTestServer();
  binary = await vendorClient();
});

test.after.always(async () => {
  await srv?.dispose();
});

function scenario(name: string, params: Record<string, unknown> = {}, token = srv.ownerToken): Promise<GoRun> {
  return runGoScenario(binary, { address: new URL(srv.url).host, token, scenario: name, params });
}

goTest('v1 over Go: a group made, listed by name and deleted, as REST sees it', async (t) => {
  const run = await scenario('v1-groups', { org: srv.organizationUid });
  t.deepEqual(run.failed, [], run.stderr);
  t.is(run.exitCode, 0, run.stderr);
  const made = run.byStep.get('create')!;
  t.is(made.code, 'OK');
  const uid = (made.response as { id: string }).id;
  t.true(uid.startsWith(`${srv.organizationUid}/`));
  t.is(run.byStep.get('delete')!.code, 'OK');
  t.is((await srv.call('GET', `/iam/v2/groups/${uid}`)).status, 404, 'the group is gone for REST too');
});

goTest('a bad token is UNAUTHENTICATED for the Go client', async (t) => {
  const run = await scenario('v1-groups', { org: srv.organizationUid }, 'not-a-token');
  t.is(run.byStep.get('create')?.code, 'Unauthenticated');
  t.is(run.exitCode, 0, 'the scenario stops after a failed create; no check ran');
});

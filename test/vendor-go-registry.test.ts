// The Terraform provider's registry and events resources replayed by the Go client built from
// the vendor's published protos (test/go/vendorclient/registry.go; the harness:
// test/helpers/go-client.ts): image_repo, image_tag, subscription, and the v2/v2beta1
// registry services; serve's state read back over REST.
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

function scenario(name: string, params: Record<string, unknown>): Promise<GoRun> {
  return runGoScenario(binary, { address: new URL(srv.url).host, token: srv.ownerToken, scenario: name, params });
}

goTest('chainguard_image_repo: create, read, update, the data source, delete', async (t) => {
  const run = await scenario('tf-image-repo', { org: srv.organizationUid });
  t.deepEqual(run.failed, [], run.stderr);
  t.is(run.exitCode, 0, run.stderr);
  const uid = (run.byStep.get('create')!.response as { id: string }).id;
  t.is(run.byStep.get('delete')!.code, 'OK');
  t.is((await srv.call('GET', `/registry/v2/repos/${uid}`)).status, 404, 'gone for REST too');
});

goTest('chainguard_image_tag: create without a digest, read, update, delete', async (t) => {
  const repo = await srv.ok('POST', '/registry/v2/repos', { parent: srv.organizationUid, repo: { name: 'tagged' } });
  const run = await scenario('tf-image-tag', { repo: repo.uid });
  t.deepEqual(run.failed, [], run.stderr);
  t.is(run.exitCode, 0, run.stderr);
  t.deepEqual((await srv.ok('GET', `/registry/v2/tags?uidp.children_of=${repo.uid}`)).tags, [], 'the tag is gone');
});

goTest('registry v2 and v2beta1: repos with tags, an update by mask', async (t) => {
  const run = await scenario('registry-v2', { org: srv.organizationUid });
  t.deepEqual(run.failed, [], run.stderr);
  t.is(run.exitCode, 0, run.stderr);
  t.deepEqual((await srv.ok('GET', `/registry/v2/repos?uidp.children_of=${srv.organizationUid}`)).repos.filter((r: { name: string }) => r.name.startsWith('go-')), []);
});

goTest('chainguard_subscription: create, read, delete over v1; v2 and v2beta1 see it', async (t) => {
  const run = await scenario('tf-subscription', { org: srv.organizationUid });
  t.deepEqual(run.failed, [], run.stderr);
  t.is(run.exitCode, 0, run.stderr);
  t.is((run.byStep.get('v2beta1 list')!.response as { subscriptions: unknown[] }).subscriptions.length, 1);
  t.is(run.byStep.get('delete')!.code, 'OK');
});

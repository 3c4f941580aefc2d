// The Terraform provider's registry and events resources replayed by the Go client built from
// the vendor's published protos (test/go/vendorclient/registry.go; the harness:
// test/helpers/go-client.ts): image_repo, image_tag, subscription, and the v2/v2beta1
// registry services; serve's state read back over REST.
import { goSuite } from './helpers/go-client.js';

const suite = goSuite();
const { goTest, scenario } = suite;

goTest('chainguard_image_repo: create, read, update, the data source, delete', async (t) => {
  const run = await scenario('tf-image-repo', { org: suite.srv.organizationUid });
  t.deepEqual(run.failed, [], run.stderr);
  t.is(run.exitCode, 0, run.stderr);
  const uid = (run.byStep.get('create')!.response as { id: string }).id;
  t.is(run.byStep.get('delete')!.code, 'OK');
  t.is((await suite.srv.call('GET', `/registry/v2/repos/${uid}`)).status, 404, 'gone for REST too');
});

goTest('chainguard_image_tag: create without a digest, read, update, delete', async (t) => {
  const repo = await suite.srv.ok('POST', '/registry/v2/repos', { parent: suite.srv.organizationUid, repo: { name: 'tagged' } });
  const run = await scenario('tf-image-tag', { repo: repo.uid });
  t.deepEqual(run.failed, [], run.stderr);
  t.is(run.exitCode, 0, run.stderr);
  t.deepEqual((await suite.srv.ok('GET', `/registry/v2/tags?uidp.children_of=${repo.uid}`)).tags, [], 'the tag is gone');
});

goTest('registry v2 and v2beta1: repos with tags, an update by mask', async (t) => {
  const run = await scenario('registry-v2', { org: suite.srv.organizationUid });
  t.deepEqual(run.failed, [], run.stderr);
  t.is(run.exitCode, 0, run.stderr);
  t.deepEqual((await suite.srv.ok('GET', `/registry/v2/repos?uidp.children_of=${suite.srv.organizationUid}`)).repos.filter((r: { name: string }) => r.name.startsWith('go-')), []);
});

goTest('chainguard_subscription: create, read, delete over v1; v2 and v2beta1 see it', async (t) => {
  const run = await scenario('tf-subscription', { org: suite.srv.organizationUid });
  t.deepEqual(run.failed, [], run.stderr);
  t.is(run.exitCode, 0, run.stderr);
  t.is((run.byStep.get('v2beta1 list')!.response as { subscriptions: unknown[] }).subscriptions.length, 1);
  t.is(run.byStep.get('delete')!.code, 'OK');
});

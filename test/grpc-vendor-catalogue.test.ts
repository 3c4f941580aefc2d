// The vendor's published registry, vulnerabilities, advisory, libraries, events and ping
// services (proto/chainguard/platform/*/{v2,v2beta1}/) against serve, with Connect's gRPC
// client generated from those files: the calls the Terraform provider's image_repo,
// image_tag and subscription resources make (create, read by list and get, update with a
// mask, delete), each over v2 and v2beta1, and answers equal to REST's for the same state.
import test from 'ava';
import { Code, ConnectError, createClient, type Client, type Transport } from '@connectrpc/connect';
import { createConnectTransport, createGrpcTransport } from '@connectrpc/connect-node';
import type { DescService } from '@bufbuild/protobuf';
import { ReposService as ReposV2 } from '../src/gen/chainguard/platform/registry/v2/repos_pb.js';
import { TagsService as TagsV2 } from '../src/gen/chainguard/platform/registry/v2/tags_pb.js';
import { ImagesService } from '../src/gen/chainguard/platform/registry/v2/images_pb.js';
import { ReposService as ReposV2beta1 } from '../src/gen/chainguard/platform/registry/v2beta1/repos_pb.js';
import { TagsService as TagsV2beta1 } from '../src/gen/chainguard/platform/registry/v2beta1/tags_pb.js';
import { SubscriptionsService as SubsV2 } from '../src/gen/chainguard/platform/events/v2/subscriptions_pb.js';
import { SubscriptionsService as SubsV2beta1 } from '../src/gen/chainguard/platform/events/v2beta1/subscriptions_pb.js';
import { Subscriptions as SubsV1 } from '../src/gen/platform/events/v1/subscriptions.platform_pb.js';
import { PingService } from '../src/gen/chainguard/platform/ping/v2/ping_pb.js';
import { AdvisoriesService } from '../src/gen/chainguard/platform/vulnerabilities/v2/advisories_pb.js';
import { ArtifactsService, Ecosystem } from '../src/gen/chainguard/platform/libraries/v2beta1/artifacts_pb.js';
import { CatalogTier } from '../src/gen/chainguard/platform/registry/v2/repos_pb.js';
import { Reference_Type, SecurityAdvisoryService, Severity_Type } from '../src/gen/chainguard/platform/advisory/v2/advisory_pb.js';
import { demoSeed } from '../src/server/data/demo.js';
import { startTestServer, type TestServer } from './helpers/serve.js';

let srv: TestServer;
let transport: Transport;
const DIGEST = `sha256:${'ab'.repeat(32)}`;

test.before(async () => {
  srv = await startTestServer({ seed: demoSeed() });
  transport = createGrpcTransport({ baseUrl: srv.url });
});
test.after.always(() => srv?.dispose());

const auth = (token = srv.ownerToken) => ({ headers: { authorization: `Bearer ${token}` } });
function client<S extends DescService>(service: S): Client<S> {
  return createClient(service, transport);
}

async function rpcError(t: import('ava').ExecutionContext, p: Promise<unknown>): Promise<ConnectError> {
  const err = await t.throwsAsync(p);
  return ConnectError.from(err);
}

for (const [version, Repos, Tags] of [['v2', ReposV2, TagsV2], ['v2beta1', ReposV2beta1, TagsV2beta1]] as const) {
  test.serial(`${version}: image_repo's calls: create with the catalogue fields, read, update by mask, delete; REST sees the same repo`, async (t) => {
    const repos = client(Repos as typeof ReposV2);
    const made = await repos.createRepo({
      parent: srv.organizationUid,
      repo: { name: `tf-${version}/nginx`, description: 'from terraform', catalogTier: CatalogTier.BASE, bundles: ['base'], aliases: ['nginx-alias'], activeTags: ['latest'], syncConfig: { source: 'chainguard/nginx', amazon: 'ecr/x' } },
    }, auth());
    t.regex(made.uid, new RegExp(`^${srv.organizationUid}/[0-9a-f]{16}$`));
    t.is(made.catalogTier, CatalogTier.BASE);
    t.deepEqual([made.bundles, made.aliases, made.activeTags], [['base'], ['nginx-alias'], ['latest']]);
    t.is(made.syncConfig?.source, 'chainguard/nginx');
    t.truthy(made.createTime);

    // The data source's read: GetRepo, and ListRepos by parent and name.
    const got = await repos.getRepo({ uid: made.uid }, auth());
    t.deepEqual(got, made);
    const listed = await repos.listRepos({ uidp: { childrenOf: srv.organizationUid }, name: made.name }, auth());
    t.deepEqual(listed.repos.map((r) => r.uid), [made.uid]);

    // REST answers the same repo, in the published message's proto3 JSON.
    const rest = await srv.ok('GET', `/registry/v2/repos/${made.uid}`);
    t.like(rest, { uid: made.uid, name: made.name, catalogTier: 'CATALOG_TIER_BASE', bundles: ['base'], sync_config: { source: 'chainguard/nginx', amazon: 'ecr/x' } });

    // An update naming its fields: those change, the rest stays.
    const updated = await repos.updateRepo({ repo: { uid: made.uid, description: 'changed', bundles: [] }, updateMask: { paths: ['description', 'bundles'] } }, auth());
    t.is(updated.description, 'changed');
    t.deepEqual(updated.bundles, []);
    t.deepEqual(updated.aliases, ['nginx-alias']);
    t.is(updated.syncConfig?.source, 'chainguard/nginx', 'a field the mask leaves out stays');
    // A mask naming sync_config (FieldMask's JSON spells it syncConfig) sets it from the message.
    const synced = await repos.updateRepo({ repo: { uid: made.uid, syncConfig: { source: 'chainguard/envoy' } }, updateMask: { paths: ['sync_config'] } }, auth());
    t.is(synced.syncConfig?.source, 'chainguard/envoy');
    // No mask: the fields the message sets.
    const implied = await repos.updateRepo({ repo: { uid: made.uid, catalogTier: CatalogTier.FIPS } }, auth());
    t.is(implied.catalogTier, CatalogTier.FIPS);
    t.is(implied.description, 'changed');
    const badMask = await rpcError(t, repos.updateRepo({ repo: { uid: made.uid }, updateMask: { paths: ['create_time_x'] } }, auth()));
    t.is(badMask.code, Code.InvalidArgument);

    await repos.deleteRepo({ uid: made.uid }, auth());
    t.is((await rpcError(t, repos.getRepo({ uid: made.uid }, auth()))).code, Code.NotFound);
    t.is((await srv.call('GET', `/registry/v2/repos/${made.uid}`)).status, 404);
  });

  test.serial(`${version}: image_tag's calls: create under a repo, list by repo, delete; a repo's delete takes its tags`, async (t) => {
    const repos = client(Repos as typeof ReposV2);
    const tags = client(Tags as typeof TagsV2);
    const repo = await repos.createRepo({ parent: srv.organizationUid, repo: { name: `tagged-${version}` } }, auth());
    const tag = await tags.createTag({ parent: repo.uid, tag: { name: 'latest', digest: DIGEST, bundles: ['b'] } }, auth());
    t.like(tag, { name: 'latest', digest: DIGEST, deprecated: false, bundles: ['b'] });
    t.true(tag.uid.startsWith(`${repo.uid}/`));
    t.deepEqual((await tags.listTags({ uidp: { childrenOf: repo.uid } }, auth())).tags.map((x) => x.uid), [tag.uid]);
    t.deepEqual((await srv.ok('GET', `/registry/v2/tags?uidp.children_of=${repo.uid}`)).tags.map((x: { uid: string }) => x.uid), [tag.uid]);

    // The same name twice, a bad digest: refused, nothing made.
    t.is((await rpcError(t, tags.createTag({ parent: repo.uid, tag: { name: 'latest', digest: DIGEST } }, auth()))).code, Code.AlreadyExists);
    t.is((await rpcError(t, tags.createTag({ parent: repo.uid, tag: { name: 'v2', digest: 'sha256:nothex' } }, auth()))).code, Code.InvalidArgument);
    t.is((await tags.listTags({ uidp: { childrenOf: repo.uid } }, auth())).tags.length, 1);

    const second = await tags.createTag({ parent: repo.uid, tag: { name: 'v1', digest: DIGEST } }, auth());
    await tags.deleteTag({ uid: second.uid }, auth());
    t.is((await rpcError(t, tags.getTag({ uid: second.uid }, auth()))).code, Code.NotFound);

    await repos.deleteRepo({ uid: repo.uid }, auth());
    t.is((await srv.call('GET', `/registry/v2/tags/${tag.uid}`)).status, 404);
  });

  test.serial(`${version}: a viewer may read repos but not create or delete them`, async (t) => {
    const viewer = await srv.person(`viewer-${version}`, 'viewer', srv.organizationUid);
    const repos = client(Repos as typeof ReposV2);
    const err = await rpcError(t, repos.createRepo({ parent: srv.organizationUid, repo: { name: `nope-${version}` } }, auth(viewer.token)));
    t.is(err.code, Code.PermissionDenied);
    t.deepEqual((await repos.listRepos({ name: `nope-${version}` }, auth())).repos, []);
  });
}

for (const [version, Subs] of [['v2', SubsV2], ['v2beta1', SubsV2beta1]] as const) {
  test.serial(`${version}: subscription's calls: create, get, list, delete; REST lists the same`, async (t) => {
    const subs = client(Subs as typeof SubsV2);
    const made = await subs.createSubscription({ parent: srv.organizationUid, subscription: { sink: `http://127.0.0.1:9/${version}` } }, auth());
    t.is(made.sink, `http://127.0.0.1:9/${version}`);
    t.deepEqual(await subs.getSubscription({ uid: made.uid }, auth()), made);
    t.deepEqual((await subs.listSubscriptions({ uidp: { ids: [made.uid] } }, auth())).subscriptions, [made]);
    t.true((await srv.ok('GET', '/events/v2/subscriptions')).subscriptions.some((s: { uid: string }) => s.uid === made.uid));
    const bad = await rpcError(t, subs.createSubscription({ parent: srv.organizationUid, subscription: { sink: 'http://example.com/x' } }, auth()));
    t.is(bad.code, Code.InvalidArgument);
    await subs.deleteSubscription({ uid: made.uid }, auth());
    t.is((await rpcError(t, subs.getSubscription({ uid: made.uid }, auth()))).code, Code.NotFound);
  });
}

test.serial('v1 events Subscriptions (the provider\'s subscription resource): Create, List by id, Delete, over gRPC and REST', async (t) => {
  const subs = client(SubsV1);
  const made = await subs.create({ parentId: srv.organizationUid, subscription: { sink: 'https://hooks.example/v1' } }, auth());
  t.is(made.sink, 'https://hooks.example/v1');
  t.deepEqual((await subs.list({ id: made.id }, auth())).items.map((s) => s.id), [made.id]);
  t.like(await srv.ok('GET', `/events/v2/subscriptions/${made.id}`), { uid: made.id, sink: 'https://hooks.example/v1' });
  const rest = await srv.call('GET', `/events/v1/subscriptions?id=${encodeURIComponent(made.id)}`);
  t.deepEqual(rest.json.items, [{ id: made.id, sink: 'https://hooks.example/v1' }]);
  t.truthy(rest.headers.get('deprecation'));
  await subs.delete({ id: made.id }, auth());
  t.deepEqual((await subs.list({ id: made.id }, auth())).items, []);
});

test('Ping answers without a token, over gRPC and at GET /ping/v2/ping', async (t) => {
  t.is((await client(PingService).ping({})).response, 'pong');
  const rest = await fetch(`${srv.url}/ping/v2/ping`);
  t.is(rest.status, 200);
  t.deepEqual(await rest.json(), { response: 'pong' });
});

test('advisories and libraries: the same items as REST, enums with the published prefix', async (t) => {
  const page = await client(AdvisoriesService).listAdvisories({ pageSize: 5 }, auth());
  const rest = await srv.ok('GET', '/vulnerabilities/v2/advisories?page_size=5');
  t.true(page.advisories.length > 0);
  t.deepEqual(page.advisories.map((a) => [a.uid, a.advisoryId, a.artifactName]), rest.advisories.map((a: { uid: string; advisoryId: string; artifactName: string }) => [a.uid, a.advisoryId, a.artifactName]));
  t.is(String(page.totalCount), rest.totalCount);
  const unknownFilter = await rpcError(t, client(AdvisoriesService).listAdvisories({ componentNames: ['x'] }, auth()));
  t.is(unknownFilter.code, Code.InvalidArgument);

  const libs = await client(ArtifactsService).listArtifacts({ ecosystems: [Ecosystem.PYTHON] }, auth());
  t.true(libs.artifacts.length > 0);
  t.true(libs.artifacts.every((a) => a.ecosystem === Ecosystem.PYTHON));
  // The Connect protocol's JSON: the published message's proto3 JSON, prefixed enum names and all.
  const res = await fetch(`${srv.url}/chainguard.platform.libraries.v2beta1.ArtifactsService/ListArtifacts`, {
    method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${srv.ownerToken}` }, body: JSON.stringify({ ecosystems: ['ECOSYSTEM_JAVA'], pageSize: 2 }),
  });
  t.is(res.status, 200);
  const json = (await res.json()) as { artifacts: { ecosystem: string }[]; totalCount: string };
  t.deepEqual(json.artifacts.map((a) => a.ecosystem), ['ECOSYSTEM_JAVA', 'ECOSYSTEM_JAVA']);
  const viaConnect = await createClient(ArtifactsService, createConnectTransport({ baseUrl: srv.url, httpVersion: '1.1' })).listArtifacts({ ecosystems: [Ecosystem.JAVA], pageSize: 2 }, auth());
  t.is(String(viaConnect.totalCount), json.totalCount);
  const counts = await client(ArtifactsService).getArtifactCount({ ecosystems: [Ecosystem.JAVA, Ecosystem.PYTHON] }, auth());
  t.deepEqual(counts.counts.map((c) => c.ecosystem), [Ecosystem.JAVA, Ecosystem.PYTHON]);
});

test('advisory documents and vulnerability metadata: REST\'s, with the published enum names', async (t) => {
  const advisory = client(SecurityAdvisoryService);
  const docs = await advisory.listDocuments({}, auth());
  const rest = (await srv.ok('GET', '/advisory/v2/documents')).documents as { id: string; advisories: { id: string; events: { falsePositiveDetermination?: { type: string } }[] }[] }[];
  t.true(docs.documents.length > 0);
  t.deepEqual(docs.documents.map((d) => [d.id, d.advisories.map((a) => [a.id, a.events.length])]), rest.map((d) => [d.id, d.advisories.map((a) => [a.id, a.events.length])]));
  const restFp = rest.flatMap((d) => d.advisories.flatMap((a) => a.events)).flatMap((e) => (e.falsePositiveDetermination ? [e.falsePositiveDetermination.type] : []));
  const fp = docs.documents.flatMap((d) => d.advisories.flatMap((a) => a.events)).flatMap((e) => (e.data.case === 'falsePositiveDetermination' ? [e.data.value.type] : []));
  t.true(restFp.length > 0, 'the demo data has a false-positive event');
  t.is(fp.length, restFp.length);
  t.false(fp.includes(0), 'every false-positive type is one of the published values');

  const meta = await advisory.listVulnerabilityMetadata({ pageSize: 50 }, auth());
  const restMeta = (await srv.ok('GET', '/advisory/v2/metadata?page_size=50')).vulnerabilityMetadata as { id: string; references: unknown[]; severities: { type: string }[] }[];
  t.deepEqual(meta.vulnerabilityMetadata.map((m) => [m.id, m.references.length, m.severities.length]), restMeta.map((m) => [m.id, m.references.length, m.severities.length]));
  t.true(meta.vulnerabilityMetadata.some((m) => m.severities.some((x) => x.type === Severity_Type.CVSS_V3)));
  t.true(meta.vulnerabilityMetadata.every((m) => m.references.every((r) => r.type !== Reference_Type.UNSPECIFIED) && m.severities.every((x) => x.type !== Severity_Type.UNSPECIFIED)));
});

test('what serve cannot emulate answers UNIMPLEMENTED naming the closest call', async (t) => {
  const err = await rpcError(t, client(ImagesService).getSize({ repoUid: srv.organizationUid, digest: DIGEST }, auth()));
  t.is(err.code, Code.Unimplemented);
  t.regex(err.rawMessage, /closest call is GET \/registry\/v2\/tags/);
});

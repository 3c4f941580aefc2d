// The read-only domains: Ecosystems (/libraries/v2/artifacts, its versions and counts) and
// Integrations (/advisory/v2/documents and metadata), loaded from a seed; and their commands.
import test from 'ava';
import { request, startTestServer, tempDir } from './helpers/serve.js';
import { cli } from './helpers/cli.js';
import type { SeedDocument } from '../src/server/data/seed.js';
import { exportSeed } from '../src/server/data/seed-export.js';

const ART = '/libraries/v2/artifacts';
const seed: SeedDocument = {
  libraries: [
    { name: 'com.fasterxml.jackson.core:jackson-databind', ecosystem: 'JAVA', description: 'data binding', versions: [
      { version: '2.17.2', sizeBytes: '1649454', updateTime: '2024-07-05T00:00:00Z' }, { version: '2.18.1', sizeBytes: '1700000', updateTime: '2024-10-29T00:00:00Z' }] },
    { name: 'com.fasterxml.jackson.core:jackson-core', ecosystem: 'JAVA', versions: [{ version: '2.18.1', updateTime: '2024-10-29T00:00:00Z' }] },
    { name: 'requests', ecosystem: 'PYTHON', versions: [{ version: '2.31.0', updateTime: '2023-05-22T00:00:00Z' }, { version: '2.32.3', updateTime: '2024-05-29T00:00:00Z' }] },
  ],
  advisoryDocuments: [{
    id: 'openssl',
    advisories: [
      { id: 'CGA-1', aliases: ['CVE-2024-5535'], packageNamespace: 'wolfi', events: [
        { timestamp: '2024-06-27T10:00:00Z', detection: { manual: {} } }, { timestamp: '2024-09-04T09:00:00Z', fixed: { fixedVersion: '3.3.2' } }] },
      { id: 'CGA-2', aliases: ['CVE-2024-2511'], packageNamespace: 'wolfi', events: [
        { timestamp: '2024-04-10T10:00:00Z', falsePositiveDetermination: { type: 'VULNERABLE_CODE_NOT_IN_EXECUTION_PATH', note: 'n/a' } }] },
    ],
  }],
  vulnerabilityMetadata: [
    { id: 'CVE-2024-5535', summary: 'overread', details: '', references: [{ type: 'ADVISORY', url: 'https://example.com/a' }], severities: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N' }] },
    { id: 'CVE-2024-2511', summary: 'memory growth', details: '', references: [], severities: [] },
  ],
};

async function setup() {
  const srv = await startTestServer({ seed });
  return { srv, get: async (path: string) => srv.call('GET', path) };
}

test('artifacts: ecosystems required (code 3), filter and query; versions oldest first; counts', async (t) => {
  const { srv, get } = await setup();
  t.teardown(() => srv.dispose());
  const missing = await get(ART);
  t.is(missing.status, 400);
  t.regex(missing.json.message, /ecosystems/);
  t.is((await get(`${ART}?ecosystems=RUST`)).status, 400);
  const java = await get(`${ART}?ecosystems=JAVA`);
  t.is(java.json.totalCount, '2');
  t.deepEqual(java.json.artifacts.map((a: { name: string }) => a.name), ['com.fasterxml.jackson.core:jackson-core', 'com.fasterxml.jackson.core:jackson-databind'], 'by name');
  const databind = java.json.artifacts[1];
  t.like(databind, { ecosystem: 'JAVA', latestVersion: '2.18.1', versionCount: 2, description: 'data binding' });
  const both = await get(`${ART}?ecosystems=java,python&query=REQ`);
  t.deepEqual(both.json.artifacts.map((a: { name: string }) => a.name), ['requests']);
  const paged = await get(`${ART}?ecosystems=JAVA&ecosystems=PYTHON&page_size=2`);
  t.is(paged.json.artifacts.length, 2);
  t.is((await get(`${ART}?ecosystems=JAVA&ecosystems=PYTHON&page_token=${paged.json.nextPageToken}`)).json.artifacts.length, 1);
  const versions = await get(`${ART}/${databind.uid}/versions`);
  t.deepEqual(versions.json.artifactVersions.map((v: { version: string }) => v.version), ['2.17.2', '2.18.1']);
  t.like(versions.json.artifactVersions[0], { name: databind.name, sizeBytes: '1649454' });
  t.is((await get(`${ART}/${'0'.repeat(32)}/versions`)).json.code, 5);
  t.deepEqual((await get(`${ART}/count?ecosystems=JAVA,PYTHON`)).json, { counts: [{ ecosystem: 'JAVA', totalCount: '2' }, { ecosystem: 'PYTHON', totalCount: '1' }] });
});

test('advisory documents (by package, cut to the CVEs asked) and metadata (paged, by id); any token reads them, none is 401', async (t) => {
  const { srv, get } = await setup();
  t.teardown(() => srv.dispose());
  const all = await get('/advisory/v2/documents');
  t.is(all.json.documents.length, 1);
  t.is(all.json.documents[0].advisories.length, 2);
  t.deepEqual(all.json.documents[0].advisories[1].events[0].falsePositiveDetermination, { type: 'VULNERABLE_CODE_NOT_IN_EXECUTION_PATH', note: 'n/a' });
  const cut = await get('/advisory/v2/documents?id=openssl&cves=CVE-2024-2511');
  t.deepEqual(cut.json.documents[0].advisories.map((a: { id: string }) => a.id), ['CGA-2']);
  t.deepEqual((await get('/advisory/v2/documents?id=nothing')).json, { documents: [] });
  t.is((await get('/advisory/v2/documents?page_size=1')).status, 400);
  const meta = await get('/advisory/v2/metadata?ids=CVE-2024-5535');
  t.is(meta.json.totalCount, '1');
  t.deepEqual(meta.json.vulnerabilityMetadata[0].severities, [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N' }]);
  t.is((await get('/advisory/v2/metadata?page_size=1')).json.vulnerabilityMetadata.length, 1);
  t.is((await request(srv.url, 'GET', '/advisory/v2/documents')).status, 401);
  // An identity with no role at all reads the advisory data, but not the libraries (libraries.artifacts.list, ListArtifacts' published rule).
  const issuer = (await srv.call('GET', `/iam/v2/identities/${srv.ownerIdentityUid}`)).json.claimMatch.issuer;
  const id = (await srv.call('POST', '/iam/v2/identities', { parent: srv.organizationUid, identity: { name: 'nobody', claimMatch: { issuer, subject: 'nobody' } } })).json;
  const token = await srv.issueToken(id.uid);
  t.is((await request(srv.url, 'GET', '/advisory/v2/metadata', undefined, { authorization: `Bearer ${token}` })).status, 200);
  const denied = await request(srv.url, 'GET', `${ART}?ecosystems=JAVA`, undefined, { authorization: `Bearer ${token}` });
  t.is(denied.status, 403);
  t.regex(denied.json.message, /libraries\.artifacts\.list/);
});

test('seed → export → seed → export keeps libraries, documents and metadata', async (t) => {
  const { srv } = await setup();
  t.teardown(() => srv.dispose());
  const first = exportSeed(srv.store);
  t.is(first.libraries?.length, 3);
  const again = await startTestServer({ seed: first });
  t.teardown(() => again.dispose());
  t.deepEqual(exportSeed(again.store), first);
  await t.throwsAsync(startTestServer({ seed: { libraries: [{ name: 'x', ecosystem: 'go' }] } as unknown as SeedDocument }), { message: /libraries\[0\]\.ecosystem/ });
});

test('pctl libraries list|versions|count and pctl advisories documents|metadata (pctl advisory, the old name, too)', async (t) => {
  const { srv } = await setup();
  t.teardown(() => srv.dispose());
  const pctl = cli({ PCTL_API_URL: srv.url, PCTL_TOKEN: srv.ownerToken, PCTL_CONFIG_DIR: tempDir('pctl-lib-cfg-') });
  const list = await pctl(['libraries', 'list', '--ecosystem', 'java', '--query', 'databind']);
  t.is(list.code, 0, list.stderr);
  t.regex(list.stdout, /^com\.fasterxml\.jackson\.core:jackson-databind\tJAVA\t2\.18\.1\t2\n$/);
  const versions = await pctl(['libraries', 'versions', 'requests', '-o', 'json']);
  t.is(versions.code, 0, versions.stderr);
  t.deepEqual(JSON.parse(versions.stdout).map((v: { version: string }) => v.version), ['2.31.0', '2.32.3']);
  t.is((await pctl(['libraries', 'versions', 'nothing'])).code, 3);
  t.is((await pctl(['libraries', 'list', '--ecosystem', 'rust'])).code, 2);
  t.is((await pctl(['libraries', 'count'])).stdout, 'JAVA\t2\nPYTHON\t1\n');
  const docs = await pctl(['advisories', 'documents', '--cve', 'CVE-2024-5535']);
  t.regex(docs.stdout, /^openssl\tCGA-1\tCVE-2024-5535\tfixed\t/);
  t.is((await pctl(['advisory', 'documents', '--cve', 'CVE-2024-5535'])).stdout, docs.stdout, 'the old name is an alias');
  const meta = await pctl(['advisories', 'metadata', '--id', 'CVE-2024-2511', '-o', 'json']);
  t.is(JSON.parse(meta.stdout)[0].summary, 'memory growth');
});

// The published REST rules (v2 and v2beta1, proto3 JSON bodies) and Connect's JSON refuse a
// body naming a field its message has not, as the spec's routes do: 400 INVALID_ARGUMENT with
// an AIP-193 field violation for each (`bogus: is not a known field`, nested ones by their
// lowerCamelCase path), and nothing changes. Either spelling of a known field is accepted.
import test from 'ava';
import { fromBinary } from '@bufbuild/protobuf';
import { BadRequestSchema } from '../src/gen/google/rpc/error_details_pb.js';
import { startTestServer, type ApiResponse, type TestServer } from './helpers/serve.js';

let srv: TestServer;
let org: string;
const ISSUER = 'https://issuer.example.com';

test.before(async () => {
  srv = await startTestServer();
  org = srv.organizationUid;
});
test.after.always(() => srv?.dispose());

/** The field violations of a 400 INVALID_ARGUMENT answer, as `field: description`. */
function violations(t: import('ava').ExecutionContext, res: ApiResponse): string[] {
  t.is(res.status, 400, res.text);
  t.is(res.json.status, 'INVALID_ARGUMENT');
  const bad = (res.json.details as { '@type': string; fieldViolations?: { field: string; description: string }[] }[])
    .find((d) => d['@type'] === 'type.googleapis.com/google.rpc.BadRequest');
  return (bad?.fieldViolations ?? []).map((v) => `${v.field}: ${v.description}`);
}

const groupNames = async () => (await srv.ok('GET', `/iam/v2/groups?uidp.children_of=${org}`)).groups.map((g: { name: string }) => g.name);

for (const version of ['v2', 'v2beta1']) {
  test(`${version}: creating a group with an unknown field is refused and creates nothing`, async (t) => {
    const res = await srv.call('POST', `/iam/${version}/groups/${org}`, { bogus: 1, name: `refused-${version}` });
    t.deepEqual(violations(t, res), ['bogus: is not a known field']);
    t.false((await groupNames()).includes(`refused-${version}`));
    // The same body without the unknown field creates the group.
    const made = await srv.call('POST', `/iam/${version}/groups/${org}`, { name: `made-${version}` });
    t.is(made.status, 200, made.text);
    t.true((await groupNames()).includes(`made-${version}`));
  });

  test(`${version}: an update with a mask refuses an unknown field and changes nothing`, async (t) => {
    const group = await srv.ok('POST', '/iam/v2/groups', { parent: org, group: { name: `masked-${version}`, description: 'before' } });
    const res = await srv.call('PATCH', `/iam/${version}/groups/${group.uid}?update_mask=description`, { description: 'after', bogus: true });
    t.deepEqual(violations(t, res), ['bogus: is not a known field']);
    t.is((await srv.ok('GET', `/iam/v2/groups/${group.uid}`)).description, 'before');
    const ok = await srv.call('PATCH', `/iam/${version}/groups/${group.uid}?update_mask=description`, { description: 'after' });
    t.is(ok.status, 200, ok.text);
    t.is((await srv.ok('GET', `/iam/v2/groups/${group.uid}`)).description, 'after');
  });
}

test('v2beta1: a nested unknown field is named by its path, under either spelling of its parent', async (t) => {
  for (const key of ['claimMatch', 'claim_match']) {
    const res = await srv.call('POST', `/iam/v2beta1/identities/${org}`, { name: `nested-${key}`, [key]: { issuer: ISSUER, subject: 's', bogus: 1 } });
    t.deepEqual(violations(t, res), ['claimMatch.bogus: is not a known field'], key);
  }
  const names = (await srv.ok('GET', `/iam/v2/identities?uidp.children_of=${org}`)).identities.map((i: { name: string }) => i.name);
  t.false(names.some((n: string) => n.startsWith('nested-')));
});

test('v2beta1: the proto field names are accepted as proto3 JSON requires, in a create and a masked update', async (t) => {
  const made = await srv.call('POST', `/iam/v2beta1/identities/${org}`, { name: 'proto-names', claim_match: { issuer: ISSUER, subject: 'first' } });
  t.is(made.status, 200, made.text);
  t.is(made.json.claimMatch.subject, 'first');
  const refused = await srv.call('PATCH', `/iam/v2beta1/identities/${made.json.uid}?update_mask=claim_match.subject`, { claim_match: { subject: 'second', subjct: 'x' } });
  t.deepEqual(violations(t, refused), ['claimMatch.subjct: is not a known field']);
  const updated = await srv.call('PATCH', `/iam/v2beta1/identities/${made.json.uid}?update_mask=claim_match.subject`, { claim_match: { subject: 'second' } });
  t.is(updated.status, 200, updated.text);
  t.is((await srv.ok('GET', `/iam/v2/identities/${made.json.uid}`)).claimMatch.subject, 'second');
});

test('v2beta1: every unknown field is named, and a registry rule refuses them too', async (t) => {
  const res = await srv.call('POST', `/registry/v2beta1/repos/${org}`, { name: 'typo-repo', descripton: 'x', extra: { a: 1 } });
  t.deepEqual(violations(t, res).sort(), ['descripton: is not a known field', 'extra: is not a known field']);
  t.false((await srv.ok('GET', `/registry/v2/repos?uidp.children_of=${org}`)).repos.some((r: { name: string }) => r.name === 'typo-repo'));
});

test('Connect JSON: an unknown field is a field violation at its path in the request, and nothing is created', async (t) => {
  const res = await fetch(`${srv.url}/chainguard.platform.iam.v2beta1.GroupsService/CreateGroup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${srv.ownerToken}` },
    body: JSON.stringify({ parent: org, group: { name: 'connect-refused', bogus: 1 } }),
  });
  t.is(res.status, 400);
  const body = await res.json() as { code: string; details: { type: string; value: string }[] };
  t.is(body.code, 'invalid_argument');
  const detail = body.details.find((d) => d.type === 'google.rpc.BadRequest');
  t.truthy(detail, JSON.stringify(body));
  const bad = fromBinary(BadRequestSchema, Buffer.from(detail!.value, 'base64'));
  t.deepEqual(bad.fieldViolations.map((v) => `${v.field}: ${v.description}`), ['group.bogus: is not a known field']);
  t.false((await groupNames()).includes('connect-refused'));
});

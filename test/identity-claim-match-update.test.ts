// Updating an identity's claimMatch over REST, as the published oneofs behave: setting one form
// of a pair clears the other, setting both is refused, the result is held to the create rules,
// and an exact pair stays one identity's. A refused update changes nothing.
import test from 'ava';
import { startTestServer } from './helpers/serve.js';

const GH = 'https://token.actions.githubusercontent.com';

test('claimMatch changes by field or as a whole, exact and pattern alike; refused updates commit nothing', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.dispose());
  const made = await srv.ok('POST', '/iam/v2/identities', { parent: srv.organizationUid, identity: { name: 'ci', claimMatch: { issuer: GH, subject: 'repo:acme/app:ref:refs/heads/main' } } });
  const path = `/iam/v2/identities/${made.uid}`;

  // A pattern in place of the exact subject (body without a mask): the subject goes.
  const patterned = await srv.ok('PATCH', path, { claimMatch: { subjectPattern: 'repo:acme/.*' } });
  t.deepEqual(patterned.claimMatch, { issuer: GH, subject: '', subjectPattern: 'repo:acme/.*' });
  // Its exact pair is free again.
  const other = await srv.ok('POST', '/iam/v2/identities', { parent: srv.organizationUid, identity: { name: 'other', claimMatch: { issuer: GH, subject: 'repo:acme/app:ref:refs/heads/main' } } });

  // Both forms at once, a bad pattern, and a whole claimMatch without a subject: each refused, nothing changes.
  const both = await srv.call('PATCH', path, { claimMatch: { subject: 'x', subjectPattern: 'y' } });
  t.is(both.status, 400);
  t.regex(both.text, /claimMatch\.subject/);
  const bad = await srv.call('PATCH', `${path}?update_mask=claimMatch.subjectPattern`, { claimMatch: { subjectPattern: 'a(?=b)' } });
  t.is(bad.status, 400);
  t.regex(bad.text, /lookahead/);
  const noSubject = await srv.call('PATCH', `${path}?update_mask=claimMatch`, { claimMatch: { issuer: GH, claims: { ref: 'main' } } });
  t.is(noSubject.status, 400);
  t.deepEqual((await srv.ok('GET', path)).claimMatch, patterned.claimMatch);

  // Back to the exact pair another identity holds: ALREADY_EXISTS; to a free one: indexed again.
  const taken = await srv.call('PATCH', `${path}?update_mask=claimMatch`, { claimMatch: { issuer: GH, subject: 'repo:acme/app:ref:refs/heads/main' } });
  t.is(taken.status, 409);
  const exact = await srv.ok('PATCH', `${path}?update_mask=claimMatch`, { claimMatch: { issuer: GH, subject: 'repo:acme/app:ref:refs/tags/v1', audience: 'https://api.example', claims: { ref_type: 'tag' } } });
  t.deepEqual(exact.claimMatch, { issuer: GH, subject: 'repo:acme/app:ref:refs/tags/v1', audience: 'https://api.example', claims: { ref_type: 'tag' } });
  const clash = await srv.call('POST', '/iam/v2/identities', { parent: srv.organizationUid, identity: { name: 'clash', claimMatch: { issuer: GH, subject: 'repo:acme/app:ref:refs/tags/v1' } } });
  t.is(clash.status, 409);
  await srv.ok('DELETE', `/iam/v2/identities/${other.uid}`);
});

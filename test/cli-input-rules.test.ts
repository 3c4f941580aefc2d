// The CLI checks flags against the same field rules as the server (src/api/schemas.ts):
// a value the server would refuse is a usage error (exit 2) before any request, worded as
// the server words it.
import test from 'ava';
import { cli, serveWithCli } from './helpers/cli.js';
import type { TestServer } from './helpers/serve.js';

let srv: TestServer;
let pctl: ReturnType<typeof cli>;
let stop: () => Promise<void>;
let org: string;

test.before(async () => {
  ({ srv, pctl, stop } = await serveWithCli());
  org = srv.organizationUid;
});

test.after.always(() => stop?.());

const ISSUER = 'https://token.actions.githubusercontent.com';
const long = (n: number) => 'a'.repeat(n);
const someUid = () => `${org}/0000000000000000`;

/** Exit 2, nothing on stdout, the violation on stderr in the server's words, and no request sent (--debug would trace it). */
async function refusedBeforeRequest(t: import('ava').ExecutionContext, argv: string[], field: string, description: string) {
  const r = await pctl([...argv, '--debug']);
  const label = argv.slice(0, 2).join(' ');
  t.is(r.code, 2, `${label}: ${r.stderr.slice(0, 300)}`);
  t.is(r.stdout, '', label);
  t.is(r.stderr, `error: Invalid argument: ${field}: ${description}\n`, label);
  t.notRegex(r.stderr, /^> /m, `${label}: no request was sent`);
}

test('a name over 255 characters is a usage error before any request, for every resource that has one', async (t) => {
  const tooLong = 'must be at most 255 characters';
  await refusedBeforeRequest(t, ['groups', 'create', long(256), '--parent', org], 'name', tooLong);
  await refusedBeforeRequest(t, ['groups', 'create', long(1_000_000), '--parent', org], 'name', tooLong);
  await refusedBeforeRequest(t, ['groups', 'update', someUid(), '--name', long(256)], 'name', tooLong);
  await refusedBeforeRequest(t, ['identities', 'create', long(256), '--parent', org, '--issuer', ISSUER, '--subject', 's'], 'name', tooLong);
  await refusedBeforeRequest(t, ['identities', 'update', someUid(), '--name', long(256)], 'name', tooLong);
  await refusedBeforeRequest(t, ['roles', 'create', long(256), '--parent', org, '--capability', 'groups.list'], 'name', tooLong);
  await refusedBeforeRequest(t, ['roles', 'update', 'some-role', '--name', long(256)], 'name', tooLong);
  await refusedBeforeRequest(t, ['repos', 'update', someUid(), '--name', long(256)], 'name', 'must match ^[a-z0-9][a-z0-9._/-]*$ and be at most 255 characters');
  await refusedBeforeRequest(t, ['roles', 'create', 'a\u001bb', '--parent', org, '--capability', 'groups.list'], 'name', 'must not contain control characters');

  // 255 is fine, and the server agrees.
  const r = await pctl(['groups', 'create', long(255), '--parent', org, '-o', 'json']);
  t.is(r.code, 0, r.stderr);
  t.is(JSON.parse(r.stdout).name, long(255));
  const server = await srv.call('POST', '/iam/v2/groups', { parent: org, group: { name: long(256) } });
  t.is(server.json.message, `Invalid argument: name: ${tooLong}`, 'the server words it the same');
});

test('descriptions, subjects and issuers are held to the server\'s rules before any request', async (t) => {
  await refusedBeforeRequest(t, ['groups', 'create', 'g', '--parent', org, '--description', long(4097)], 'description', 'must be at most 4096 characters');
  await refusedBeforeRequest(t, ['repos', 'update', someUid(), '--description', long(4097)], 'description', 'must be at most 4096 characters');
  await refusedBeforeRequest(t, ['roles', 'update', 'some-role', '--description', long(4097)], 'description', 'must be at most 4096 characters');
  await refusedBeforeRequest(t, ['identities', 'create', 'x', '--parent', org, '--issuer', ISSUER, '--subject', long(1025)], 'claimMatch.subject', 'must be at most 1024 characters');
  const rule = 'must be an https URL (http only on a loopback host: 127.0.0.0/8, ::1, localhost)';
  for (const issuer of ['javascript:alert(1)', 'http://issuer.example']) {
    await refusedBeforeRequest(t, ['identities', 'create', 'x', '--parent', org, '--issuer', issuer, '--subject', 's'], 'claimMatch.issuer', rule);
    await refusedBeforeRequest(t, ['identities', 'update', someUid(), '--issuer', issuer], 'claimMatch.issuer', rule);
  }
  const local = await pctl(['identities', 'create', 'local', '--parent', org, '--issuer', 'http://127.0.0.1:9999', '--subject', 's', '-o', 'json']);
  t.is(local.code, 0, local.stderr);
});

// serve's own /mcp, met by the official SDK's Client over Streamable HTTP: bearer tokens as
// the API takes them, what a caller may do decided by its role bindings (the operations its
// tools' calls run, journaled and faulted as their REST equivalents), sessions bound to the identity that opened them, writes only with
// --mcp-writes. An SDK client without a token finds serve's issuer by RFC 9728 and signs in;
// idle sessions expire (serve's injected clock moves; nothing sleeps).
import test, { type ExecutionContext } from 'ava';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { discoverOAuthServerInfo, extractWWWAuthenticateParams, UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { browser, csrfOf } from './helpers/browser.js';
import { cli } from './helpers/cli.js';
import { request, startTestServer, tempDir, type TestServer } from './helpers/serve.js';

let readOnly: TestServer;
let writable: TestServer;
test.before(async () => {
  [readOnly, writable] = await Promise.all([startTestServer(), startTestServer({ mcpWrites: true })]);
});
test.after.always(() => Promise.all([readOnly?.dispose(), writable?.dispose()]));

async function connect(t: ExecutionContext, srv: TestServer, token: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(`${srv.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
  const client = new Client({ name: 'pctl-test', version: '1.0.0' });
  await client.connect(transport);
  t.teardown(() => client.close());
  return { client, transport };
}

const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '1' } } };
const streamable = { accept: 'application/json, text/event-stream' };

test('/mcp without a token, or with a bad one, is a 401 with WWW-Authenticate, as the API answers', async (t) => {
  for (const headers of [streamable, { ...streamable, authorization: 'Bearer not-a-token' }]) {
    const res = await request(readOnly.url, 'POST', '/mcp', initialize, headers);
    t.is(res.status, 401);
    t.regex(res.headers.get('www-authenticate') ?? '', /^Bearer /);
    t.is(res.json.code, 16);
  }
  const transport = new StreamableHTTPClientTransport(new URL(`${readOnly.url}/mcp`));
  const refused = await t.throwsAsync(new Client({ name: 'pctl-test', version: '1.0.0' }).connect(transport));
  t.is((refused as Error & { code?: number }).code, 401, "the SDK's client sees the 401");
  t.regex(refused.message, /Missing Authorization header/);
});

test('/mcp reads by default: no write tool, and groups_list answers as the caller sees the groups', async (t) => {
  const { client } = await connect(t, readOnly, readOnly.ownerToken);
  const { tools } = await client.listTools();
  t.true(tools.some((tool) => tool.name === 'groups_list'));
  t.deepEqual(tools.filter((tool) => !tool.annotations?.readOnlyHint).map((tool) => tool.name), [], 'writes need serve --mcp-writes');
  const listed = await client.callTool({ name: 'groups_list', arguments: { fields: ['uid'] } });
  t.true((listed.structuredContent as { groups: { uid: string }[] }).groups.some((g) => g.uid === readOnly.organizationUid));
});

test("/mcp with --mcp-writes: a viewer's write is PERMISSION_DENIED; the owner's lands, is visible over REST and is in the journal", async (t) => {
  const srv = writable;
  const team = await srv.ok('POST', '/iam/v2/groups', { parent: srv.organizationUid, group: { name: 'mcp-http-team' } });
  const viewer = await srv.person('mcp-viewer', 'viewer', team.uid);
  t.teardown(async () => {
    await srv.call('DELETE', `/iam/v2/identities/${viewer.id.uid}`);
    await srv.call('DELETE', `/iam/v2/groups/${team.uid}`);
  });

  const asViewer = (await connect(t, srv, viewer.token)).client;
  t.true((await asViewer.listTools()).tools.some((tool) => tool.name === 'groups_create'));
  const seen = await asViewer.callTool({ name: 'groups_get', arguments: { uid: 'mcp-http-team' } });
  t.is((seen.structuredContent as { uid: string }).uid, team.uid, 'a viewer reads');
  const denied = await asViewer.callTool({ name: 'groups_create', arguments: { parent: team.uid, name: 'not-allowed' } });
  t.true(denied.isError);
  const error = JSON.parse((denied.content as { text: string }[])[0]!.text).error as { code: string; message: string };
  t.is(error.code, 'PERMISSION_DENIED');
  t.is((await srv.ok('GET', '/iam/v2/groups?name=not-allowed')).groups.length, 0);

  const asOwner = (await connect(t, srv, srv.ownerToken)).client;
  const made = await asOwner.callTool({ name: 'groups_create', arguments: { parent: 'mcp-http-team', name: 'mcp-http-child' } });
  t.falsy(made.isError, JSON.stringify(made.content));
  const child = made.structuredContent as { uid: string };
  t.teardown(() => srv.call('DELETE', `/iam/v2/groups/${child.uid}`));
  t.is((await srv.ok('GET', `/iam/v2/groups/${child.uid}`)).name, 'mcp-http-child');
  const entry = srv.journal.since().find((e) => e.method === 'POST' && e.path === '/iam/v2/groups' && e.status === 200);
  t.is(entry?.identity, srv.ownerIdentityUid, "the tool's call went through the API's one path, as its caller");
});

test.serial('an /mcp tool call runs as its REST-equivalent call: journaled as PATCH of the item with its updateMask and body, and a fault rule on that call applies', async (t) => {
  const srv = writable;
  const team = await srv.ok('POST', '/iam/v2/groups', { parent: srv.organizationUid, group: { name: 'mcp-journal-team' } });
  t.teardown(async () => {
    await srv.call('DELETE', '/_pctl/faults');
    await srv.call('DELETE', `/iam/v2/groups/${team.uid}`);
  });
  const { client } = await connect(t, srv, srv.ownerToken);
  const updated = await client.callTool({ name: 'groups_update', arguments: { uid: 'mcp-journal-team', description: 'set by a tool' } });
  t.falsy(updated.isError, JSON.stringify(updated.content));
  t.is((updated.structuredContent as { description: string }).description, 'set by a tool');
  const entry = srv.journal.since().findLast((e) => e.method === 'PATCH');
  t.like(entry, { path: `/iam/v2/groups/${team.uid}?updateMask=description`, status: 200, identity: srv.ownerIdentityUid, matched: true });
  t.deepEqual(JSON.parse(entry?.requestBody ?? 'null'), { description: 'set by a tool' });
  t.is(JSON.parse(entry?.responseBody ?? 'null').description, 'set by a tool');

  const rule = await srv.ok('POST', '/_pctl/faults', { method: 'PATCH', path: `/iam/v2/groups/${team.uid}`, effect: 'error', code: 14 });
  const faulted = await client.callTool({ name: 'groups_update', arguments: { uid: team.uid, description: 'never set' } });
  t.true(faulted.isError);
  t.is(JSON.parse((faulted.content as { text: string }[])[0]!.text).error.code, 'UNAVAILABLE');
  t.is((await srv.ok('GET', `/iam/v2/groups/${team.uid}`)).description, 'set by a tool', 'the faulted call wrote nothing');
  t.deepEqual(srv.journal.since().findLast((e) => e.method === 'PATCH')?.fault, { id: rule.id, effect: 'error' });
});

test('/mcp sessions: bound to the identity that opened them, ended by DELETE', async (t) => {
  const srv = readOnly;
  const other = await srv.person('mcp-session-other', 'viewer', srv.organizationUid);
  t.teardown(() => srv.call('DELETE', `/iam/v2/identities/${other.id.uid}`));
  const { client, transport } = await connect(t, srv, srv.ownerToken);
  await client.listTools();
  const session = transport.sessionId!;
  t.truthy(session);
  const list = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };
  const headers = { ...streamable, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' };

  const hijack = await request(srv.url, 'POST', '/mcp', list, { ...headers, authorization: `Bearer ${other.token}` });
  t.is(hijack.status, 404, "another identity's session is not found");

  await transport.terminateSession();
  const after = await request(srv.url, 'POST', '/mcp', list, { ...headers, authorization: `Bearer ${srv.ownerToken}` });
  t.is(after.status, 404, 'an ended session is gone');

  const noSession = await request(srv.url, 'POST', '/mcp', list, { ...streamable, authorization: `Bearer ${srv.ownerToken}` });
  t.is(noSession.status, 400, 'a request outside a session must first initialize one');
});

test('a 401 names the protected resource metadata (RFC 9728); it points at serve\'s issuer, which the SDK discovers', async (t) => {
  const srv = readOnly;
  const refused = await fetch(`${srv.url}/mcp`, { method: 'POST', headers: { ...streamable, 'content-type': 'application/json' }, body: JSON.stringify(initialize) });
  t.is(refused.status, 401);
  const { resourceMetadataUrl } = extractWWWAuthenticateParams(refused);
  t.is(resourceMetadataUrl?.href, `${srv.url}/.well-known/oauth-protected-resource/mcp`);
  t.regex(refused.headers.get('www-authenticate')!, /^Bearer realm="pctl", resource_metadata="/);

  const found = await discoverOAuthServerInfo(new URL(`${srv.url}/mcp`), { resourceMetadataUrl: resourceMetadataUrl! });
  t.like(found.resourceMetadata, { resource: `${srv.url}/mcp`, authorization_servers: [srv.url], bearer_methods_supported: ['header'] });
  t.is(found.authorizationServerUrl, srv.url);
  t.like(found.authorizationServerMetadata, { issuer: srv.url, authorization_endpoint: `${srv.url}/oauth/authorize`, token_endpoint: `${srv.url}/oauth/token` });
  // Without the header's hint the SDK tries the /mcp-suffixed path first; the root form names the API itself.
  t.is((await discoverOAuthServerInfo(new URL(`${srv.url}/mcp`))).resourceMetadata?.resource, `${srv.url}/mcp`);
  const root = await request(srv.url, 'GET', '/.well-known/oauth-protected-resource');
  t.like(root.json, { resource: srv.url, authorization_servers: [srv.url] });
});

/** What an MCP client keeps of its sign-in, in memory: serve's public client `pctl`, a loopback redirect. */
class MemoryOAuthProvider implements OAuthClientProvider {
  authorizationUrl?: URL;
  private saved?: OAuthTokens;
  private verifier = '';
  readonly redirectUrl = 'http://127.0.0.1:9/callback';
  readonly clientMetadata = { redirect_uris: [this.redirectUrl], client_name: 'pctl-test', token_endpoint_auth_method: 'none' };
  clientInformation(): OAuthClientInformationMixed {
    return { client_id: 'pctl' };
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

test("an SDK client without a token signs in through serve's issuer (PKCE, resource indicator) and then uses /mcp", async (t) => {
  const srv = readOnly;
  const agent = await srv.ok('POST', '/iam/v2/identities', { parent: srv.organizationUid, identity: { name: 'mcp-agent', claimMatch: { issuer: srv.url, subject: 'mcp-agent' } } });
  t.teardown(() => srv.call('DELETE', `/iam/v2/identities/${agent.uid}`));
  await srv.ok('POST', '/iam/v2/roleBindings', { parent: srv.organizationUid, roleBinding: { identityUid: agent.uid, roleUid: await srv.roleUid('viewer') } });
  const provider = new MemoryOAuthProvider();
  const mcpUrl = new URL(`${srv.url}/mcp`);
  const first = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
  await t.throwsAsync(new Client({ name: 'pctl-test', version: '1.0.0' }).connect(first), { instanceOf: UnauthorizedError });
  const authorize = provider.authorizationUrl!;
  t.is(`${authorize.origin}${authorize.pathname}`, `${srv.url}/oauth/authorize`);
  t.like(Object.fromEntries(authorize.searchParams), { client_id: 'pctl', code_challenge_method: 'S256', resource: `${srv.url}/mcp` });

  // The person at the browser: the owner token once, then the identity the agent acts as.
  const b = browser();
  const csrf = csrfOf((await b.go(authorize.href)).html);
  await b.go(`${srv.url}/oauth/authorize`, { csrf, step: 'owner', owner_token: srv.ownerToken });
  const done = await b.go(`${srv.url}/oauth/authorize`, { csrf, step: 'pick', identity: agent.uid, action: 'allow' });
  const code = new URL(done.headers.get('location')!).searchParams.get('code')!;
  await first.finishAuth(code);
  t.is(provider.tokens()?.token_type, 'Bearer');

  const client = new Client({ name: 'pctl-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
  t.teardown(() => client.close());
  const listed = await client.callTool({ name: 'identities_get', arguments: { uid: agent.uid } });
  t.is((listed.structuredContent as { name: string }).name, 'mcp-agent');
  const entry = srv.journal.since().findLast((e) => e.method === 'GET' && e.path === `/iam/v2/identities/${agent.uid}`);
  t.is(entry?.identity, agent.uid, 'the tool call ran as the identity signed in as');
});

test('an /mcp session unused for 30 minutes ends: 404, and the client initializes a new one', async (t) => {
  let now = Date.parse('2026-11-22T12:00:00Z');
  const srv = await startTestServer({ clock: () => now });
  t.teardown(() => srv.dispose());
  const { client, transport } = await connect(t, srv, srv.ownerToken);
  await client.listTools();
  const session = transport.sessionId!;

  now += 29 * 60_000;
  await client.listTools(); // used: the 30 minutes start again
  now += 30 * 60_000;
  await client.listTools();
  now += 30 * 60_000 + 1;
  const gone = await t.throwsAsync(client.listTools());
  t.is((gone as Error & { code?: number }).code, 404);
  const raw = await request(srv.url, 'POST', '/mcp', { jsonrpc: '2.0', id: 9, method: 'tools/list', params: {} }, {
    ...streamable, authorization: `Bearer ${srv.ownerToken}`, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18',
  });
  t.is(raw.status, 404);

  const again = await connect(t, srv, srv.ownerToken);
  t.not(again.transport.sessionId, session);
  t.true((await again.client.listTools()).tools.length > 0);
});

test('pctl serve --mcp-session-idle takes a duration; anything else is a usage error (exit 2)', async (t) => {
  const pctl = cli({ PCTL_CONFIG_DIR: tempDir('pctl-cfg-') });
  const bad = await pctl(['serve', '--mcp-session-idle', 'soon', '--port', '0', '--data', tempDir()]);
  t.is(bad.code, 2);
  t.regex(bad.stderr, /mcp-session-idle: must be a duration such as 30m/);
});

// serve's own /mcp, met by the official SDK's Client over Streamable HTTP: bearer tokens as
// the API takes them, what a caller may do decided by its role bindings (the REST handling
// it is dispatched to), sessions bound to the identity that opened them, writes only with
// --mcp-writes.
import test, { type ExecutionContext } from 'ava';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { request, startTestServer, type TestServer } from './helpers/serve.js';

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

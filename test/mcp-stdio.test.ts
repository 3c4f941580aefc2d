// `pctl mcp` as an agent's MCP client meets it: the real built CLI spawned over stdio by the
// official SDK's Client, against a real serve. The client checks every structuredContent
// against the tool's outputSchema, so a result outside its schema fails the call.
import test, { type ExecutionContext } from 'ava';
import { rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startTestServer, tempDir, type TestServer } from './helpers/serve.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'bin/pctl.js');

let srv: TestServer;
test.before(async () => {
  srv = await startTestServer();
});
test.after.always(() => srv?.dispose());

/** An SDK client connected to a spawned `pctl mcp …` that talks to srv as `token` (the owner's by default). */
async function connect(t: ExecutionContext, args: string[] = [], token = srv.ownerToken, apiUrl: Record<string, string> = { PCTL_API_URL: srv.url }): Promise<Client> {
  const config = tempDir('pctl-mcp-cfg-');
  const { PCTL_API_URL: _inherited, ...env } = process.env as Record<string, string>;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, 'mcp', ...args],
    env: { ...env, PCTL_CONFIG_DIR: config, PCTL_TOKEN: token, ...apiUrl },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'pctl-test', version: '1.0.0' });
  await client.connect(transport);
  t.teardown(async () => {
    await client.close();
    rmSync(config, { recursive: true, force: true });
  });
  return client;
}

/** The JSON of a tool error's text, which carries the API's code, message and violations. */
function toolError(result: Awaited<ReturnType<Client['callTool']>>): { code: string; message: string; fieldViolations?: { field: string; description: string }[] } {
  if (result.isError !== true) throw new Error(`expected a tool error, got ${JSON.stringify(result)}`);
  return JSON.parse((result.content as { text: string }[])[0]!.text).error;
}

test('pctl mcp: read tools only, each annotated; groups_list returns the groups a page at a time; get takes a name', async (t) => {
  const org = srv.organizationUid;
  const platform = await srv.ok('POST', '/iam/v2/groups', { parent: org, group: { name: 'mcp-platform', description: 'the platform team' } });
  t.teardown(() => srv.call('DELETE', `/iam/v2/groups/${platform.uid}`));
  const client = await connect(t);

  t.is(client.getServerVersion()?.name, 'pctl');
  const { tools } = await client.listTools();
  const names = tools.map((tool) => tool.name);
  t.true(names.includes('groups_list') && names.includes('identities_get') && names.includes('account_associations_check'));
  t.deepEqual(names.filter((n) => /_(create|update|delete|redeem)$/.test(n)), [], 'no write tool without --allow-writes');
  for (const tool of tools) {
    t.true(tool.annotations?.readOnlyHint, `${tool.name} is read-only`);
    // The published method's hint (ListArtifacts leaves open_world unset: MCP's default, true).
    t.is(tool.annotations?.openWorldHint, tool.name === 'libraries_list', tool.name);
    t.is(tool.outputSchema?.type, 'object');
    t.true((tool.description ?? '').length > 40, `${tool.name} has a description for a model`);
  }
  t.truthy((tools.find((tool) => tool.name === 'groups_list')!.inputSchema.properties as Record<string, unknown>).descendants_of);

  const listed = await client.callTool({ name: 'groups_list', arguments: { children_of: org, fields: ['name', 'description'], order_by: 'name' } });
  t.falsy(listed.isError);
  const groups = (listed.structuredContent as { groups: Record<string, unknown>[] }).groups;
  t.deepEqual(groups.find((g) => g.name === 'mcp-platform'), { name: 'mcp-platform', description: 'the platform team' }, 'only the fields asked for');
  t.deepEqual(JSON.parse((listed.content as { text: string }[])[0]!.text), listed.structuredContent, 'the text is the same JSON');

  const page = await client.callTool({ name: 'groups_list', arguments: { page_size: 1 } });
  const first = page.structuredContent as { groups: unknown[]; nextPageToken?: string; totalCount: string };
  t.is(first.groups.length, 1);
  t.true(Number(first.totalCount) >= 2);
  t.truthy(first.nextPageToken, 'a capped page says how to get the next');
  const next = await client.callTool({ name: 'groups_list', arguments: { page_size: 1, page_token: first.nextPageToken } });
  t.notDeepEqual((next.structuredContent as { groups: unknown[] }).groups, first.groups);

  const got = await client.callTool({ name: 'groups_get', arguments: { uid: 'mcp-platform' } });
  t.is((got.structuredContent as { uid: string }).uid, platform.uid, 'a name resolves as in the CLI');
  t.false('resourceLimits' in (got.structuredContent as object), 'empty fields are left out');
});

test('pctl mcp: API errors and bad arguments are tool errors with the message and violations, never protocol errors', async (t) => {
  const client = await connect(t);
  const missing = toolError(await client.callTool({ name: 'groups_get', arguments: { uid: 'no-such-group' } }));
  t.is(missing.code, 'NOT_FOUND');
  t.regex(missing.message, /Group not found: .*no-such-group.*see the groups_list tool/);

  const bad = toolError(await client.callTool({ name: 'groups_list', arguments: { page_size: 0 } }));
  t.is(bad.code, 'INVALID_ARGUMENT');
  t.is(bad.fieldViolations?.[0]?.field, 'page_size');

  const serverSide = toolError(await client.callTool({ name: 'groups_list', arguments: { order_by: 'shoe_size' } }));
  t.is(serverSide.code, 'INVALID_ARGUMENT', "the API's own check");
  t.true(serverSide.fieldViolations?.some((v) => v.field === 'order_by'));

  // A write tool that is not offered is the protocol's unknown tool, not a call that silently happens.
  await t.throwsAsync(client.callTool({ name: 'groups_create', arguments: { parent: srv.organizationUid, name: 'nope' } }), { message: /Unknown tool: groups_create/ });
  t.is((await srv.ok('GET', '/iam/v2/groups?name=nope')).groups.length, 0);
});

test('pctl mcp --allow-writes: create, grant a role by names, update with a mask, delete; each visible over REST', async (t) => {
  const client = await connect(t, ['--allow-writes']);
  const { tools } = await client.listTools();
  const create = tools.find((tool) => tool.name === 'groups_create')!;
  t.like(create.annotations, { readOnlyHint: false, destructiveHint: false, idempotentHint: false });
  t.like(tools.find((tool) => tool.name === 'groups_delete')!.annotations, { readOnlyHint: false, destructiveHint: true, idempotentHint: true });
  // The published UpdateGroup's hints (serve's own said destructive).
  t.like(tools.find((tool) => tool.name === 'groups_update')!.annotations, { destructiveHint: false, idempotentHint: true });
  t.true(create.description?.startsWith('Create a new group (organization or folder) under an optional parent group. '), "the published CreateGroup's text first");
  const names = tools.map((tool) => tool.name);
  t.true(names.includes('tags_update') && !names.includes('tags_create') && !names.includes('tags_delete'), 'CreateTag and DeleteTag are hidden from MCP by their publisher');

  const made = await client.callTool({ name: 'groups_create', arguments: { parent: srv.organizationUid, name: 'mcp-writes', description: 'made by an agent' } });
  t.falsy(made.isError, JSON.stringify(made.content));
  const group = made.structuredContent as { uid: string; name: string };
  t.teardown(() => srv.call('DELETE', `/iam/v2/groups/${group.uid}`));
  t.is((await srv.ok('GET', `/iam/v2/groups/${group.uid}`)).description, 'made by an agent');

  const issuer = (await srv.ok('GET', `/iam/v2/identities/${srv.ownerIdentityUid}`)).claimMatch.issuer as string;
  const person = await client.callTool({ name: 'identities_create', arguments: { parent: 'mcp-writes', name: 'mcp-ana', claimMatch: { issuer, subject: 'mcp-ana' } } });
  t.falsy(person.isError, JSON.stringify(person.content));
  const ana = person.structuredContent as { uid: string };
  t.teardown(() => srv.call('DELETE', `/iam/v2/identities/${ana.uid}`));

  const granted = await client.callTool({ name: 'role_bindings_create', arguments: { parent: 'mcp-writes', identityUid: 'mcp-ana', roleUid: 'viewer', fields: ['uid', 'role.name', 'identity.uid'] } });
  t.falsy(granted.isError, JSON.stringify(granted.content));
  const binding = granted.structuredContent as { uid: string; role: { name: string }; identity: { uid: string } };
  t.deepEqual({ role: binding.role, identity: binding.identity }, { role: { name: 'viewer' }, identity: { uid: ana.uid } });
  const bindings = (await srv.ok('GET', `/iam/v2/roleBindings?uidp.children_of=${encodeURIComponent(group.uid)}`)).roleBindings as { uid: string }[];
  t.deepEqual(bindings.map((b) => b.uid), [binding.uid]);

  const renamed = await client.callTool({ name: 'identities_update', arguments: { uid: ana.uid, claimMatch: { subject: 'ana@acme' } } });
  t.falsy(renamed.isError, JSON.stringify(renamed.content));
  t.deepEqual((await srv.ok('GET', `/iam/v2/identities/${ana.uid}`)).claimMatch, { issuer, subject: 'ana@acme' }, 'only the masked field changed');

  const nothing = toolError(await client.callTool({ name: 'groups_update', arguments: { uid: group.uid } }));
  t.is(nothing.code, 'INVALID_ARGUMENT');

  const unbound = await client.callTool({ name: 'role_bindings_delete', arguments: { uid: binding.uid } });
  t.deepEqual(unbound.structuredContent, { uid: binding.uid, deleted: true });
  t.is((await srv.call('GET', `/iam/v2/roleBindings/${binding.uid}`)).status, 404);
});

test('pctl mcp: a group argument may be a name path from the organization; a missing level is a NOT_FOUND tool error naming it', async (t) => {
  const orgName = (await srv.ok('GET', `/iam/v2/groups/${srv.organizationUid}`)).name as string;
  const team = await srv.ok('POST', '/iam/v2/groups', { parent: srv.organizationUid, group: { name: 'mcp-paths' } });
  t.teardown(() => srv.call('DELETE', `/iam/v2/groups/${team.uid}`));
  const client = await connect(t, ['--allow-writes']);

  const made = await client.callTool({ name: 'groups_create', arguments: { parent: `${orgName}/mcp-paths`, name: 'tools' } });
  t.falsy(made.isError, JSON.stringify(made.content));
  const tools = made.structuredContent as { uid: string };
  t.teardown(() => srv.call('DELETE', `/iam/v2/groups/${tools.uid}`));
  t.true(tools.uid.startsWith(`${team.uid}/`), 'created below the group the path names');

  const listed = await client.callTool({ name: 'groups_list', arguments: { children_of: `${orgName}/mcp-paths`, fields: ['uid'] } });
  t.deepEqual(listed.structuredContent, { groups: [{ uid: tools.uid }], totalCount: '1' });

  const missing = toolError(await client.callTool({ name: 'groups_get', arguments: { uid: `${orgName}/mcp-paths/nope` } }));
  t.is(missing.code, 'NOT_FOUND');
  t.is(missing.message, `uid: Group not found: "${orgName}/mcp-paths/nope": no group in ${orgName}/mcp-paths is named "nope" (see the groups_list tool)`);
});

test('pctl mcp takes the global --api-url flag, as every other command does', async (t) => {
  const client = await connect(t, ['--api-url', srv.url], srv.ownerToken, {});
  const listed = await client.callTool({ name: 'groups_get', arguments: { uid: srv.organizationUid } });
  t.is((listed.structuredContent as { uid: string }).uid, srv.organizationUid);
});

test('MCP lists sort as the CLI does: by name unless order_by says otherwise', async (t) => {
  const parent = await srv.ok('POST', '/iam/v2/groups', { parent: srv.organizationUid, group: { name: 'mcp-order' } });
  const names = ['zeta', 'alpha', 'mu', 'beta', 'omega', 'kappa'];
  for (const name of names) await srv.ok('POST', '/iam/v2/groups', { parent: parent.uid, group: { name } });
  const client = await connect(t);
  const listed = await client.callTool({ name: 'groups_list', arguments: { children_of: parent.uid, fields: ['name'] } });
  t.falsy(listed.isError);
  const mcpNames = (listed.structuredContent as { groups: { name: string }[] }).groups.map((g) => g.name);
  t.deepEqual(mcpNames, [...names].sort());
  const { cli } = await import('./helpers/cli.js');
  const pctl = cli({ PCTL_API_URL: srv.url, PCTL_TOKEN: srv.ownerToken, PCTL_CONFIG_DIR: tempDir('pctl-cfg-') });
  const r = await pctl(['groups', 'list', '--children-of', parent.uid, '--jq', '.[].name']);
  t.deepEqual(r.stdout.trim().split('\n'), mcpNames, 'the same order as pctl groups list');
  const byUid = await client.callTool({ name: 'groups_list', arguments: { children_of: parent.uid, fields: ['uid'], order_by: 'uid' } });
  const uids = (byUid.structuredContent as { groups: { uid: string }[] }).groups.map((g) => g.uid);
  t.deepEqual(uids, [...uids].sort(), 'order_by still chooses');
});

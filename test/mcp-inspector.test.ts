// The MCP Inspector's CLI mode (`mcp-inspector --cli … --method tools/list | tools/call`), a
// client no one here wrote, against `pctl mcp` (stdio) and serve's /mcp (Streamable HTTP).
// The inspector lives in test/tools (its own lock), not in pctl's devDependencies: it declares
// Node >= 22.19, so there it made `npm ci` warn on Node 20.
import test from 'ava';
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestServer, tempDir, type TestServer } from './helpers/serve.js';
import { testToolBin } from './helpers/test-tools.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'bin/pctl.js');

let inspector: string;
let srv: TestServer;
let config: string;
test.before(async (t) => {
  t.timeout(300_000, 'installing test/tools'); // the first run on a machine downloads ~160 packages
  inspector = testToolBin('mcp-inspector');
  srv = await startTestServer({ mcpWrites: true });
  config = tempDir('pctl-inspector-cfg-');
});
test.after.always(async () => {
  await srv?.dispose();
  if (config) rmSync(config, { recursive: true, force: true });
});

/** Runs the inspector's CLI mode: the JSON of its answer (on stdout, or its error's on stderr). */
function inspect(args: string[]): Promise<{ code: number | null; json: Record<string, unknown>; stderr: string }> {
  const child = spawn(process.execPath, [inspector, '--cli', ...args], { cwd: root });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
  child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  return new Promise((done, fail) => {
    child.on('error', fail);
    child.on('close', (code) => {
      try {
        done({ code, json: JSON.parse(stdout.trim() || stderr) as Record<string, unknown>, stderr });
      } catch {
        fail(new Error(`the inspector exited ${code} without JSON on stdout: ${stdout}${stderr}`));
      }
    });
  });
}

/** `pctl mcp` as the inspector starts it: the built CLI, the test serve's URL and the owner's token. */
const pctlMcp = (...flags: string[]) => [
  '-e', `PCTL_API_URL=${srv.url}`, '-e', `PCTL_TOKEN=${srv.ownerToken}`, '-e', `PCTL_CONFIG_DIR=${config}`,
  process.execPath, bin, 'mcp', ...flags,
];
const toolNames = (json: Record<string, unknown>) => (json.tools as { name: string }[]).map((tool) => tool.name);

test('the inspector lists the tools of pctl mcp; write tools only with --allow-writes', async (t) => {
  const [reads, writes] = await Promise.all([
    inspect([...pctlMcp(), '--method', 'tools/list']),
    inspect([...pctlMcp('--allow-writes'), '--method', 'tools/list']),
  ]);
  t.is(reads.code, 0, reads.stderr);
  t.true(toolNames(reads.json).includes('groups_list'));
  t.false(toolNames(reads.json).includes('groups_create'));
  t.is(writes.code, 0, writes.stderr);
  t.true(toolNames(writes.json).includes('groups_create'));
  t.true(toolNames(writes.json).includes('role_bindings_delete'));
});

test('the inspector calls groups_list and groups_create through pctl mcp', async (t) => {
  const listed = await inspect([...pctlMcp(), '--method', 'tools/call', '--tool-name', 'groups_list', '--tool-arg', 'fields=["uid","name"]']);
  t.is(listed.code, 0, listed.stderr);
  const groups = (listed.json.structuredContent as { groups: { uid: string; name: string }[] }).groups;
  t.true(groups.some((g) => g.uid === srv.organizationUid));

  const made = await inspect([...pctlMcp('--allow-writes'), '--method', 'tools/call', '--tool-name', 'groups_create', '--tool-arg', `parent=${srv.organizationUid}`, '--tool-arg', 'name=inspected']);
  t.is(made.code, 0, made.stderr);
  const uid = (made.json.structuredContent as { uid: string }).uid;
  t.teardown(() => srv.call('DELETE', `/iam/v2/groups/${uid}`));
  t.is((await srv.ok('GET', `/iam/v2/groups/${uid}`)).name, 'inspected', 'the change is visible over REST');

  const refused = await inspect([...pctlMcp(), '--method', 'tools/call', '--tool-name', 'groups_create', '--tool-arg', `parent=${srv.organizationUid}`, '--tool-arg', 'name=refused']);
  t.not(refused.code, 0, 'no write tool without --allow-writes');
  t.like(refused.json, { error: { code: 'tool_not_found' } });
  t.is((await srv.ok('GET', '/iam/v2/groups?name=refused')).groups.length, 0);
});

test("the inspector lists and calls the tools of serve's /mcp with a bearer token", async (t) => {
  const http = ['--transport', 'http', '--server-url', `${srv.url}/mcp`, '--header', `Authorization: Bearer ${srv.ownerToken}`];
  const listed = await inspect([...http, '--method', 'tools/list']);
  t.is(listed.code, 0, listed.stderr);
  t.true(toolNames(listed.json).includes('groups_create'), 'serve --mcp-writes offers the writes');
  const called = await inspect([...http, '--method', 'tools/call', '--tool-name', 'groups_get', '--tool-arg', `uid=${srv.organizationUid}`, '--tool-arg', 'fields=["uid"]']);
  t.is(called.code, 0, called.stderr);
  t.deepEqual(called.json.structuredContent, { uid: srv.organizationUid });
});

// openapi.json, checked by tools nobody here wrote: @apidevtools/swagger-parser validates it
// as OpenAPI 3.1, and ajv (JSON Schema 2020-12, what 3.1 schemas are) checks every answer of
// a serve against it — every operation of the document called, successes and errors, each
// answer's status, content type and body — failing on any violation.
import test from 'ava';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { getOption } from '@bufbuild/protobuf';
import { http as httpRule } from '../src/gen/google/api/annotations_pb.js';
import { demoSeed } from '../src/server/data/demo.js';
import { SIGN_IN_SERVICES } from '../src/server/surfaces/rpc/sign-in.js';
import { VENDOR_SERVICES } from '../src/server/surfaces/rpc/vendor-services.js';
import { cli } from './helpers/cli.js';
import { request, startTestServer, tempDir, type ApiResponse, type TestServer } from './helpers/serve.js';

const root = join(import.meta.dirname, '..');
const text = readFileSync(join(root, 'openapi.json'), 'utf8');
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the OpenAPI document as parsed JSON; tests walk and assert it
type Any = any;
const doc = JSON.parse(text);

test('openapi.json is a valid OpenAPI 3.1 document (swagger-parser)', async (t) => {
  const api = (await SwaggerParser.validate(JSON.parse(text))) as Any;
  t.is(api.openapi, '3.1.0');
  t.truthy(api.paths['/iam/v2/groups'].get, 'ListGroups is GET /iam/v2/groups');
  t.deepEqual(doc.components.securitySchemes.bearerAuth, { ...doc.components.securitySchemes.bearerAuth, type: 'http', scheme: 'bearer' });
  t.true(doc.paths['/iam/v2/groupInvites:redeem'].post['x-pctl-extension'], "serve's own methods are marked");
  t.true(doc.paths['/_pctl/faults'].get['x-pctl-extension']);
  t.falsy(doc.paths['/iam/v2/groups'].get['x-pctl-extension'], 'the platform API is not');
  t.is(doc.paths['/iam/v2/groups'].get.parameters[0].$ref, '#/components/parameters/page_size', 'the shared list parameters are shared');
});

test('serve sends the same document at GET /openapi.json without a token, and `pctl serve openapi` prints it', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.dispose());
  const res = await request(srv.url, 'GET', '/openapi.json');
  t.is(res.status, 200);
  t.is(res.headers.get('content-type'), 'application/json');
  t.is(res.text, text);
  await t.notThrowsAsync(SwaggerParser.validate(res.json));
  const printed = await cli({ PCTL_CONFIG_DIR: tempDir('pctl-cfg-') })(['serve', 'openapi']);
  t.is(printed.code, 0, printed.stderr);
  t.is(printed.stdout, text);
});

/** `GET /iam/v2/groups/{}`: a rule or an OpenAPI path with its variables unnamed (OpenAPI names them once per path). */
const shape = (verb: string, template: string) => `${verb.toUpperCase()} ${template.replace(/\{[^}]+\}/g, '{}')}`;

test('every published REST rule of the services serve answers is an operation of openapi.json, with its method and path', (t) => {
  const documented = new Map<string, Any>();
  for (const [path, item] of Object.entries(doc.paths as Record<string, Any>)) for (const [verb, op] of Object.entries(item as Record<string, Any>)) documented.set(shape(verb, path), op);
  const missing: string[] = [];
  let rules = 0;
  for (const service of [...VENDOR_SERVICES.map((v) => v.service), ...SIGN_IN_SERVICES]) {
    for (const method of service.methods) {
      const rule = getOption(method, httpRule);
      for (const binding of [rule, ...rule.additionalBindings]) {
        if (!binding.pattern.case || binding.pattern.case === 'custom') continue;
        rules++;
        const op = documented.get(shape(binding.pattern.case, binding.pattern.value.replace(/\{([^}=]+)(=[^}]*)?\}/g, '{$1}')));
        if (!op?.['x-published-methods']?.includes(`${service.typeName}.${method.name}`)) missing.push(`${service.typeName}.${method.name}: ${binding.pattern.case} ${binding.pattern.value}`);
      }
    }
  }
  t.true(rules > 150, `${rules} rules`);
  t.deepEqual(missing, []);
  // Where the spec shows a shape, the spec's operation stays: its body is the spec's.
  t.deepEqual(doc.paths['/iam/v2/groups'].post.operationId, 'IamService_CreateGroup');
  t.true(doc.paths['/iam/v2/groups/{uid}'].get['x-published-methods'].includes('chainguard.platform.iam.v2beta1.GroupsService.GetGroup') === false, 'v2beta1 has paths of its own');
  t.deepEqual(doc.paths['/iam/v2/groups/{uid}'].get['x-published-methods'], ['chainguard.platform.iam.v2.GroupsService.GetGroup']);
  // The published create (the bare resource at the parent's path) takes the spec's resource.
  t.is(doc.paths['/iam/v2/groups/{uid}'].post.requestBody.content['application/json'].schema.$ref, '#/components/schemas/platform.iam.v2.Group');
  t.is(doc.paths['/iam/v2beta1/groups/{uid}'].post.requestBody.content['application/json'].schema.$ref, '#/components/schemas/chainguard.platform.iam.v2beta1.Group');
  t.truthy(doc.paths['/sts/exchange'].get && doc.paths['/sts/exchange'].post && doc.paths['/sts/exchange_refresh_token'].post, 'the token exchange');
  t.true(doc.paths['/sts/revoke_refresh_token'].post['x-pctl-extension']);
});

// ---- the contract: every answer against the document ----

interface Operation { id: string; method: string; template: string; matcher: RegExp; op: Any }

/** The document's operations, matched most literal first (`/artifacts/count` before `/artifacts/{id}/versions`). */
const operations: Operation[] = Object.entries(doc.paths as Record<string, Any>).flatMap(([template, item]) =>
  Object.entries(item as Record<string, Any>).map(([method, op]) => ({
    id: op.operationId as string, method: method.toUpperCase(), template, op,
    // A path variable may hold `/` (uids name their ancestors).
    matcher: new RegExp(`^${template.split(/\{[^}]+\}/).map((s) => s.replace(/[.*+?^$()|[\]\\]/g, '\\$&')).join('(.+)')}$`),
  }))).sort((a, b) => b.template.replace(/\{[^}]+\}/g, '').length - a.template.replace(/\{[^}]+\}/g, '').length);

/**
 * The document's schemas as a response reader sees them: a writeOnly field is never in an
 * answer (so never required there, and an answer that holds one is wrong).
 */
function forResponses(node: Any): Any {
  if (Array.isArray(node)) return node.map(forResponses);
  if (!node || typeof node !== 'object') return node;
  const out: Any = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, forResponses(v)]));
  if (out.properties) {
    const writeOnly = Object.keys(out.properties).filter((k) => (node.properties[k])?.writeOnly);
    for (const k of writeOnly) out.properties[k] = false;
    if (out.required) out.required = out.required.filter((k: string) => !writeOnly.includes(k));
  }
  return out;
}

const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats.default(ajv);
for (const [name, pattern] of [['int32', /^-?\d+$/], ['uint32', /^\d+$/], ['int64', /^-?\d+$/], ['uint64', /^\d+$/]] as const) ajv.addFormat(name, { type: 'string', validate: pattern });
for (const name of ['int32', 'uint32']) ajv.addFormat(name, { type: 'number', validate: (n: number) => Number.isInteger(n) });
ajv.addSchema({ $id: 'openapi.json', components: { schemas: forResponses(doc.components.schemas) } });
const validators = new Map<string, ValidateFunction>();
function validatorOf(schema: Any): ValidateFunction {
  const key = JSON.stringify(schema);
  let v = validators.get(key);
  if (!v) validators.set(key, (v = ajv.compile(JSON.parse(JSON.stringify(forResponses(schema)).replaceAll('"#/components/', '"openapi.json#/components/')))));
  return v;
}

class Contract {
  readonly violations: string[] = [];
  readonly covered = new Set<string>();
  constructor(private readonly srv: TestServer) {}

  /** Sends a request (as the owner unless `token` says otherwise; '' for none) and checks the answer against the document. */
  async call(method: string, path: string, body?: unknown, { token = this.srv.ownerToken, form }: { token?: string; form?: Record<string, string> } = {}): Promise<ApiResponse> {
    const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    let res: ApiResponse;
    if (form) {
      const r = await fetch(this.srv.url + path, { method, headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form), redirect: 'manual' });
      const text = await r.text();
      res = { status: r.status, headers: r.headers, text, json: /json/.test(r.headers.get('content-type') ?? '') && text ? JSON.parse(text) : undefined };
    } else {
      res = await request(this.srv.url, method, path, body, headers);
    }
    this.check(method, path, res);
    return res;
  }

  /** A setup or scenario step that must succeed: its JSON. */
  async ok(method: string, path: string, body?: unknown, opts?: { token?: string }): Promise<Any> {
    const res = await this.call(method, path, body, opts);
    if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
    return res.json;
  }

  /** Checks an answer a test received itself (a stream it had to read its own way). */
  checkRaw(method: string, path: string, status: number, headers: Headers, text: string): void {
    let json: unknown;
    try {
      json = /json/.test(headers.get('content-type') ?? '') && text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    this.check(method, path, { status, headers, text, json });
  }

  private check(method: string, fullPath: string, res: ApiResponse): void {
    const path = fullPath.split('?')[0]!;
    const what = `${method} ${fullPath} → ${res.status}`;
    const operation = operations.find((o) => o.method === method && o.matcher.test(path));
    if (!operation) {
      // A path the document has no operation for may answer only the API's errors.
      if (res.status < 400) this.violations.push(`${what}: not in the document`);
      this.checkBody(what, doc.components.responses.Error, res);
      return;
    }
    this.covered.add(operation.id);
    let response = operation.op.responses[String(res.status)] ?? operation.op.responses[`${String(res.status)[0]}XX`] ?? operation.op.responses.default;
    if (response?.$ref) response = doc.components.responses[response.$ref.split('/').pop()];
    if (!response) {
      this.violations.push(`${what}: the document has no answer ${res.status} for ${operation.id}`);
      return;
    }
    this.checkBody(`${what} (${operation.id})`, response, res);
  }

  private checkBody(what: string, response: Any, res: ApiResponse): void {
    const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim();
    if (!response.content) {
      if (res.text !== '') this.violations.push(`${what}: a body where the document has none: ${res.text.slice(0, 200)}`);
      return;
    }
    const media = response.content[type];
    if (!media) {
      this.violations.push(`${what}: content-type ${type || '(none)'}, the document says ${Object.keys(response.content).join(' or ')}`);
      return;
    }
    if (type !== 'application/json') return;
    const validate = validatorOf(media.schema);
    if (!validate(res.json)) this.violations.push(`${what}: ${ajv.errorsText(validate.errors)} in ${res.text.slice(0, 300)}`);
  }
}

test('every answer of serve, for every operation of the document, is what the document says (ajv)', async (t) => {
  const srv = await startTestServer({ seed: demoSeed() });
  t.teardown(() => srv.dispose());
  const c = new Contract(srv);
  const org = srv.organizationUid;
  const g = encodeURIComponent;

  // The document itself, OIDC, the console's files: no token.
  await c.call('GET', '/openapi.json', undefined, { token: '' });
  await c.call('GET', '/.well-known/openid-configuration', undefined, { token: '' });
  await c.call('GET', '/.well-known/jwks.json', undefined, { token: '' });
  for (const path of ['/', '/console/console.js', '/console/console.css', '/console/icon.svg']) await c.call('GET', path, undefined, { token: '' });

  // IAM, resource by resource: create, get, update, list, and errors on the way.
  const group = await c.ok('POST', '/iam/v2/groups', { parent: org, group: { name: 'contract', description: 'checked against openapi.json' } });
  await c.ok('GET', `/iam/v2/groups/${group.uid}`);
  await c.ok('PATCH', `/iam/v2/groups/${g(group.uid)}?update_mask=description`, { description: 'changed' });
  await c.ok('GET', `/iam/v2/groups?page_size=2&order_by=name&uidp.descendants_of=${g(org)}`);
  await c.call('GET', `/iam/v2/groups/${org}/0000000000000000`); // 404
  await c.call('POST', '/iam/v2/groups', { parent: org, group: { name: 'not a valid name!' } }); // 400, BadRequest
  await c.call('GET', '/iam/v2/groups', undefined, { token: '' }); // 401
  await c.call('GET', '/iam/v2/groups', undefined, { token: 'not-a-jwt' }); // 401
  await c.call('PUT', '/iam/v2/groups'); // 405
  await c.call('GET', '/iam/v2/nothing'); // 404, no such route

  const issuer = (await c.ok('GET', `/iam/v2/identities/${g(srv.ownerIdentityUid)}`)).claimMatch.issuer;
  const identity = await c.ok('POST', '/iam/v2/identities', { parent: org, identity: { name: 'contract-bot', claimMatch: { issuer, subject: 'contract-bot' } } });
  await c.ok('PATCH', `/iam/v2/identities/${g(identity.uid)}`, { description: 'robot' });
  await c.ok('GET', '/iam/v2/identities?name=contract-bot');

  const role = await c.ok('POST', '/iam/v2/roles', { parent: org, role: { name: 'contract-reader', capabilities: ['groups.list'] } });
  await c.ok('GET', `/iam/v2/roles/${g(role.uid)}`);
  await c.ok('PATCH', `/iam/v2/roles/${g(role.uid)}?update_mask=description`, { description: 'reads groups' });
  const roles = await c.ok('GET', '/iam/v2/roles?page_size=50');
  const viewer = roles.roles.find((r: Any) => r.name === 'viewer').uid;

  const binding = await c.ok('POST', '/iam/v2/roleBindings', { parent: group.uid, roleBinding: { identityUid: identity.uid, roleUid: role.uid } });
  await c.ok('GET', `/iam/v2/roleBindings/${g(binding.uid)}`);
  await c.ok('GET', `/iam/v2/roleBindings?uidp.children_of=${g(group.uid)}`);

  const idp = await c.ok('POST', '/iam/v2/identityProviders', {
    parent: org, identityProvider: { name: 'okta', defaultRole: viewer, oidc: { issuer: 'https://acme.okta.example', clientId: 'app', clientSecret: 's3cret', additionalScopes: ['email'] } },
  });
  await c.ok('GET', `/iam/v2/identityProviders/${g(idp.uid)}`);
  await c.ok('PATCH', `/iam/v2/identityProviders/${g(idp.uid)}`, { description: 'sso' });
  await c.ok('GET', '/iam/v2/identityProviders');

  const invite = await c.ok('POST', '/iam/v2/groupInvites', { parent: group.uid, groupInvite: { roleUid: viewer, ttl: '3600s' } });
  await c.ok('GET', `/iam/v2/groupInvites/${g(invite.uid)}`);
  await c.ok('GET', `/iam/v2/groupInvites?key_id=${invite.keyId}`);
  const elsewhere = await c.ok('POST', '/iam/v2/groups', { parent: org, group: { name: 'elsewhere' } });
  const newcomer = await srv.person('newcomer', 'viewer', elsewhere.uid);
  const redeemed = await c.ok('POST', '/iam/v2/groupInvites:redeem', { code: invite.code }, { token: newcomer.token });
  await c.call('POST', '/iam/v2/groups', { parent: org, group: { name: 'nope' } }, { token: newcomer.token }); // 403

  const association = await c.ok('POST', '/iam/v2/accountAssociations', { parent: group.uid, accountAssociation: { name: 'aws', amazon: { account: '123456789012' } } });
  await c.ok('GET', `/iam/v2/accountAssociations/${g(association.uid)}`);
  await c.ok('PATCH', `/iam/v2/accountAssociations/${g(association.uid)}?update_mask=description`, { description: 'prod' });
  await c.ok('GET', '/iam/v2/accountAssociations');
  await c.ok('POST', `/iam/v2/accountAssociations/${g(association.uid)}:check`, { providerType: 'AMAZON' });

  // Registry, vulnerabilities, libraries and advisory data from the demo seed.
  const repos = await c.ok('GET', `/registry/v2/repos?uidp.descendants_of=${g(org)}&page_size=5`);
  const repo = repos.repos[0];
  await c.ok('GET', `/registry/v2/repos/${g(repo.uid)}`);
  await c.ok('PATCH', `/registry/v2/repos/${g(repo.uid)}?update_mask=description`, { description: 'contract' });
  const tags = await c.ok('GET', `/registry/v2/tags?uidp.children_of=${g(repo.uid)}`);
  await c.ok('GET', `/registry/v2/tags/${g(tags.tags[0].uid)}`);
  const advisories = await c.ok('GET', '/vulnerabilities/v2/advisories?page_size=3');
  await c.ok('GET', `/vulnerabilities/v2/advisories/${g(advisories.advisories[0].uid)}`);
  const artifacts = await c.ok('GET', '/libraries/v2/artifacts?ecosystems=JAVA&page_size=4');
  await c.ok('GET', `/libraries/v2/artifacts/${g(artifacts.artifacts[0].uid)}/versions`);
  await c.ok('GET', '/libraries/v2/artifacts/count?ecosystems=JAVA&ecosystems=PYTHON');
  await c.ok('GET', '/advisory/v2/documents');
  await c.ok('GET', '/advisory/v2/metadata?page_size=2');

  // Events: a subscription to a local receiver that answers nothing useful (the delivery stays pending or fails).
  const subscription = await c.ok('POST', '/events/v2/subscriptions', { parent: group.uid, subscription: { sink: 'http://127.0.0.1:9/contract' } });
  await c.ok('GET', `/events/v2/subscriptions/${g(subscription.uid)}`);
  await c.ok('GET', `/events/v2/subscriptions?uidp.descendants_of=${g(org)}`);
  await c.call('POST', '/events/v2/subscriptions', { parent: group.uid, subscription: { sink: 'http://example.com/hook' } }); // 400: http off loopback
  await c.ok('PATCH', `/iam/v2/groups/${g(group.uid)}?update_mask=description`, { description: 'an event for the subscription' });
  await c.ok('GET', '/_pctl/events?after=0&limit=3');
  const deliveries = await c.ok('GET', `/_pctl/deliveries?subscription=${g(subscription.uid)}`);
  if (deliveries.deliveries[0]) await c.ok('POST', `/_pctl/deliveries/${deliveries.deliveries[0].id}:redeliver`);
  await c.call('POST', '/_pctl/deliveries/999999:redeliver'); // 404
  await c.ok('DELETE', `/events/v2/subscriptions/${g(subscription.uid)}`);

  // The published rules the spec has no shape for (v2beta1, lookups, batches …), driven by
  // the document: its path templates, filled in, and bodies its request schemas accept.
  const pathOf = (id: string, ...values: string[]) => {
    const o = operations.find((x) => x.id === id);
    if (!o) throw new Error(`no operation ${id}`);
    return o.template.replace(/\{[^}]+\}/g, () => values.shift()!.split('/').map(g).join('/'));
  };
  const bodyOf = (id: string, body: unknown) => {
    const schema = operations.find((x) => x.id === id)!.op.requestBody.content['application/json'].schema;
    const validate = validatorOf(schema);
    if (!validate(body)) throw new Error(`${id}: the document refuses the body: ${ajv.errorsText(validate.errors)}`);
    return body;
  };
  const beta = await c.ok('POST', pathOf('GroupsService_CreateGroup_v2beta1', org), bodyOf('GroupsService_CreateGroup_v2beta1', { name: 'beta-group', description: 'made over v2beta1 REST' }));
  t.like(await c.ok('GET', pathOf('GroupsService_GetGroup_v2beta1', beta.uid)), { uid: beta.uid, name: 'beta-group', status: 'ORG_STATUS_READY' });
  const listed = await c.ok('GET', `${pathOf('GroupsService_ListGroups_v2beta1')}?uidp.children_of=${g(org)}&page_size=200`);
  t.true(listed.groups.some((x: Any) => x.uid === beta.uid));
  t.like(await c.ok('PATCH', `${pathOf('GroupsService_UpdateGroup_v2beta1', beta.uid)}?update_mask=description`, bodyOf('GroupsService_UpdateGroup_v2beta1', { description: 'changed over v2beta1' })), { description: 'changed over v2beta1' });
  const batch = await c.ok('POST', pathOf('RoleBindingsService_BatchCreateRoleBindings'), bodyOf('RoleBindingsService_BatchCreateRoleBindings', {
    parent: beta.uid, requests: [{ parent: beta.uid, roleBinding: { identityUid: identity.uid, roleUid: viewer } }],
  }));
  t.is(batch.roleBindings.length, 1);
  const rebound = await c.ok('PATCH', pathOf('RoleBindingsService_UpdateRoleBinding', batch.roleBindings[0].uid) + '?update_mask=role_uid', bodyOf('RoleBindingsService_UpdateRoleBinding', { roleUid: role.uid }));
  t.is(rebound.roleUid, role.uid);
  t.is((await c.ok('GET', `/iam/v2/roleBindings/${g(batch.roleBindings[0].uid)}`)).role.uid, role.uid, 'the spec route sees the change');
  await c.ok('DELETE', pathOf('RoleBindingsService_DeleteRoleBinding_v2beta1', batch.roleBindings[0].uid));
  await c.ok('DELETE', pathOf('GroupsService_DeleteGroup_v2beta1', beta.uid));
  await c.call('GET', pathOf('GroupsService_GetGroup_v2beta1', beta.uid)); // 404
  // The rest of them once each, with placeholder values: an answer (mostly an error: 400, 404,
  // 501 for what serve cannot emulate) that is what the document says.
  for (const o of operations) {
    if (c.covered.has(o.id) || !o.op['x-published-methods']) continue;
    const path = o.template.replace(/\{([^}]+)\}/g, (_, name: string) => (name === 'parent' ? org : '0000000000000000'));
    await c.call(o.method, path, o.op.requestBody ? {} : undefined);
  }

  // serve's control API.
  const fault = await c.ok('POST', '/_pctl/faults', { path: '/nowhere', effect: 'error', code: 14 });
  await c.ok('GET', '/_pctl/faults');
  await c.call('POST', '/_pctl/faults', { effect: 'explode' }); // 400
  await c.ok('DELETE', `/_pctl/faults/${fault.id}`);
  await c.ok('DELETE', '/_pctl/faults');
  await c.ok('GET', '/_pctl/requests?limit=5');
  await c.call('GET', '/_pctl/requests', undefined, { token: newcomer.token }); // 403
  await c.ok('POST', '/_pctl/snapshots', { name: 'contract' });
  await c.ok('GET', '/_pctl/snapshots');
  await c.ok('POST', '/_pctl/snapshots/contract:restore');
  await c.ok('DELETE', '/_pctl/snapshots/contract');
  await c.ok('POST', '/_pctl/reset');
  await c.ok('GET', '/_pctl/v1-callers');

  // The deprecated v1 calls (docs/v1.md) answer as the document says too.
  await c.ok('GET', '/iam/v1/groups');
  await c.ok('GET', '/iam/v1/roles');
  await c.call('GET', `/iam/v1/groups/${org}/0000000000000000`);

  // OAuth: what a browser or the CLI sends, short of a whole sign-in (test/auth-*.test.ts).
  await c.ok('GET', '/oauth/userinfo');
  await c.call('GET', '/oauth/authorize', undefined, { token: '' });
  await c.call('POST', '/oauth/authorize', undefined, { token: '', form: {} });
  await c.call('POST', '/oauth/token', undefined, { token: '', form: { grant_type: 'authorization_code', code: 'nope' } });
  await c.call('POST', '/oauth/device_authorization', undefined, { token: '', form: { client_id: 'pctl' } });
  await c.call('GET', '/oauth/device', undefined, { token: '' });
  await c.call('POST', '/sts/revoke_refresh_token', undefined, { token: 'not-a-refresh-token' });
  await c.call('POST', '/oauth/device', undefined, { token: '', form: {} });

  // serve's MCP endpoint: a session opened, its stream asked for without one, ended.
  const mcpHeaders = { authorization: `Bearer ${srv.ownerToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const init = await fetch(`${srv.url}/mcp`, { method: 'POST', headers: mcpHeaders, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'contract', version: '1' } } }) });
  const session = init.headers.get('mcp-session-id') ?? '';
  c.checkRaw('POST', '/mcp', init.status, init.headers, await init.text());
  await c.call('GET', '/mcp'); // no session: a JSON-RPC error
  const ended = await fetch(`${srv.url}/mcp`, { method: 'DELETE', headers: { ...mcpHeaders, 'mcp-session-id': session } });
  c.checkRaw('DELETE', '/mcp', ended.status, ended.headers, await ended.text());

  // Deletes last (the reset above brought back the seed: these were made again).
  const again = await c.ok('POST', '/iam/v2/groups', { parent: org, group: { name: 'to-delete' } });
  const bot = await c.ok('POST', '/iam/v2/identities', { parent: org, identity: { name: 'to-delete', claimMatch: { issuer, subject: 'to-delete' } } });
  const r = await c.ok('POST', '/iam/v2/roles', { parent: org, role: { name: 'to-delete', capabilities: ['groups.list'] } });
  const b = await c.ok('POST', '/iam/v2/roleBindings', { parent: again.uid, roleBinding: { identityUid: bot.uid, roleUid: r.uid } });
  const viewerAgain = (await c.ok('GET', '/iam/v2/roles?name=viewer')).roles[0].uid;
  const i = await c.ok('POST', '/iam/v2/groupInvites', { parent: again.uid, groupInvite: { roleUid: viewerAgain, ttl: '3600s' } });
  const p = await c.ok('POST', '/iam/v2/identityProviders', { parent: org, identityProvider: { name: 'gone', defaultRole: viewerAgain, oidc: { issuer: 'https://gone.example', clientId: 'app' } } });
  const a = await c.ok('POST', '/iam/v2/accountAssociations', { parent: again.uid, accountAssociation: { name: 'aws', amazon: { account: '123456789012' } } });
  for (const path of [`/iam/v2/accountAssociations/${g(a.uid)}`, `/iam/v2/identityProviders/${g(p.uid)}`, `/iam/v2/groupInvites/${g(i.uid)}`,
    `/iam/v2/roleBindings/${g(b.uid)}`, `/iam/v2/roles/${g(r.uid)}`, `/iam/v2/identities/${g(bot.uid)}`, `/iam/v2/groups/${g(again.uid)}`]) {
    await c.ok('DELETE', path);
  }
  t.truthy(redeemed.uid);

  t.deepEqual(c.violations, [], 'every answer is what openapi.json says');
  // The deprecated v1 calls (docs/v1.md) are checked when called; test/server-v1.test.ts covers them.
  t.deepEqual(operations.filter((o) => !o.op.deprecated && !c.covered.has(o.id)).map((o) => o.id).sort(), [], 'every current operation of the document was called');
});

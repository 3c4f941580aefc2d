// A tool call's API calls (src/mcp/tools.ts speaks (method, path, query, body)) run as the
// operations they name: the resource by its registry path, the verb by the method (a custom
// verb by its name), one table. Each runs through the pipeline as an RPC does (faults,
// authentication, limits, the journal, named there by the same REST-equivalent method and
// path), its input taken from the tool's values and its output rendered as the resource's
// wire form: no REST text made or parsed, no REST route run.
import { ApiError, Code, codeForHttpStatus, invalidField } from '../../../api/errors.js';
import { accountAssociations, artifacts, groupInvites, resources, type Resource, type ResourceName } from '../../../api/registry/index.js';
import * as S from '../../../api/schemas.js';
import type { ApiCaller, CallerAuth } from '../../../mcp/server.js';
import type { Principal } from '../../auth/principal.js';
import { roleBindingToWire } from '../../domain/kinds/role-binding.js';
import type { Domain } from '../../domain/index.js';
import type { Call, Dispatch } from '../../pipeline/dispatch.js';
import type { Response } from '../../pipeline/handler.js';
import { parseBody } from '../../pipeline/input.js';
import type { Operations, ResourceOperations } from '../../pipeline/operations.js';
import type { Store } from '../../store/store.js';
import { resolveChanges, updateMaskParam } from '../changes.js';
import { ARTIFACT_LIST, listOptionsOf, parseListQuery, type ListQueryOptions } from '../list-query.js';
import { checkedBody } from '../rest/http.js';
import { createdToWire, wireFormOf } from '../wire.js';

type ApiRequest = Parameters<ApiCaller>[0];

/** What an operation needs of a tool's call: its uid (item paths), query and body. */
interface ToolCall {
  uid: string;
  query: URLSearchParams;
  body: unknown;
}

type Run = (principal: Principal, c: ToolCall) => Promise<Response>;

/** The operations by method and collection path (`GET /iam/v2/groups`): on the collection, on an item, and the custom verbs (`POST /iam/v2/groupInvites:redeem`). */
interface OperationTable {
  collection: Map<string, Run>;
  item: Map<string, Run>;
  custom: Map<string, Run>;
}

/** The list options of a resource's REST list: the declaration's filters, the catalogue's own. */
const LIST_OPTIONS: ReadonlyMap<Resource, ListQueryOptions> = new Map([[artifacts, ARTIFACT_LIST]]);

export function operationTable(operations: Operations, domain: Domain, store: Store): OperationTable {
  const table: OperationTable = { collection: new Map(), item: new Map(), custom: new Map() };
  for (const name of Object.keys(resources) as ResourceName[]) addResource(table, operations[name], store);
  // The custom verbs the tools call (invites_redeem, account_associations_check).
  table.custom.set(`POST ${groupInvites.path}:redeem`, async (p, c) => {
    const { code } = parseBody(S.RedeemInviteBody, checkedBody(c.body));
    return { body: roleBindingToWire(await domain.groupInvites.redeem(p, code), store) };
  });
  table.custom.set(`POST ${accountAssociations.path}:check`, async (p, c) => ({
    body: await domain.accountAssociations.check(p, c.uid, () => parseBody(S.CheckAccountAssociationBody, checkedBody(c.body)).providerType),
  }));
  return table;
}

function addResource(table: OperationTable, ops: ResourceOperations, store: Store): void {
  const d = ops.resource;
  const toWire = wireFormOf(d.kind).toWire;
  const { list, get, create, update, delete: remove } = ops;
  if (list) {
    const opts = LIST_OPTIONS.get(d) ?? listOptionsOf(d);
    table.collection.set(`GET ${d.path}`, async (p, c) => {
      const page = await list.run(p, { query: () => parseListQuery(c.query, opts) });
      return { body: { [d.plural]: page.items.map((r) => toWire(r, store)), nextPageToken: page.nextPageToken, totalCount: String(page.totalCount), skipped: page.skipped } };
    });
  }
  if (create) table.collection.set(`POST ${d.path}`, async (p, c) => ({ body: createdToWire(d.kind, await create.run(p, create.parse(checkedBody(c.body))), store) }));
  if (get) table.item.set(`GET ${d.path}`, async (p, c) => ({ body: toWire(await get.run(p, { uid: c.uid }), store) }));
  if (update) {
    table.item.set(`PATCH ${d.path}`, async (p, c) => ({
      body: toWire(await update.run(p, { uid: c.uid, changes: () => resolveChanges(checkedBody(c.body), updateMaskParam(c.query), d) }), store),
    }));
  }
  if (remove) table.item.set(`DELETE ${d.path}`, async (p, c) => (await remove.run(p, { uid: c.uid }), {}));
}

/** The operation a tool's call names, with its uid (percent-encoded per segment: itemPath). */
function operationOf(table: OperationTable, method: string, path: string): { run: Run; uid: string } {
  const custom = /^(.*):([a-zA-Z]+)$/.exec(path);
  const m = /^(\/[^/]+\/v2\/[^/]+)(?:\/(.+))?$/.exec(custom ? custom[1]! : path);
  const key = m && `${method} ${m[1]!}`;
  const run = !key ? undefined : custom ? table.custom.get(`${key}:${custom[2]!}`) : (m[2] === undefined ? table.collection : table.item).get(key);
  // Only a tool's own mistake gets here: answered as REST answers a path it has no route for.
  if (!m || !run) return { run: () => Promise.reject(new ApiError(Code.NOT_FOUND, `No such API route: ${method} ${path}`, { reason: 'ROUTE_NOT_FOUND' })), uid: '' };
  if (m[2] === undefined) return { run, uid: '' };
  try {
    return { run, uid: decodeURIComponent(m[2]) };
  } catch {
    return { run: () => Promise.reject(invalidField('uid', 'is not a valid percent-encoded path element')), uid: '' };
  }
}

/** A tool call's API calls, through serve's pipeline as the caller that sent it. */
export function operationCaller(dispatch: Dispatch, table: OperationTable, auth: CallerAuth | undefined): ApiCaller {
  return async (req) => {
    const answer = await dispatch(callOf(table, req, auth));
    // An injected reset or stall has no answer to give back: the tool says so.
    if (answer.fault) throw new ApiError(Code.UNAVAILABLE, `The API call was ${answer.fault === 'reset' ? 'cut' : 'never answered'} (an injected fault)`, { reason: 'INJECTED_FAULT' });
    const status = answer.status ?? 200;
    // Every answer here is a value (the operations' renderings, the pipeline's errors): nothing to parse.
    const json: unknown = answer.body;
    if (status >= 400) throw ApiError.fromBody(json, status) ?? new ApiError(codeForHttpStatus(status), `${req.method} ${req.path}: HTTP ${status}`);
    return json;
  };
}

/** The pipeline's call for one of a tool's API calls: named by its REST equivalent, answered by its operation. */
function callOf(table: OperationTable, { method, path, query, body }: ApiRequest, auth: CallerAuth | undefined): Call {
  const named = {
    method,
    path,
    query: new URLSearchParams(query ?? []),
    headers: auth ? { authorization: `Bearer ${auth.token}` } : {},
    address: typeof auth?.extra?.address === 'string' ? auth.extra.address : '',
  };
  const op = operationOf(table, method, path);
  const toolCall: ToolCall = { uid: op.uid, query: named.query, body };
  return {
    ...named,
    json: () => Promise.resolve(body),
    form: () => Promise.resolve(new URLSearchParams()),
    operation: (principal) => op.run(principal, toolCall),
    ...(body === undefined ? {} : { journalRequest: () => JSON.stringify(body) }),
  };
}

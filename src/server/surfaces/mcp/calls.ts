// A tool call's API calls (src/mcp/tools.ts speaks (method, path, query, body)) run as the
// operations they name: the resource by its registry path, the verb by the method, one table.
// Each runs through the pipeline as an RPC does (faults, authentication, limits, the journal,
// named there by the same REST-equivalent method and path), its input taken from the tool's
// values and its output rendered as the resource's wire form: no REST text made or parsed.
// A call no standard operation answers (the custom verbs `:redeem`, `:check`) still takes the
// REST route by its path.
import { ApiError, Code, codeForHttpStatus } from '../../../api/errors.js';
import { artifacts, resources, type Resource, type ResourceName } from '../../../api/registry/index.js';
import type { ApiCaller, CallerAuth } from '../../../mcp/server.js';
import type { Principal } from '../../auth/principal.js';
import type { Call, Dispatch } from '../../pipeline/dispatch.js';
import type { Response } from '../../pipeline/handler.js';
import type { Operations, ResourceOperations } from '../../pipeline/operations.js';
import type { Store } from '../../store/store.js';
import { resolveChanges, updateMaskParam } from '../changes.js';
import { ARTIFACT_LIST, listOptionsOf, parseListQuery, type ListQueryOptions } from '../list-query.js';
import { checkedBody, textCall } from '../rest/http.js';
import { createdToWire, wireFormOf } from '../wire.js';

type ApiRequest = Parameters<ApiCaller>[0];

/** What an operation needs of a tool's call: its uid (item paths), query and body. */
interface ToolCall {
  uid: string;
  query: URLSearchParams;
  body: unknown;
}

type Run = (principal: Principal, c: ToolCall) => Promise<Response>;

/** The operations of each resource by collection path and method, collection and item apart. */
interface OperationTable {
  collection: Map<string, Run>;
  item: Map<string, Run>;
}

/** The list options of a resource's REST list: the declaration's filters, the catalogue's own. */
const LIST_OPTIONS: ReadonlyMap<Resource, ListQueryOptions> = new Map([[artifacts, ARTIFACT_LIST]]);

export function operationTable(operations: Operations, store: Store): OperationTable {
  const table: OperationTable = { collection: new Map(), item: new Map() };
  for (const name of Object.keys(resources) as ResourceName[]) addResource(table, operations[name], store);
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

/** The operation a tool's call names, with its uid; undefined for a path no standard operation has. */
function operationOf(table: OperationTable, method: string, path: string): { run: Run; uid: string } | undefined {
  const run = table.collection.get(`${method} ${path}`);
  if (run) return { run, uid: '' };
  // Item paths are <collection>/<uid>, the uid percent-encoded per segment (itemPath); a custom verb has a colon.
  const m = path.includes(':') ? null : /^(\/[^/]+\/v2\/[^/]+)\/(.+)$/.exec(path);
  const item = m && table.item.get(`${method} ${m[1]!}`);
  if (!item) return undefined;
  try {
    return { run: item, uid: decodeURIComponent(m[2]!) };
  } catch {
    return undefined; // REST's route answers a uid that is not percent-encoded right, as it always has
  }
}

/** A tool call's API calls, through serve's pipeline as the caller that sent it. */
export function operationCaller(dispatch: Dispatch, table: OperationTable, auth: CallerAuth | undefined): ApiCaller {
  return async (req) => {
    const answer = await dispatch(callOf(table, req, auth));
    // An injected reset or stall has no answer to give back: the tool says so.
    if (answer.fault) throw new ApiError(Code.UNAVAILABLE, `The API call was ${answer.fault === 'reset' ? 'cut' : 'never answered'} (an injected fault)`, { reason: 'INJECTED_FAULT' });
    const status = answer.status ?? 200;
    const json: unknown = answer.bodyJson ? JSON.parse(answer.bodyJson.text) : answer.body;
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
  // A custom verb: its REST route, from the body's JSON text.
  if (!op) return textCall(named, body === undefined ? '' : JSON.stringify(body));
  const toolCall: ToolCall = { uid: op.uid, query: named.query, body };
  return {
    ...named,
    json: () => Promise.resolve(body),
    form: () => Promise.resolve(new URLSearchParams()),
    operation: (principal) => op.run(principal, toolCall),
    ...(body === undefined ? {} : { journalRequest: () => JSON.stringify(body) }),
  };
}

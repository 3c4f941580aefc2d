// serve's control API under /_pctl/ (a serve-only extension: the platform API has no such
// paths): fault rules, the request journal, snapshots and a live reset, for the data dir's
// owner only.
//
//   GET    /_pctl/faults            the rules, with their hits
//   POST   /_pctl/faults            add a rule (a FaultRule as JSON)
//   DELETE /_pctl/faults            remove every rule
//   DELETE /_pctl/faults/{id}       remove one
//   GET    /_pctl/requests          the journal: ?after=SEQ (newer entries only), ?limit=N,
//                                   ?wait=SECONDS (up to 60: hold the answer until one arrives)
//   GET    /_pctl/v1-callers        who still calls v1, over the journal (server/v1/report.ts)
//   GET    /_pctl/list-stats        {rowsRead}: the index entries and rows lists have visited, on a
//                                   serve started with countListRows (tests and benchmarks)
//   GET    /_pctl/snapshots         {snapshots: [{name, sizeBytes, createTime}]}, by name
//   POST   /_pctl/snapshots         {name, overwrite?}: save the data as DATA_DIR/snapshots/NAME.db
//                                   (online backup, consistent while serving); 6 ALREADY_EXISTS
//                                   when NAME exists and overwrite is not true
//   POST   /_pctl/snapshots/{name}:restore
//                                   replace the data with the snapshot's, in one transaction
//                                   that serializes with every write (AIP-136 custom method)
//   DELETE /_pctl/snapshots/{name}  remove one
//   POST   /_pctl/reset             back to the data the data dir was bootstrapped with (its
//                                   seed, or the plain bootstrap); 9 FAILED_PRECONDITION for a
//                                   data dir created before serve kept that state
// A name that is not a safe file name (src/api/snapshots.ts) is 3 INVALID_ARGUMENT on `name`;
// a snapshot that does not exist is 5 NOT_FOUND. Meta rows that describe the running server
// (its issuer URL, its page-token key) stay as they are across a restore, so the owner's token
// keeps working whenever the restored data holds the same owner identity.
import { ApiError, Code, invalidField } from '../../../api/errors.js';
import { FaultSpecError, type FaultRule } from '../../../api/faults.js';
import type { Request, Response } from '../../pipeline/handler.js';
import type { Store } from '../../store/store.js';
import type { FaultInjector } from '../../pipeline/faults.js';
import type { Journal } from '../../pipeline/journal.js';
import type { Snapshots } from '../../data/snapshots.js';

/** A control endpoint; `params` holds the decoded `{…}` segments of its path. */
export type ControlHandler = (req: Request, params: Record<string, string>) => Promise<Response> | Response;

export interface ControlOptions {
  store: Store;
  faults: FaultInjector;
  journal: Journal;
  /** The data dir's snapshots; without them the snapshot and reset endpoints are 404. */
  snapshots?: Snapshots;
  /** Further endpoints ("METHOD /_pctl/…", `{param}` for a path segment) → handler, owner-checked like these. */
  more?: Record<string, ControlHandler>;
}

const MAX_WAIT_S = 60;

export function controlHandler(opts: ControlOptions): (req: Request) => Promise<Response> {
  const routes = compile({
    'GET /_pctl/faults': () => ({ body: { faults: opts.faults.list() } }),
    'POST /_pctl/faults': async (req) => {
      const body = await req.json();
      if (!body || typeof body !== 'object' || Array.isArray(body)) throw invalidField('body', 'must be a fault rule (a JSON object)');
      try {
        return { body: opts.faults.add(body as FaultRule) };
      } catch (err) {
        if (!(err instanceof FaultSpecError)) throw err;
        const [field, ...rest] = err.message.split(': ');
        throw rest.length ? invalidField(field!, rest.join(': ')) : invalidField('body', err.message);
      }
    },
    'DELETE /_pctl/faults': () => ({ body: { removed: opts.faults.clear() } }),
    'DELETE /_pctl/faults/{id}': (_req, { id }) => {
      if (!opts.faults.remove(id!)) throw new ApiError(Code.NOT_FOUND, `Fault not found: ${id}`, { reason: 'NOT_FOUND' });
      return { body: {} };
    },
    'GET /_pctl/requests': (req) => requests(opts.journal, req),
    ...(opts.snapshots ? snapshotRoutes(opts.snapshots) : {}),
    ...opts.more,
  });
  return async (req) => {
    const owner = opts.store.getMeta('owner_identity');
    if (req.principal.identityUid !== owner) {
      throw new ApiError(Code.PERMISSION_DENIED, "Permission denied: serve's control endpoints (/_pctl/) are for the data dir's owner", {
        reason: 'PERMISSION_DENIED',
      });
    }
    for (const route of routes) {
      if (route.method !== req.method) continue;
      const m = route.path.exec(req.path);
      if (!m) continue;
      const params: Record<string, string> = {};
      for (const [name, value] of Object.entries(m.groups ?? {})) {
        try {
          params[name] = decodeURIComponent(value);
        } catch {
          throw invalidField(name, 'is not a valid percent-encoded path element');
        }
      }
      return route.handler(req, params);
    }
    throw new ApiError(Code.NOT_FOUND, `No such API route: ${req.method} ${req.path}`, { reason: 'ROUTE_NOT_FOUND' });
  };
}

function snapshotRoutes(snapshots: Snapshots): Record<string, ControlHandler> {
  return {
    'GET /_pctl/snapshots': () => ({ body: { snapshots: snapshots.list() } }),
    'POST /_pctl/snapshots': async (req) => {
      const body = await req.json();
      if (!body || typeof body !== 'object' || Array.isArray(body)) throw invalidField('body', 'must be {"name": NAME} (a JSON object)');
      const { name, overwrite } = body as { name?: unknown; overwrite?: unknown };
      if (overwrite !== undefined && typeof overwrite !== 'boolean') throw invalidField('overwrite', 'must be true or false');
      return { body: await snapshots.save(name, overwrite === true) };
    },
    'POST /_pctl/snapshots/{name}:restore': async (_req, { name }) => ({ body: await snapshots.restore(name) }),
    'DELETE /_pctl/snapshots/{name}': async (_req, { name }) => {
      await snapshots.remove(name);
      return { body: {} };
    },
    'POST /_pctl/reset': async () => {
      await snapshots.reset();
      return { body: {} };
    },
  };
}

/** "METHOD /path/{param}:verb" → a matcher; a `{param}` is one path segment (no `/`, no `:`). */
function compile(table: Record<string, ControlHandler>): { method: string; path: RegExp; handler: ControlHandler }[] {
  return Object.entries(table).map(([key, handler]) => {
    const [method, path] = key.split(' ') as [string, string];
    const pattern = path
      .split(/(\{[a-z]+\})/)
      .map((part) => (/^\{[a-z]+\}$/.test(part) ? `(?<${part.slice(1, -1)}>[^/:]+)` : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
      .join('');
    return { method, path: new RegExp(`^${pattern}$`), handler };
  });
}

function wholeParam(req: Request, name: string, max: number): number | undefined {
  const raw = req.query.get(name);
  if (raw === null) return undefined;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n > max) throw invalidField(name, `must be a whole number from 0 to ${max}`);
  return n;
}

/** The journal since `after`; with `wait`, held until there is something newer (or the wait ends). */
async function requests(journal: Journal, req: Request): Promise<Response> {
  const after = wholeParam(req, 'after', Number.MAX_SAFE_INTEGER) ?? 0;
  const limit = wholeParam(req, 'limit', journal.size) ?? journal.size;
  const wait = wholeParam(req, 'wait', MAX_WAIT_S) ?? 0;
  if (wait > 0 && journal.last <= after) {
    await new Promise<void>((resolve) => {
      // unref: a held request does not keep a closed serve's process alive for the rest of its wait.
      const timer = setTimeout(done, wait * 1000).unref();
      const unsubscribe = journal.subscribe(done);
      function done() {
        clearTimeout(timer);
        unsubscribe();
        resolve();
      }
    });
  }
  return { body: { requests: journal.since(after, limit), last: journal.last, size: journal.size } };
}

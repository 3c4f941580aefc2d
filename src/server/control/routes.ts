// serve's control API under /_pctl/ (a serve-only extension: the platform API has no such
// paths): fault rules and the request journal, for the data dir's owner only.
//
//   GET    /_pctl/faults            the rules, with their hits
//   POST   /_pctl/faults            add a rule (a FaultRule as JSON)
//   DELETE /_pctl/faults            remove every rule
//   DELETE /_pctl/faults/{id}       remove one
//   GET    /_pctl/requests          the journal: ?after=SEQ (newer entries only), ?limit=N,
//                                   ?wait=SECONDS (up to 60: hold the answer until one arrives)
import { ApiError, Code, invalidField } from '../../api/errors.js';
import { FaultSpecError, type FaultRule } from '../../api/faults.js';
import type { Request, Response } from '../http.js';
import type { Store } from '../store/store.js';
import type { FaultInjector } from './faults.js';
import type { Journal } from './journal.js';

export interface ControlOptions {
  store: Store;
  faults: FaultInjector;
  journal: Journal;
  /** Further endpoints ("METHOD /_pctl/…" → handler), owner-checked like these. */
  more?: Record<string, (req: Request) => Promise<Response> | Response>;
}

const MAX_WAIT_S = 60;

export function controlHandler(opts: ControlOptions): (req: Request) => Promise<Response> {
  const exact: Record<string, (req: Request) => Promise<Response> | Response> = {
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
    'GET /_pctl/requests': (req) => requests(opts.journal, req),
    ...opts.more,
  };
  return async (req) => {
    const owner = opts.store.getMeta('owner_identity');
    if (req.principal.identityUid !== owner) {
      throw new ApiError(Code.PERMISSION_DENIED, "Permission denied: serve's control endpoints (/_pctl/) are for the data dir's owner", {
        reason: 'PERMISSION_DENIED',
      });
    }
    const handler = exact[`${req.method} ${req.path}`];
    if (handler) return handler(req);
    const one = /^\/_pctl\/faults\/([^/]+)$/.exec(req.path);
    if (one && req.method === 'DELETE') {
      const id = decodeURIComponent(one[1]!);
      if (!opts.faults.remove(id)) throw new ApiError(Code.NOT_FOUND, `Fault not found: ${id}`, { reason: 'NOT_FOUND' });
      return { body: {} };
    }
    throw new ApiError(Code.NOT_FOUND, `No such API route: ${req.method} ${req.path}`, { reason: 'ROUTE_NOT_FOUND' });
  };
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
      const timer = setTimeout(done, wait * 1000);
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

// The seam between the v1 surface and serve's operations: what v1 asks of them, in v2's wire
// shapes (the mapping in mapping.ts is v1 ↔ v2 wire). Each call goes through v2's REST handler
// of the same resource in process, with the caller's principal: that handler parses v2's wire
// body, calls the one domain operation (src/server/domain/) and renders v2's wire form, which
// is exactly the conversion v1 needs; so authorization, validation, uniqueness and cascades
// are the domain's, and no rule of theirs is restated here.
import type { Resource } from '../../api/registry/index.js';
import type { Principal } from '../auth/principal.js';
import type { Request, ResourceRoutes, Response } from '../handler.js';

export type Wire = Record<string, unknown>;

interface Page {
  items: Wire[];
  nextPageToken: string;
  totalCount: string;
}

export interface Operations {
  /** One page of a v2 list, with v2's list parameters. */
  page(d: Resource, principal: Principal, params: Record<string, string | string[]>): Promise<Page>;
  /** Every item of a v2 list (v1 lists are not paged), page after page. */
  all(d: Resource, principal: Principal, params: Record<string, string | string[]>): Promise<Wire[]>;
  get(d: Resource, principal: Principal, uid: string): Promise<Wire>;
  /** `body` is v2's create body: `{parent, <wrapper>: {…}}`. */
  create(d: Resource, principal: Principal, body: Wire): Promise<Wire>;
  /** A v2 partial update naming `mask`'s fields (v1's PUT replaces them all). */
  update(d: Resource, principal: Principal, uid: string, fields: Wire, mask: readonly string[]): Promise<Wire>;
  remove(d: Resource, principal: Principal, uid: string): Promise<void>;
  /** A custom method (`:check`). */
  action(d: Resource, principal: Principal, uid: string, verb: string, body: Wire): Promise<Wire>;
}

const PAGE = '200';

/** Operations by the v2 route handlers of each resource. */
export function routeOperations(routes: readonly ResourceRoutes[]): Operations {
  const byPath = new Map(routes.map((r) => [r.path, r]));
  const handlers = (d: Resource) => byPath.get(d.path)!;
  const call = async (handler: ResourceRoutes['get'], d: Resource, principal: Principal, uid: string, opts: { query?: URLSearchParams; body?: unknown } = {}): Promise<unknown> => {
    if (!handler) throw new Error(`v2 has no such handler for ${d.path}`);
    const req: Request = {
      method: 'POST', path: uid ? `${d.path}/${uid}` : d.path, query: opts.query ?? new URLSearchParams(), uid, principal, headers: {},
      json: () => Promise.resolve(opts.body),
      form: () => Promise.resolve(new URLSearchParams()),
    };
    return bodyOf(await handler(req));
  };
  const page: Operations['page'] = async (d, principal, params) => {
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) for (const one of [v].flat()) query.append(k, one);
    const body = (await call(handlers(d).list, d, principal, '', { query })) as Wire;
    return { items: body[d.plural] as Wire[], nextPageToken: typeof body.nextPageToken === 'string' ? body.nextPageToken : '', totalCount: typeof body.totalCount === 'string' ? body.totalCount : '0' };
  };
  return {
    page,
    async all(d, principal, params) {
      const items: Wire[] = [];
      let token = '';
      do {
        const p = await page(d, principal, { ...params, page_size: PAGE, ...(token ? { page_token: token } : {}) });
        items.push(...p.items);
        token = p.nextPageToken;
      } while (token);
      return items;
    },
    get: async (d, principal, uid) => (await call(handlers(d).get, d, principal, uid)) as Wire,
    create: async (d, principal, body) => (await call(handlers(d).create, d, principal, '', { body })) as Wire,
    update: async (d, principal, uid, fields, mask) =>
      (await call(handlers(d).update, d, principal, uid, { body: fields, query: new URLSearchParams({ updateMask: mask.join(',') }) })) as Wire,
    remove: async (d, principal, uid) => void (await call(handlers(d).remove, d, principal, uid)),
    action: async (d, principal, uid, verb, body) => (await call(handlers(d).actions?.[verb], d, principal, uid, { body })) as Wire,
  };
}

function bodyOf(r: Response): unknown {
  return r.bodyJson ? JSON.parse(r.bodyJson.text) : r.body;
}

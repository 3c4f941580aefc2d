// The seam between the v1 surface and serve's operations: what v1 asks of them, in v2's wire
// shapes (the mapping in mapping.ts is v1 ↔ v2 wire). Each call runs the resource's operation
// (pipeline/operations.ts) with the caller's principal, its input read from v2's JSON as every
// surface of the spec's JSON reads it, its output the resource's v2 wire form; so
// authorization, validation, uniqueness and cascades are the domain's, and no rule of theirs
// is restated here.
import * as S from '../../../api/schemas.js';
import { ApiError, Code } from '../../../api/errors.js';
import { roleBindings, type Resource, type ResourceName } from '../../../api/registry/index.js';
import type { Principal } from '../../auth/principal.js';
import type { Domain } from '../../domain/index.js';
import { createdToWire, wireFormOf, WireJson } from '../wire.js';
import { parseBody } from '../../pipeline/input.js';
import type { Operations as ResourceOperationTable, ResourceOperations } from '../../pipeline/operations.js';
import type { Record_, Store } from '../../store/store.js';
import { resolveChanges } from '../changes.js';
import { listOptionsOf, parseListQuery } from '../list-query.js';

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
  /** Role bindings of one group, all or none (the published BatchCreateRoleBindings' operation); each `{identityUid, roleUid}`. */
  bindAll(principal: Principal, parent: string, bindings: readonly Wire[]): Promise<Wire[]>;
}

const PAGE = '200';

/** Operations by the resources' operations. */
export function resourceOperations(table: ResourceOperationTable, domain: Domain, store: Store): Operations {
  const ops = (d: Resource): ResourceOperations => table[d.plural as ResourceName];
  const wires = new Map<Resource, WireJson>();
  // A record's v2 JSON, as REST sends it (its cached text, parsed: v1's mapping reads plain JSON).
  const wire = (d: Resource, r: Record_): Wire => {
    let w = wires.get(d);
    if (!w) {
      const form = wireFormOf(d.kind);
      wires.set(d, (w = new WireJson(store, (rec: Record_) => form.toWire(rec, store), form.reads)));
    }
    return JSON.parse(w.one(r).text) as Wire;
  };
  const must = <V extends keyof Omit<ResourceOperations, 'resource'>>(d: Resource, verb: V): NonNullable<ResourceOperations[V]> => {
    const op = ops(d)[verb];
    if (!op) throw new Error(`v2 has no ${verb} of ${d.plural}`);
    return op;
  };
  const page: Operations['page'] = async (d, principal, params) => {
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) for (const one of [v].flat()) query.append(k, one);
    const p = await must(d, 'list').run(principal, { query: () => parseListQuery(query, listOptionsOf(d)) });
    return { items: p.items.map((r) => wire(d, r)), nextPageToken: p.nextPageToken, totalCount: String(p.totalCount) };
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
    get: async (d, principal, uid) => wire(d, await must(d, 'get').run(principal, { uid })),
    create: async (d, principal, body) => {
      const create = must(d, 'create');
      return createdToWire(d.kind, await create.run(principal, create.parse(body)), store) as Wire;
    },
    update: async (d, principal, uid, fields, mask) =>
      wireFormOf(d.kind).toWire(await must(d, 'update').run(principal, { uid, changes: () => resolveChanges(fields, mask.join(','), d) }), store) as Wire,
    remove: async (d, principal, uid) => void (await must(d, 'delete').run(principal, { uid })),
    action: async (d, principal, uid, verb, body) => {
      if (d.plural !== 'accountAssociations' || verb !== 'check') throw new ApiError(Code.UNIMPLEMENTED, `v2 has no ${d.plural}:${verb}`);
      return { ...(await domain.accountAssociations.check(principal, uid, async () => parseBody(S.CheckAccountAssociationBody, body).providerType)) };
    },
    bindAll: async (principal, parent, bindings) => {
      const made = await domain.roleBindings.batchCreate(principal, bindings.map((b) => ({ parent, identityUid: typeof b.identityUid === 'string' ? b.identityUid : '', roleUid: typeof b.roleUid === 'string' ? b.roleUid : '' })));
      return made.map((r) => wire(roleBindings, r));
    },
  };
}

// The vendor's published services whose every method is one domain operation (registry.ts,
// catalogue.ts, events.ts): its request read and its answer written as the proto3 JSON of the
// published messages, no REST call in between. v2 and v2beta1 are byte-identical but for the
// package, so one table of calls answers both. As vendor.ts's operations, each runs behind the
// dispatcher (bearer auth, rate limit, faults, journal), named there by its published HTTP
// rule (`POST /registry/v2/repos/ORG`).
import { fromJson, toJson, type DescMethod, type DescService, type JsonObject, type JsonValue } from '@bufbuild/protobuf';
import { ApiError, Code, invalidField } from '../../../api/errors.js';
import type { Principal } from '../../auth/principal.js';
import type { Domain } from '../../domain/index.js';
import type { ListPage } from '../../store/list.js';
import type { Record_, Store } from '../../store/store.js';
import { transcoderOf, type Transcoder } from './transcode.js';
import { operationTranscoder, type VendorOperation, type VendorService } from './vendor.js';

interface VendorContext {
  principal: Principal;
  domain: Domain;
  store: Store;
}

/** One method: its request as proto3 JSON (lowerCamelCase names, enums by name) in, its response's out. */
export type VendorCall = (c: VendorContext, request: JsonObject) => Promise<JsonValue>;

/** A published service in both versions, and its calls by method name (every method has one). */
export interface DomainService {
  services: readonly DescService[];
  calls: Readonly<Record<string, VendorCall>>;
}

/** The tables as vendor.ts serves them: each method an operation, named by its published HTTP rule. */
export function vendorServices(tables: readonly DomainService[]): VendorService[] {
  return tables.flatMap((table) => table.services.map((service) => {
    const transcoders = new Map<DescMethod, Transcoder>();
    const operations = new Map<DescMethod, VendorOperation>();
    for (const method of service.methods) {
      const call = table.calls[method.name];
      if (!call) throw new Error(`${service.typeName}/${method.name} has no call in its table`);
      const rule = transcoderOf(method);
      transcoders.set(method, operationTranscoder(method, rule.verb, (request) => rule.toRest(request).path));
      operations.set(method, async (ctx, principal, request) => {
        const answer = await call({ principal, domain: ctx.domain, store: ctx.store }, toJson(method.input, request) as JsonObject);
        // Fields serve's records carry that the published message has not (a tag's createTime) are left out.
        return fromJson(method.output, answer, { ignoreUnknownFields: true });
      });
    }
    return { service, transcoders, operations };
  }));
}

/** A method serve cannot emulate: UNIMPLEMENTED naming the closest call it has. */
export function unimplemented(what: string, closest: string): VendorCall {
  return () => Promise.reject(new ApiError(Code.UNIMPLEMENTED, `${what} has no source in serve; the closest call is ${closest}`, {
    reason: 'METHOD_NOT_EMULATED', metadata: { closest },
  }));
}

export const str = (v: JsonValue | undefined): string => (typeof v === 'string' ? v : '');
export const obj = (v: JsonValue | undefined): JsonObject => (v && typeof v === 'object' && !Array.isArray(v) ? v : {});
export const strings = (v: JsonValue | undefined): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** A field the published message marks REQUIRED. */
export function required(request: JsonObject, field: string, jsonName = field): string {
  const v = str(request[jsonName]);
  if (!v) throw invalidField(field, 'is required');
  return v;
}

/**
 * The list parameters of a published List request: its UIDPFilter (descendants_of and
 * children_of; ids are answered by gets, see listOf), the page fields, and `more`.
 */
export function listParams(request: JsonObject, more: Record<string, string | string[] | undefined> = {}): URLSearchParams {
  const params = new URLSearchParams();
  const uidp = obj(request.uidp);
  if (uidp.ancestorsOf || uidp.inRoot) {
    throw invalidField(uidp.ancestorsOf ? 'uidp.ancestors_of' : 'uidp.in_root', 'is not a filter serve answers: use uidp.descendants_of or uidp.children_of');
  }
  if (str(uidp.descendantsOf)) params.set('uidp.descendants_of', str(uidp.descendantsOf));
  if (str(uidp.childrenOf)) params.set('uidp.children_of', str(uidp.childrenOf));
  if (typeof request.pageSize === 'number' && request.pageSize) params.set('page_size', String(request.pageSize));
  if (str(request.pageToken)) params.set('page_token', str(request.pageToken));
  if (str(request.orderBy)) params.set('order_by', str(request.orderBy));
  if (typeof request.skip === 'number' && request.skip) params.set('skip', String(request.skip));
  for (const [k, v] of Object.entries(more)) for (const one of [v ?? []].flat()) params.append(k, one);
  return params;
}

/** A published List response: its plural field, the page's token and counts (total_count is an int64: a string in JSON). */
export function pageJson(plural: string, page: ListPage, item: (r: Record_) => JsonValue): JsonObject {
  return { [plural]: page.items.map(item), nextPageToken: page.nextPageToken, totalCount: String(page.totalCount), skipped: page.skipped };
}

/**
 * A List by `uidp.ids` (the records the caller may read among them, in the order given,
 * of `more.name` when given), else one page of `list`.
 */
export async function listOf(
  request: JsonObject, list: (params: URLSearchParams) => Promise<ListPage>, get: (uid: string) => Promise<Record_>, more: Record<string, string | string[] | undefined> = {},
): Promise<ListPage> {
  const ids = strings(obj(request.uidp).ids);
  if (!ids.length) return list(listParams(request, more));
  const items: Record_[] = [];
  const name = more.name;
  for (const uid of new Set(ids)) {
    try {
      const found = await get(uid);
      if (name === undefined || found.name === name) items.push(found);
    } catch (err) {
      if (!(err instanceof ApiError && (err.code === Code.NOT_FOUND || err.code === Code.PERMISSION_DENIED))) throw err;
    }
  }
  return { items, nextPageToken: '', totalCount: items.length, skipped: 0 };
}

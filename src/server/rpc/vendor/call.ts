// The vendor's published services (proto/chainguard/platform/<domain>/{v2,v2beta1}/) as serve
// answers them: each method one domain operation, its request read and its answer written as
// the proto3 JSON of the published messages. v2 and v2beta1 are byte-identical but for the
// package, so one table of calls answers both. The dispatcher still runs first (bearer auth,
// rate limit, faults, journal: rpc/index.ts hands it the call as `operation`).
import { fromJson, toBinary, toJson, type DescMessage, type DescService, type JsonObject, type JsonValue } from '@bufbuild/protobuf';
import { ApiError, Code, invalidField } from '../../../api/errors.js';
import type { Principal } from '../../auth/principal.js';
import type { Domain } from '../../domain/index.js';
import type { Response } from '../../handler.js';
import type { ListPage } from '../../store/list.js';
import type { Record_, Store } from '../../store/store.js';

interface VendorContext {
  principal: Principal;
  domain: Domain;
  store: Store;
}

/** One method: its request as proto3 JSON (lowerCamelCase names, enums by name) in, its response's out. */
export type VendorCall = (c: VendorContext, request: JsonObject) => Promise<JsonValue>;

/** A published service in both versions, and its calls by method name (every method has one). */
export interface VendorService {
  services: readonly DescService[];
  calls: Readonly<Record<string, VendorCall>>;
}

/** A method serve cannot emulate: UNIMPLEMENTED naming the closest call it has. */
export function unimplemented(what: string, closest: string): VendorCall {
  return () => Promise.reject(new ApiError(Code.UNIMPLEMENTED, `${what} has no source in serve; the closest call is ${closest}`, {
    reason: 'METHOD_NOT_EMULATED', metadata: { closest },
  }));
}

/** The response message of a call's answer: encoded once, shown in the journal as its JSON. */
export function vendorAnswer(output: DescMessage, json: JsonValue): Response {
  // Fields serve's records carry that the published message has not (a tag's createTime) are left out.
  const message = fromJson(output, json, { ignoreUnknownFields: true });
  return { proto: [toBinary(output, message)], journalText: () => JSON.stringify(toJson(output, message)) };
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

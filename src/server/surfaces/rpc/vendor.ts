// The vendor's published v2 and v2beta1 services (proto/chainguard/platform/…), on the same
// unary path as serve's own: each method is the operation (pipeline/operations.ts) that answers
// it, its input read from the vendor's request message and its output rendered as the vendor's
// response message; the pipeline (auth, rate limits, faults, the journal) knows it by the
// REST-equivalent call its transcoder names. The published messages differ in some field
// shapes from the spec's JSON; the field maps of each domain's file (iam.ts …) bridge that, per
// resource; vendor-services.ts is the one registration point.
import { create, fromBinary, fromJson, toJson, type DescMessage, type DescMethod, type DescService, type JsonObject, type JsonValue, type Message } from '@bufbuild/protobuf';
import { ApiError, Code, invalidField } from '../../../api/errors.js';
import { registry, type ResourceName } from '../../../api/registry/index.js';
import type { Principal } from '../../auth/principal.js';
import { createdToWire, wireFormOf } from '../wire.js';
import type { ResourceOperations } from '../../pipeline/operations.js';
import type { Record_, Store } from '../../store/store.js';
import { EncodedRecords, envelopeOf } from './encoded.js';
import { resolveChanges } from '../changes.js';
import { listOptionsOf, parseListQuery } from '../list-query.js';
import type { ReadContext } from './reads.js';
import { appendQuery, type RestCall, type Transcoder } from './transcode.js';

/**
 * A method's operation, once the caller is known (the dispatcher's auth, rate limit and journal
 * apply), answering the response message, or its bytes (a List's and a Get's, from the records'
 * cached bytes: encoded.ts); `call` is the REST-equivalent call its transcoder names.
 */
export type VendorOperation = (ctx: ReadContext, principal: Principal, request: Message, call: RestCall) => Promise<Message | Encoded>;

/** A response message already encoded, in parts that concatenate to it; `json`, its proto3 JSON made from cached parts too. */
export interface Encoded { encoded: readonly Uint8Array[]; json?: () => string }

/** An operation's answer as the message, decoded when it came encoded. */
export function answerMessage(desc: DescMessage, answer: Message | Encoded): Message {
  return '$typeName' in answer ? answer : fromBinary(desc, Buffer.concat(answer.encoded));
}

/** One vendor service: its descriptor and a transcoder per method it serves (the others answer UNIMPLEMENTED), naming the call; each answered by an operation. */
export interface VendorService {
  service: DescService;
  transcoders: ReadonlyMap<DescMethod, Transcoder>;
  operations?: ReadonlyMap<DescMethod, VendorOperation>;
}

/** The transcoder of an operation's method: its REST-shaped call names it in the journal and for faults (`POST /iam/v2/roleBindings:batchCreate`); its answer is the message as JSON. */
export function operationTranscoder(method: DescMethod, verb: string, path: (request: Message) => string): Transcoder {
  return transcoder(verb, '', (req) => call(verb, path(req), new URLSearchParams()), (body) => fromRestJson(method.output, body));
}

/** A resource's JSON both ways: the vendor's proto3 JSON to the spec's REST JSON, and back. */
interface FieldMap {
  toRest?: (vendor: JsonObject) => JsonObject;
  fromRest?: (rest: JsonObject) => JsonObject;
}

/** How a vendor resource maps to serve's REST resource. */
export interface ResourceMapping extends FieldMap {
  /** serve's REST collection: `/iam/v2/groups`. */
  path: string;
  /** The create body's wrapper and the update request's resource field (proto name): `group`, `role_binding`. */
  field: string;
  /** The list response's repeated field (proto name): `groups`. */
  plural: string;
}

const camel = (s: string) => s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
const asObject = (v: unknown): JsonObject => (v && typeof v === 'object' && !Array.isArray(v) ? (v as JsonObject) : {});

/** A uid as a path (a uid is a path of its own: its slashes stay). */
export function uidPath(collection: string, uid: unknown, field = 'uid'): string {
  if (typeof uid !== 'string' || uid === '') throw invalidField(field, 'is required');
  return `${collection}/${uid.split('/').map(encodeURIComponent).join('/')}`;
}

/** A vendor message's value as a REST answer body makes it: the spec's JSON mapped to the vendor's, unknown fields (serve's extras) left out. */
export function fromRestJson(desc: DescMessage, json: unknown, map?: (rest: JsonObject) => JsonObject): Message {
  return fromJson(desc, (map ? map(asObject(json)) : asObject(json)) as JsonValue, { ignoreUnknownFields: true });
}

function call(method: string, path: string, query: URLSearchParams, body?: () => JsonValue): RestCall {
  return { method, path, query, body: body ?? (() => undefined) };
}

function transcoder(verb: string, template: string, toRest: (request: Message) => RestCall, fromRest: (body: unknown) => Message): Transcoder {
  return { verb, template, toRest, fromRest };
}

/** A service's methods: how each is named (its transcoder) and the operation that answers it. */
export interface Methods {
  transcoders: Map<DescMethod, Transcoder>;
  operations: Map<DescMethod, VendorOperation>;
}

/**
 * The standard methods of a service (GetGroup, ListGroups, CreateGroup, UpdateGroup,
 * DeleteGroup of each resource, keyed by its singular noun: `Group`), each the resource's
 * operation; `special` adds or replaces transcoders by name.
 */
export function standardMethods(service: DescService, resources: Record<string, ResourceMapping>, special: Record<string, Transcoder> = {}): Methods {
  const out: Methods = { transcoders: new Map(), operations: new Map() };
  for (const method of service.methods) {
    if (special[method.name]) {
      out.transcoders.set(method, special[method.name]!);
      continue;
    }
    const m = standardMethod(method, resources);
    if (!m) continue;
    out.transcoders.set(method, m.transcoder);
    out.operations.set(method, m.operation);
  }
  return out;
}

/** The registry's name of serve's REST collection `path`. */
function resourceNameOf(path: string): ResourceName {
  const name = registry.find((d) => d.path === path)?.plural;
  if (!name) throw new Error(`no registry resource at ${path}`);
  return name as ResourceName;
}

function standardMethod(method: DescMethod, resources: Record<string, ResourceMapping>): { transcoder: Transcoder; operation: VendorOperation } | undefined {
  const m = /^(Get|List|Create|Update|Delete)([A-Z]\w*)$/.exec(method.name);
  if (!m) return undefined;
  const [, verb, noun] = m as unknown as [string, string, string];
  const r = resources[verb === 'List' ? noun.replace(/ies$/, 'y').replace(/s$/, '') : noun];
  if (!r) return undefined;
  const { input, output } = method;
  const name = resourceNameOf(r.path);
  const toRest = (json: unknown) => (r.toRest ? r.toRest(asObject(json)) : asObject(json));
  const message = (desc: DescMessage, ctx: ReadContext, rec: Record_) => fromRestJson(desc, wireFormOf(ctx.operations[name].resource.kind).toWire(rec, ctx.store), r.fromRest);
  /** The records' `desc` bytes, cached per store (one per serve). */
  const encodedAs = (desc: DescMessage) => {
    const byStore = new WeakMap<Store, EncodedRecords>();
    return (ctx: ReadContext) => {
      let records = byStore.get(ctx.store);
      if (!records) {
        records = new EncodedRecords(ctx.store, desc, (rec) => message(desc, ctx, rec), wireFormOf(ctx.operations[name].resource.kind).reads);
        byStore.set(ctx.store, records);
      }
      return records;
    };
  };
  const op = <V extends 'list' | 'get' | 'create' | 'update' | 'delete'>(ctx: ReadContext, v: V): NonNullable<ResourceOperations[V]> => {
    const found = ctx.operations[name][v];
    if (!found) throw new ApiError(Code.UNIMPLEMENTED, `${method.name} is not available on this server`, { reason: 'METHOD_UNAVAILABLE' });
    return found;
  };
  const resourceField = () => {
    const field = input.fields.find((f) => f.name === r.field);
    if (!field || field.fieldKind !== 'message') throw new Error(`${input.typeName} has no message field ${r.field}`);
    return field;
  };
  switch (verb) {
    case 'Get': {
      const records = encodedAs(output);
      return {
        transcoder: transcoder('GET', `${r.path}/{uid}`, (req) => call('GET', uidPath(r.path, (req as unknown as { uid: string }).uid), new URLSearchParams()), unreachable),
        operation: async (ctx, principal, req) => {
          const rec = await op(ctx, 'get').run(principal, { uid: (req as unknown as { uid: string }).uid });
          return { encoded: [records(ctx).encode(rec)], json: () => records(ctx).json(rec) };
        },
      };
    }
    case 'Delete':
      return {
        transcoder: transcoder('DELETE', `${r.path}/{uid}`, (req) => call('DELETE', uidPath(r.path, (req as unknown as { uid: string }).uid), new URLSearchParams()), unreachable),
        operation: async (ctx, principal, req) => (await op(ctx, 'delete').run(principal, { uid: (req as unknown as { uid: string }).uid }), create(output)),
      };
    case 'List': {
      const items = output.fields.find((f) => f.name === r.plural);
      if (!items || items.fieldKind !== 'list' || items.listKind !== 'message') throw new Error(`${output.typeName} has no list field ${r.plural}`);
      const records = encodedAs(items.message);
      const envelope = envelopeOf(output);
      return {
        // The query the request's fields make is the list's parameters (and what the journal shows).
        transcoder: transcoder('GET', r.path, (req) => {
          const query = new URLSearchParams();
          appendQuery(query, req, input.fields, '');
          return call('GET', r.path, query);
        }, unreachable),
        operation: async (ctx, principal, _req, restCall) => {
          const page = await op(ctx, 'list').run(principal, { query: () => parseListQuery(restCall.query, listOptionsOf(ctx.operations[name].resource)) });
          // The page's own fields those of the response has, then its items' cached bytes (and JSON).
          return { encoded: [envelope(page), records(ctx).fields(items, page.items)], json: () => records(ctx).pageJson(output, items, envelope(page), page.items) };
        },
      };
    }
    case 'Create':
      return {
        transcoder: transcoder('POST', r.path, () => call('POST', r.path, new URLSearchParams()), unreachable),
        operation: async (ctx, principal, req) => {
          const parent = (req as unknown as { parent: string }).parent;
          const resource = (req as unknown as Record<string, Message | undefined>)[camel(r.field)];
          const created = op(ctx, 'create');
          const input = created.parse({ ...(parent ? { parent } : {}), [camel(r.field)]: toRest(resource ? toJson(resourceField().message, resource) : {}) });
          return fromRestJson(output, createdToWire(created.resource.kind, await created.run(principal, input), ctx.store), r.fromRest);
        },
      };
    case 'Update': {
      const resourceOf = (req: Message) => (req as unknown as Record<string, unknown>)[camel(r.field)] as (Message & { uid?: string }) | undefined;
      return {
        transcoder: transcoder('PATCH', `${r.path}/{uid}`, (req) => call('PATCH', uidPath(r.path, resourceOf(req)?.uid, `${r.field}.uid`), new URLSearchParams()), unreachable),
        operation: async (ctx, principal, req) => {
          const resource = resourceOf(req);
          const mask = ((req as unknown as { updateMask?: { paths: string[] } }).updateMask)?.paths ?? [];
          const update = op(ctx, 'update');
          // The changes, from the mask or from the fields present, read once the caller is authorized.
          const changes = () => {
            const json = toRest(resource ? toJson(resourceField().message, resource) : {});
            delete json.uid;
            return resolveChanges(json, mask.length ? mask.join(',') : null, update.resource);
          };
          return message(output, ctx, await update.run(principal, { uid: resource?.uid ?? '', changes }));
        },
      };
    }
    default:
      return undefined;
  }
}

function unreachable(): never {
  throw new Error('unreachable: an operation answers this method');
}

/** A method serve has no source for: UNIMPLEMENTED naming the closest call. */
export function unimplemented(method: string, closest: string): Transcoder {
  return transcoder('POST', '', () => {
    throw new ApiError(Code.UNIMPLEMENTED, `${method} is not available on this server: ${closest}`, { reason: 'METHOD_UNAVAILABLE' });
  }, () => {
    throw new Error('unreachable');
  });
}

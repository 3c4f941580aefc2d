// The vendor's published v2 and v2beta1 services (proto/chainguard/platform/…), on the same
// unary path as serve's own: each method has a transcoder that turns the vendor's request
// message into the REST call of serve's spec route for the same operation (so auth, rate
// limits, faults, the journal, validation and the domain operation are REST's), and the REST
// answer into the vendor's response message. The published HTTP rules put a create's parent in
// the path and differ in some field shapes from the spec's REST; the transcoders bridge that,
// per resource, with the field maps of each domain's file (iam.ts …); vendor-services.ts is
// the one registration point.
import { create, fromJson, toJson, type DescMessage, type DescMethod, type DescService, type JsonObject, type JsonValue, type Message } from '@bufbuild/protobuf';
import { ApiError, Code, invalidField } from '../../api/errors.js';
import type { Principal } from '../auth/principal.js';
import type { ReadContext } from './reads.js';
import { appendQuery, type RestCall, type Transcoder } from './transcode.js';

/**
 * A method no single REST call answers (a batch, a lookup, an update REST lacks): the domain
 * operation itself, once the caller is known (the dispatcher's auth, rate limit and journal
 * still apply), answering the response message.
 */
export type VendorOperation = (ctx: ReadContext, principal: Principal, request: Message) => Promise<Message>;

/** One vendor service: its descriptor and a transcoder per method it serves (the others answer UNIMPLEMENTED); some answered by an operation. */
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

/**
 * The transcoders of a service's standard methods (GetGroup, ListGroups, CreateGroup,
 * UpdateGroup, DeleteGroup of each resource, keyed by its singular noun: `Group`); `special`
 * adds or replaces methods by name.
 */
export function standardTranscoders(service: DescService, resources: Record<string, ResourceMapping>, special: Record<string, Transcoder> = {}): Map<DescMethod, Transcoder> {
  const out = new Map<DescMethod, Transcoder>();
  for (const method of service.methods) {
    const t = special[method.name] ?? standardTranscoder(method, resources);
    if (t) out.set(method, t);
  }
  return out;
}

function standardTranscoder(method: DescMethod, resources: Record<string, ResourceMapping>): Transcoder | undefined {
  const m = /^(Get|List|Create|Update|Delete)([A-Z]\w*)$/.exec(method.name);
  if (!m) return undefined;
  const [, verb, noun] = m as unknown as [string, string, string];
  const r = resources[verb === 'List' ? noun.replace(/ies$/, 'y').replace(/s$/, '') : noun];
  if (!r) return undefined;
  const { input, output } = method;
  const toRest = (json: unknown) => (r.toRest ? r.toRest(asObject(json)) : asObject(json));
  const answer = (body: unknown) => fromRestJson(output, body, r.fromRest);
  switch (verb) {
    case 'Get':
      return transcoder('GET', `${r.path}/{uid}`, (req) => call('GET', uidPath(r.path, (req as unknown as { uid: string }).uid), new URLSearchParams()), answer);
    case 'Delete':
      return transcoder('DELETE', `${r.path}/{uid}`, (req) => call('DELETE', uidPath(r.path, (req as unknown as { uid: string }).uid), new URLSearchParams()), () => create(output));
    case 'List': {
      const items = output.fields.find((f) => f.name === r.plural);
      if (!items) throw new Error(`${output.typeName} has no field ${r.plural}`);
      return transcoder('GET', r.path, (req) => {
        const query = new URLSearchParams();
        appendQuery(query, req, input.fields, '');
        return call('GET', r.path, query);
      }, (body) => {
        const page = asObject(body);
        const restItems = page[camel(r.plural)];
        return fromJson(output, {
          ...page,
          [items.jsonName]: (Array.isArray(restItems) ? restItems : []).map((item) => (r.fromRest ? r.fromRest(asObject(item)) : item)),
        }, { ignoreUnknownFields: true });
      });
    }
    case 'Create':
      return transcoder('POST', r.path, (req) => {
        const parent = (req as unknown as { parent: string }).parent;
        const resource = (req as unknown as Record<string, Message | undefined>)[camel(r.field)];
        const resourceDesc = input.fields.find((f) => f.name === r.field);
        if (!resourceDesc || resourceDesc.fieldKind !== 'message') throw new Error(`${input.typeName} has no message field ${r.field}`);
        const body = () => ({ ...(parent ? { parent } : {}), [camel(r.field)]: toRest(resource ? toJson(resourceDesc.message, resource) : {}) });
        return call('POST', r.path, new URLSearchParams(), body);
      }, answer);
    case 'Update':
      return transcoder('PATCH', `${r.path}/{uid}`, (req) => {
        const fields = req as unknown as Record<string, unknown>;
        const resource = fields[camel(r.field)] as (Message & { uid?: string }) | undefined;
        const resourceDesc = input.fields.find((f) => f.name === r.field);
        if (!resourceDesc || resourceDesc.fieldKind !== 'message') throw new Error(`${input.typeName} has no message field ${r.field}`);
        const mask = (fields.updateMask as { paths: string[] } | undefined)?.paths ?? [];
        const query = new URLSearchParams();
        if (mask.length) query.set('update_mask', mask.join(','));
        const body = () => {
          const json = toRest(resource ? toJson(resourceDesc.message, resource) : {});
          delete json.uid;
          return json;
        };
        return call('PATCH', uidPath(r.path, resource?.uid, `${r.field}.uid`), query, body);
      }, answer);
    default:
      return undefined;
  }
}

/** A method serve has no source for: UNIMPLEMENTED naming the closest call. */
export function unimplemented(method: string, closest: string): Transcoder {
  return transcoder('POST', '', () => {
    throw new ApiError(Code.UNIMPLEMENTED, `${method} is not available on this server: ${closest}`, { reason: 'METHOD_UNAVAILABLE' });
  }, () => {
    throw new Error('unreachable');
  });
}

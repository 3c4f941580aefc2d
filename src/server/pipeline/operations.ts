// Every resource operation, declared once from the registry: its resource and verb, its typed
// input and output, the capabilities it needs (its published method's rule), and the REST-equivalent call (method and path) the
// journal and the fault rules name it by. Each surface (REST, gRPC, v1, MCP) parses its wire
// into an operation's input, runs it through the pipeline (dispatch.ts: faults, authentication,
// admission, the journal) and renders its output to its wire; none builds another's request.
import { capabilities, resources, type Resource, type ResourceName } from '../../api/registry/index.js';
import * as S from '../../api/schemas.js';
import type { Principal } from '../auth/principal.js';
import type { Deferred } from '../domain/context.js';
import type { Domain } from '../domain/index.js';
import type { Changes } from '../domain/patch.js';
import type { ListInput as ListQueryInput } from '../domain/reads.js';
import type { ListPage } from '../store/list.js';
import type { Record_ } from '../store/store.js';
import { groupNameViolation, parseBody } from './input.js';

type Verb = 'list' | 'get' | 'create' | 'update' | 'delete';

/** A REST-equivalent call: what the journal and the fault rules know an operation by. */
interface RestName {
  method: string;
  /** Percent-encoded, as on the wire. */
  path: string;
}

interface Operation<I, O> {
  /** `groups.create`. */
  name: string;
  resource: Resource;
  verb: Verb;
  /** The capabilities it needs, every one: its published method's chainguard.annotations.iam (its domain rule checks them). */
  capabilities: readonly string[];
  rest(input: I): RestName;
  run(principal: Principal, input: I): Promise<O>;
}

/** A list's typed query, parsed by the surface once the operation's access checks have passed. */
interface ListInput { query: ListQueryInput }
interface UidInput { uid: string }
/** A create's input: the resource's fields and its parent, as the create request's JSON holds them. */
type CreateInput = { parent: string } & Record<string, unknown>;
interface UpdateInput { uid: string; changes: Deferred<Changes> }

/** What a create answers: the record, and the one-time secret some creates make (an invite's code). */
interface Created { record: Record_; code?: string }

interface CreateOperation extends Operation<CreateInput, Created> {
  /** The input from the create request's JSON (`{parent, group: {…}}`): every problem a field violation. */
  parse(json: unknown): CreateInput;
}

/** The standard operations of one resource, those its declaration and domain module have. */
export interface ResourceOperations {
  resource: Resource;
  list?: Operation<ListInput, ListPage>;
  get?: Operation<UidInput, Record_>;
  create?: CreateOperation;
  update?: Operation<UpdateInput, Record_>;
  delete?: Operation<UidInput, void>;
}

export type Operations = { [R in ResourceName]: ResourceOperations };

/** A uid as a path (its slashes stay: a uid is a path of its own). */
function itemPath(d: Resource, uid: string): string {
  return `${d.path}/${uid.split('/').map(encodeURIComponent).join('/')}`;
}

/** The domain's operations in the generic shapes (method syntax: each module's own input types fit). */
interface GenericDomain {
  list?(principal: Principal, query: ListQueryInput): Promise<ListPage>;
  get?(principal: Principal, uid: string): Promise<Record_>;
  create?(principal: Principal, input: CreateInput): Promise<Record_ | { invite: Record_; code: string }>;
  update?(principal: Principal, uid: string, changes: Deferred<Changes>): Promise<Record_>;
  delete?(principal: Principal, uid: string): Promise<void>;
}

export function operationsOf(domain: Domain): Operations {
  const out = {} as Operations;
  for (const [name, d] of Object.entries(resources) as [ResourceName, Resource][]) out[name] = resourceOperations(d, domain[name] as GenericDomain);
  return out;
}

function resourceOperations(d: Resource, ops: GenericDomain): ResourceOperations {
  const has = (v: Verb) => d.operations.includes(v) && typeof ops[v] === 'function';
  const declare = <I, O>(verb: Verb, rest: (input: I) => RestName, run: (principal: Principal, input: I) => Promise<O>): Operation<I, O> =>
    ({ name: `${d.plural}.${verb}`, resource: d, verb, capabilities: capabilities(d, verb), rest, run });
  const out: ResourceOperations = { resource: d };
  if (has('list')) out.list = declare('list', () => ({ method: 'GET', path: d.path }), (p, i: ListInput) => ops.list!(p, i.query));
  if (has('get')) out.get = declare('get', (i: UidInput) => ({ method: 'GET', path: itemPath(d, i.uid) }), (p, i: UidInput) => ops.get!(p, i.uid));
  const body = createBodyOf(d);
  if (has('create') && body) {
    const create = declare('create', () => ({ method: 'POST', path: d.path }), async (p, i: CreateInput): Promise<Created> => {
      const made = await ops.create!(p, i);
      return 'invite' in made ? { record: made.invite, code: made.code } : { record: made };
    });
    out.create = { ...create, parse: (json) => parseCreate(d, body, json) };
  }
  if (has('update')) out.update = declare('update', (i: UpdateInput) => ({ method: 'PATCH', path: itemPath(d, i.uid) }), (p, i: UpdateInput) => ops.update!(p, i.uid, i.changes));
  if (has('delete')) out.delete = declare('delete', (i: UidInput) => ({ method: 'DELETE', path: itemPath(d, i.uid) }), (p, i: UidInput) => ops.delete!(p, i.uid));
  return out;
}

interface CreateBody { schema: (typeof S.CREATE_BODIES)[keyof typeof S.CREATE_BODIES]; key: string }

/** The declaration's create request (`{parent, <key>: {...}}`) and the key of its resource object. */
function createBodyOf(d: Resource): CreateBody | undefined {
  const schema = (S.CREATE_BODIES as Partial<Record<string, CreateBody['schema']>>)[d.kind];
  const key = schema && Object.keys(schema.shape).find((k) => k !== 'parent');
  return schema && key ? { schema, key } : undefined;
}

function parseCreate(d: Resource, body: CreateBody, json: unknown): CreateInput {
  // A group's missing name breaks the spec's name pattern too, and is worded so.
  const extra = d.kind === 'Group' ? [groupNameViolation((json as { group?: { name?: unknown } } | null)?.group?.name)].filter((v) => v !== undefined) : [];
  const parsed = parseBody(body.schema, json, extra) as Record<string, unknown>;
  const fields = { ...(parsed[body.key] as Record<string, unknown>), parent: parsed.parent as string };
  // An invite's ttl is a duration on the wire, seconds to the domain; single use defaults to false.
  if (d.kind === 'GroupInvite') {
    const { ttl, singleUse, ...rest } = fields as { ttl?: string; singleUse?: boolean } & CreateInput;
    return { ...rest, singleUse: singleUse ?? false, ttlSeconds: S.inviteTtlSeconds(ttl ?? '')! };
  }
  return fields;
}

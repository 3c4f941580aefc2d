// The MCP tool set, derived from the resource registry: for each resource its list and get,
// and (writes allowed) create, update and delete; plus the custom verbs (invite redemption,
// association check). Input schemas are the API's own zod schemas (create bodies, field
// rules), exported as JSON Schema; outputs are the wire schemas.
//
// A tool knows nothing of transports or of who serves the API: it calls an ApiCaller
// (method, path, query, body → JSON, or an ApiError). `pctl mcp` implements one with pctl's
// client (auth, retries, backoff); serve's /mcp runs each call's operation through its
// pipeline as the authenticated caller (server/surfaces/mcp/calls.ts). So permissions,
// limits, faults and the journal are the API's, and no rule of the API is restated here.
// A tool of a published method takes that method's chainguard.annotations.mcp: its
// description first (then how the tool takes names and pages), its hints as the tool's
// annotations; a method the vendor hides from MCP has no tool.
import * as z from 'zod';
import { ApiError, Code, invalidArgument } from '../api/errors.js';
import { References, type Lister } from '../api/references.js';
import { accountAssociations, groupInvites, groups, identities, publishedMethod, registry, repos, roleBindings, roles, type AnyResource } from '../api/registry/index.js';
import { PUBLISHED_TOOLS, type PublishedTool } from '../gen/published/mcp.js';
import type { Operation } from '../api/registry/define.js';
import { DEFAULT_LIST_ORDER, itemPath, listQueryParams, withListDefaults, PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX, type ListQuery } from '../api/resources.js';
import * as S from '../api/schemas.js';

interface ApiRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** The path, uids percent-encoded per segment (itemPath). */
  path: string;
  query?: [string, string][];
  body?: unknown;
}

/** One API call: the JSON body of the answer (undefined when empty), or a rejection with the ApiError of an error answer. */
export type ApiCaller = (req: ApiRequest) => Promise<unknown>;

type Json = Record<string, unknown>;

interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

type Hints = Omit<ToolAnnotations, 'title'>;

/** The published method's MCP annotation of a resource's operation (or one of its service's methods). */
function publishedTool(d: AnyResource, op: string): PublishedTool | undefined {
  return PUBLISHED_TOOLS[publishedMethod(d, op)];
}

/** The published description, then serve's notes on how the tool is called. */
function describe(p: PublishedTool | undefined, notes: string): string {
  return p?.description ? `${p.description} ${notes}` : notes;
}

/** The published hints (unset destructive and open-world: true, as MCP assumes), else serve's own (a closed world: the platform's resources). */
function hints(p: PublishedTool | undefined, title: string, own: Omit<Hints, 'openWorldHint'>): ToolAnnotations {
  if (!p) return { title, ...own, openWorldHint: false };
  // A read-only tool destroys nothing (MCP reads destructiveHint only when readOnlyHint is false).
  return { title, readOnlyHint: p.readOnly, destructiveHint: !p.readOnly && (p.destructive ?? true), idempotentHint: p.idempotent, openWorldHint: p.openWorld ?? true };
}

export interface Tool {
  name: string;
  description: string;
  /** A write: offered only when writes are allowed (`pctl mcp --allow-writes`, `serve --mcp-writes`). */
  writes: boolean;
  annotations: ToolAnnotations;
  input: z.ZodObject;
  output: z.ZodType;
  run(args: Json, api: ToolApi): Promise<Json>;
}

/** What one tool call works with: the caller, and references resolved (and memoized) for this call. */
interface ToolApi {
  call: ApiCaller;
  refs: References;
}

/** The tool name of a resource's verb: `role_bindings_list`, as the CLI's `role-bindings list`. */
function toolName(d: AnyResource, verb: string): string {
  return `${d.nouns.cli.replaceAll('-', '_')}_${verb}`;
}

/** A ToolApi over `call`: references list through the same caller, and point at the list tools. */
function toolApi(call: ApiCaller): ToolApi {
  return { call, refs: new References(callerLister(call), { listHint: (d) => `see the ${toolName(d, 'list')} tool` }) };
}

/** Lists for references, page after page through the caller (largest pages, fewest calls). */
function callerLister(call: ApiCaller): Lister {
  return {
    async *list(d, query, limit) {
      let left = limit;
      let token: string | undefined;
      const seen = new Set<string>();
      do {
        const page = await listPage(call, d, { ...query, pageSize: PAGE_SIZE_MAX, ...(token ? { pageToken: token } : {}) });
        const items = (page[d.plural] as unknown[] | undefined) ?? [];
        yield* items.slice(0, left);
        left -= items.length;
        token = typeof page.nextPageToken === 'string' && page.nextPageToken ? page.nextPageToken : undefined;
        if (token && seen.has(token)) throw new ApiError(Code.INTERNAL, 'the server returned the same page token twice');
        if (token) seen.add(token);
      } while (token && left > 0);
    },
    get: (d, uid) => call({ method: 'GET', path: itemPath(d, uid) }),
  };
}

async function listPage(call: ApiCaller, d: AnyResource, q: ListQuery): Promise<Json> {
  return ((await call({ method: 'GET', path: d.path, query: listQueryParams(withListDefaults(d, q)) })) ?? {}) as Json;
}

// ---- results: compact, and only the fields asked for ----

const isPlainObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Without nulls and empty values ('', [], {}): an absent field is an empty one, as in proto3 JSON. */
function compact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(compact);
  if (!isPlainObject(value)) return value;
  const out: Json = {};
  for (const [k, v] of Object.entries(value)) {
    const c = compact(v);
    if (c === null || c === undefined || c === '') continue;
    if (Array.isArray(c) && c.length === 0) continue;
    if (isPlainObject(c) && Object.keys(c).length === 0) continue;
    out[k] = c;
  }
  return out;
}

/** Only the (dotted) `fields` of an item; all of it without a selection. */
function select(item: unknown, fields: readonly string[] | undefined): unknown {
  if (!fields?.length || !isPlainObject(item)) return item;
  const out: Json = {};
  for (const path of fields) {
    const parts = path.split('.');
    let from: unknown = item;
    for (const p of parts) from = isPlainObject(from) ? from[p] : undefined;
    if (from === undefined) continue;
    let to = out;
    for (const p of parts.slice(0, -1)) to = (isPlainObject(to[p]) ? to[p] : (to[p] = {}));
    to[parts[parts.length - 1]!] = from;
  }
  return out;
}

const shaped = (item: unknown, fields: readonly string[] | undefined): Json => compact(select(item, fields)) as Json;

// ---- shared arguments ----

const fieldsArg = z
  .array(z.string().min(1))
  .optional()
  .describe('Only these fields (of each item), as dotted paths ("identity.name"); default: all. Empty fields are always left out.');

function uidArg(d: AnyResource): z.ZodString {
  const by = d === roles
    ? 'its uid, its exact name (e.g. "viewer"), or a unique suffix of its uid'
    : d === groups
      ? 'its uid, its name, its name path from the organization (e.g. "acme/platform"), or a unique suffix of its uid'
      : d.references === 'uid suffix' ? 'its uid, or a unique suffix of it' : d.references ? 'its uid, its name, or a unique suffix of its uid' : 'its uid';
  const extra = d === accountAssociations ? " (an association's uid is its group's uid)" : '';
  return z.string().min(1).describe(`The ${d.nouns.one}: ${by}${extra}.`);
}

/** A reference field's target: where a name, name path or uid suffix given for it is looked up. */
type Target = AnyResource | 'role';

/** The fields of create bodies that hold a reference, and what they refer to. */
const REFERENCE_FIELDS: Readonly<Record<string, Target>> = { parent: groups, identityUid: identities, roleUid: 'role', defaultRole: 'role' };

function refDescription(target: Target, what: string): string {
  if (target === 'role') return `${what}: a role's uid, its exact name (e.g. "viewer", "editor", "owner"), or a unique suffix of its uid.`;
  const name = target === groups ? 'its name (e.g. "platform"), its name path from the organization (e.g. "acme/platform")' : 'its name';
  return `${what}: the ${target.nouns.one}'s uid, ${name}, or a unique suffix of its uid.`;
}

async function resolveRef(api: ToolApi, target: Target, ref: string, field: string): Promise<string> {
  return target === 'role' ? (await api.refs.role(ref, field)).uid : api.refs.uid(target, ref, field);
}

/** The uid of the item a get, update or delete names. */
function itemUid(api: ToolApi, d: AnyResource, ref: string): Promise<string> {
  return resolveRef(api, d === roles ? 'role' : d, ref, 'uid');
}

// ---- JSON Schema of the outputs: every field may be absent (fields selection, empty values left out) ----

function wire(d: AnyResource): z.ZodType {
  return S.wireSchema(d) as z.ZodType;
}

// ---- the tools of one resource ----

function listTool(d: AnyResource): Tool {
  const scoped = d.parent !== null;
  const parentNoun = d.parent?.kind === 'repo' ? repos : groups;
  const shape: Record<string, z.ZodType> = {
    page_size: z.number().int().min(1).max(PAGE_SIZE_MAX).optional().describe(`At most this many items (default ${PAGE_SIZE_DEFAULT}, at most ${PAGE_SIZE_MAX}).`),
    page_token: z.string().min(1).optional().describe('nextPageToken of the previous call, for the next page (same other arguments).'),
    order_by: z.string().min(1).optional().describe(`"name" (the default, as in the CLI), "created_at", "updated_at" or "uid", optionally + " desc".`),
    name: z.string().optional().describe(`Only the ${d.nouns.many} with exactly this name.`),
  };
  if (scoped) {
    shape.descendants_of = z.string().min(1).optional().describe(refDescription(groups, `Only ${d.nouns.many} anywhere below this group`));
    shape.children_of = z.string().min(1).optional().describe(refDescription(parentNoun, `Only ${d.nouns.many} directly in this ${parentNoun.nouns.one}`));
  }
  for (const [param, f] of Object.entries(d.filters)) {
    shape[param] = z.array(z.string().min(1)).optional().describe(`${f.description.replace(/\s*\(repeatable: ([^)]*)\)/, ' ($1)').replace(/^./, (c) => c.toUpperCase())}.`);
  }
  shape.fields = fieldsArg;
  return {
    name: toolName(d, 'list'),
    description: describe(publishedTool(d, 'list'),
      `List ${d.nouns.many}, one page per call: at most page_size items, the total number of matches (totalCount) and, when there are more, ` +
      `a nextPageToken to pass as page_token. ${scoped ? `descendants_of and children_of narrow the listing to a part of the ${parentNoun === repos ? 'registry' : 'group tree'}; they accept names. ` : ''}` +
      `Only what the caller may see is listed. ${d.cli.help.description}`),
    writes: false,
    annotations: hints(publishedTool(d, 'list'), `List ${d.nouns.many}`, { readOnlyHint: true, destructiveHint: false, idempotentHint: true }),
    input: z.strictObject(shape),
    output: S.listEnvelope(d.plural, wire(d)),
    async run(args, api) {
      const q: ListQuery = {};
      if (args.page_size !== undefined) q.pageSize = args.page_size as number;
      if (args.page_token !== undefined) q.pageToken = args.page_token as string;
      q.orderBy = (args.order_by as string | undefined) ?? DEFAULT_LIST_ORDER;
      if (args.name !== undefined) q.name = args.name as string;
      if (args.descendants_of !== undefined) q.descendantsOf = await api.refs.uid(groups, args.descendants_of as string, 'descendants_of');
      if (args.children_of !== undefined) q.childrenOf = await api.refs.uid(parentNoun, args.children_of as string, 'children_of');
      const filters = Object.fromEntries(Object.keys(d.filters).filter((p) => args[p] !== undefined).map((p) => [p, args[p] as string[]]));
      if (Object.keys(filters).length) q.filters = filters;
      const page = await listPage(api.call, d, q);
      const items = ((page[d.plural] as unknown[] | undefined) ?? []).map((item) => shaped(item, args.fields as string[] | undefined));
      return compact({ [d.plural]: items, nextPageToken: page.nextPageToken, totalCount: page.totalCount }) as Json;
    },
  };
}

function getTool(d: AnyResource): Tool {
  return {
    name: toolName(d, 'get'),
    description: describe(publishedTool(d, 'get'), `Get one ${d.nouns.one} by uid${d.references === true || d === roles ? ' or name' : ''}, with every field or those named in fields. ${d.cli.get?.description ?? d.cli.help.description}`),
    writes: false,
    annotations: hints(publishedTool(d, 'get'), `Get a ${d.nouns.one}`, { readOnlyHint: true, destructiveHint: false, idempotentHint: true }),
    input: z.strictObject({ uid: uidArg(d), fields: fieldsArg }),
    output: wire(d),
    async run(args, api) {
      const ref = args.uid as string;
      const resolved = d === roles ? { uid: (await api.refs.role(ref, 'uid')).uid } : await api.refs.resolve(d, ref, 'uid');
      const item = 'item' in resolved && resolved.item !== undefined ? resolved.item : await api.call({ method: 'GET', path: itemPath(d, resolved.uid) });
      return shaped(item, args.fields as string[] | undefined);
    },
  };
}

/** The create body's resource object (`group` of `{parent, group}`), and its key. */
function createParts(d: AnyResource): { key: string; inner: z.ZodObject } | undefined {
  const body = (S.CREATE_BODIES as Partial<Record<string, z.ZodObject>>)[d.kind];
  if (!body) return undefined;
  const [key, inner] = Object.entries(body.shape as Record<string, z.ZodType>).find(([k]) => k !== 'parent')!;
  return { key, inner: inner as z.ZodObject };
}

/** What a model cannot guess from a create body field's name and type. */
const FIELD_NOTES: Readonly<Record<string, string>> = {
  ttl: `How long the invite is valid: ${S.INVITE_TTL_RULE}.`,
  capabilities: 'Capability names such as "groups.list" or "role_bindings.create" (roles_list shows those of the built-in roles).',
};

/** The fields of `shape`, described where their name and type are not enough (references above all). */
function describeFields(shape: Record<string, z.ZodType>): Record<string, z.ZodType> {
  return Object.fromEntries(
    Object.entries(shape).map(([k, v]) => {
      const target = REFERENCE_FIELDS[k];
      const note = target ? refDescription(target, `The ${target === 'role' ? 'role' : target.nouns.one}`) : FIELD_NOTES[k];
      return [k, note ? v.describe(note) : v];
    }),
  );
}

function createTool(d: AnyResource): Tool | undefined {
  const parts = createParts(d);
  if (!parts) return undefined;
  const { key, inner } = parts;
  return {
    name: toolName(d, 'create'),
    description: describe(publishedTool(d, 'create'),
      `Create a ${d.nouns.one} in a group (parent). References (parent${Object.keys(inner.shape).filter((k) => REFERENCE_FIELDS[k]).map((k) => `, ${k}`).join('')}) ` +
      `accept names as well as uids. Returns the new ${d.nouns.one}. ${d.cli.help.description}`),
    writes: true,
    annotations: hints(publishedTool(d, 'create'), `Create a ${d.nouns.one}`, { readOnlyHint: false, destructiveHint: false, idempotentHint: false }),
    input: z.strictObject({
      parent: z.string().min(1).describe(refDescription(groups, `The group the ${d.nouns.one} is created in`)),
      ...describeFields(inner.shape as Record<string, z.ZodType>),
      fields: fieldsArg,
    }),
    output: wire(d),
    async run(args, api) {
      const { parent, fields, ...values } = args;
      const resolved: Json = { ...values };
      for (const [k, v] of Object.entries(values)) {
        const target = REFERENCE_FIELDS[k];
        if (target && typeof v === 'string') resolved[k] = await resolveRef(api, target, v, k);
      }
      const body = { parent: await api.refs.uid(groups, parent as string, 'parent'), [key]: resolved };
      return shaped(await api.call({ method: 'POST', path: d.path, body }), fields as string[] | undefined);
    },
  };
}

/** `schema` with every field optional, nested objects too (an update names any part of the resource). */
function partialDeep(schema: z.ZodType): z.ZodType {
  if (schema instanceof z.ZodOptional) return partialDeep(schema.unwrap() as z.ZodType).optional();
  if (schema instanceof z.ZodDefault) return partialDeep(schema.unwrap() as z.ZodType).optional();
  if (!(schema instanceof z.ZodObject)) return schema;
  return z.strictObject(Object.fromEntries(Object.entries(schema.shape).map(([k, v]) => [k, partialDeep(v as z.ZodType).optional()])));
}

/** The updateMask of an update: the deepest declared updatable path each given value sits at. */
function updateMask(updatable: readonly string[], fields: Json, prefix = ''): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(fields)) {
    if (v === undefined) continue;
    const path = prefix + k;
    if (isPlainObject(v) && updatable.some((u) => u.startsWith(`${path}.`))) out.push(...updateMask(updatable, v, `${path}.`));
    else out.push(path);
  }
  return out;
}

function updateTool(d: AnyResource): Tool {
  const top = [...new Set(d.updatable.map((p) => p.split('.')[0]!))];
  const source = createParts(d)?.inner ?? (wire(d) as z.ZodObject);
  const fieldsShape = Object.fromEntries(top.filter((k) => k in source.shape).map((k) => [k, partialDeep(source.shape[k] as z.ZodType).optional()]));
  return {
    name: toolName(d, 'update'),
    description: describe(publishedTool(d, 'update'),
      `Update a ${d.nouns.one}: only the fields given change (${top.join(', ')}); the updateMask is made from them. ` +
      `A nested field may be given alone (e.g. {"claimMatch": {"subject": "..."}}) where the API allows it. Returns the updated ${d.nouns.one}.`),
    writes: true,
    annotations: hints(publishedTool(d, 'update'), `Update a ${d.nouns.one}`, { readOnlyHint: false, destructiveHint: true, idempotentHint: true }),
    input: z.strictObject({ uid: uidArg(d), ...fieldsShape, fields: fieldsArg }),
    output: wire(d),
    async run(args, api) {
      const { uid, fields, ...changes } = args;
      const mask = updateMask(d.updatable, changes);
      if (!mask.length) throw invalidArgument([{ field: 'updateMask', description: `name at least one field to change: ${top.join(', ')}` }]);
      const target = await itemUid(api, d, uid as string);
      const updated = await api.call({ method: 'PATCH', path: itemPath(d, target), query: [['updateMask', mask.join(',')]], body: changes });
      return shaped(updated, fields as string[] | undefined);
    },
  };
}

const Deleted = z.object({ uid: z.string(), deleted: z.literal(true) });

function deleteTool(d: AnyResource): Tool {
  return {
    name: toolName(d, 'delete'),
    description: describe(publishedTool(d, 'delete'), `Delete a ${d.nouns.one}; this cannot be undone. ${d.cli.delete?.description.replace(/\s*On a terminal[^.]*\./, '') ?? ''}`.trim()),
    writes: true,
    annotations: hints(publishedTool(d, 'delete'), `Delete a ${d.nouns.one}`, { readOnlyHint: false, destructiveHint: true, idempotentHint: true }),
    input: z.strictObject({ uid: uidArg(d) }),
    output: Deleted,
    async run(args, api) {
      const target = await itemUid(api, d, args.uid as string);
      await api.call({ method: 'DELETE', path: itemPath(d, target) });
      return { uid: target, deleted: true };
    },
  };
}

// ---- custom verbs (AIP-136) ----

const customVerbs: readonly Tool[] = [
  {
    name: toolName(groupInvites, 'redeem'),
    description:
      'Redeem an invite code: binds the caller (the identity of the token in use) to the invite\'s group with its role, ' +
      'and returns that role binding. Redeeming a reusable invite again leaves one binding.',
    writes: true,
    annotations: hints(undefined, 'Redeem an invite', { readOnlyHint: false, destructiveHint: false, idempotentHint: true }),
    input: S.RedeemInviteBody.extend({ code: z.string().min(1).describe('The invite code (shown once, when the invite was created).'), fields: fieldsArg }),
    output: wire(roleBindings),
    async run(args, api) {
      const answer = await api.call({ method: 'POST', path: `${groupInvites.path}:redeem`, body: { code: args.code } });
      return shaped(answer, args.fields as string[] | undefined);
    },
  },
  {
    name: toolName(accountAssociations, 'check'),
    // Not the published CheckAccountAssociation's text and hints: the vendor's performs a live
    // credential exchange (not read-only, per its annotation); serve's only reads the stored block.
    description:
      "Check whether one provider of an account association is ready (status READY or NOT_READY, with a reason). Changes nothing.",
    writes: false,
    annotations: hints(undefined, 'Check an account association', { readOnlyHint: true, destructiveHint: false, idempotentHint: true }),
    input: S.CheckAccountAssociationBody.extend({ uid: uidArg(accountAssociations) }),
    output: S.AccountAssociationCheck,
    async run(args, api) {
      const target = await itemUid(api, accountAssociations, args.uid as string);
      const answer = await api.call({ method: 'POST', path: `${itemPath(accountAssociations, target)}:check`, body: { providerType: args.providerType } });
      return compact(answer) as Json;
    },
  },
];

const BUILDERS: Record<Operation, (d: AnyResource) => Tool | undefined> = {
  list: listTool, get: getTool, create: createTool, update: updateTool, delete: deleteTool,
};

let all: readonly Tool[] | undefined;

/** Every tool, in registry order: each resource's operations (but those the vendor hides from MCP), then the custom verbs. */
function allTools(): readonly Tool[] {
  return (all ??= [
    ...registry.flatMap((d) => (['list', 'get', 'create', 'update', 'delete'] as const)
      .filter((op) => d.operations.includes(op) && !publishedTool(d, op)?.hidden)
      .map((op) => BUILDERS[op](d))),
    ...customVerbs,
  ].filter((t): t is Tool => t !== undefined));
}

/** The tools offered: the reads, and the writes only when allowed. */
export function toolSet(writes: boolean): readonly Tool[] {
  return allTools().filter((t) => writes || !t.writes);
}

// ---- one call ----

export interface ToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent?: Json;
  isError?: boolean;
}

/**
 * Runs a tool: its arguments checked against its input schema, its result as structured
 * content (and the same JSON as text, for clients that read only text). Every failure (a bad
 * argument, an API error, an unreachable API) is a tool error the model can read, never a
 * protocol error.
 */
export async function callTool(tool: Tool, args: unknown, call: ApiCaller): Promise<ToolResult> {
  try {
    const parsed = tool.input.safeParse(args ?? {});
    if (!parsed.success) throw invalidArgument(S.zodViolations(parsed.error));
    const result = await tool.run(parsed.data, toolApi(call));
    return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
  } catch (err) {
    return { content: [{ type: 'text', text: JSON.stringify({ error: errorOf(err) }) }], isError: true };
  }
}

/** An error as the model reads it: the API's code name, message and violations. */
function errorOf(err: unknown): Json {
  if (err instanceof ApiError) {
    const s = err.toStatus();
    return compact({
      code: s.status,
      message: err.message,
      fieldViolations: err.fieldViolations,
      preconditionViolations: err.preconditionViolations,
    }) as Json;
  }
  // The client's own failures: the API unreachable (NetworkError), or an answer outside the contract.
  const message = err instanceof Error ? err.message : String(err);
  return { code: err instanceof Error && err.name === 'NetworkError' ? 'UNAVAILABLE' : 'UNKNOWN', message };
}

// ---- as MCP lists them ----

/**
 * A JSON Schema of `schema`. Outputs keep their shape and types but nothing is required (a
 * selection or an empty value leaves a field out), and the server's own checks on values
 * (patterns, lengths, defaults) are left out: noise in a model's context (a third of the size).
 */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Json {
  // zod's input view for both: a field with a default may be left out (and compact() leaves out empty ones).
  const { $schema: _, ...out } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Json;
  return io === 'output' ? (shapeOnly(out) as Json) : out;
}

const VALUE_CHECKS = new Set(['required', 'pattern', 'minLength', 'maxLength', 'default', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum']);

function shapeOnly(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shapeOnly);
  if (!isPlainObject(value)) return value;
  // `properties` names fields, which may share a check's name: only keywords are dropped.
  return Object.fromEntries(
    Object.entries(value).filter(([k]) => !VALUE_CHECKS.has(k)).map(([k, v]) => [k, k === 'properties' && isPlainObject(v) ? Object.fromEntries(Object.entries(v).map(([p, s]) => [p, shapeOnly(s)])) : shapeOnly(v)]),
  );
}

/** A tool as tools/list describes it. */
export function describeTool(tool: Tool): Json {
  return {
    name: tool.name,
    title: tool.annotations.title,
    description: tool.description,
    inputSchema: jsonSchema(tool.input, 'input'),
    outputSchema: jsonSchema(tool.output, 'output'),
    annotations: tool.annotations,
  };
}

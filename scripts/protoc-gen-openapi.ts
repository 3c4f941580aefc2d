#!/usr/bin/env node
// A buf plugin (buf.gen.yaml; `npm run gen`): the OpenAPI 3.1 document of every REST route
// serve answers, openapi.json, made from proto/ — each method's google.api.http rule is an
// operation (path variables, the body field, the other fields as query parameters), each
// message a schema in its proto3 JSON form (what the REST API speaks), field behaviours as
// required/readOnly/writeOnly, comments as descriptions, errors as the AIP-193 Status body.
// serve's routes that no .proto describes (its control API, OIDC, OAuth, the console) come
// from openapi-extensions.ts, marked `x-pctl-extension: true`, as is a method whose comment
// starts "serve's extension". The vendor's v1 packages (chainguard.*) are marked deprecated.
// test/proto-gen.test.ts regenerates it and fails when the checked-in file is stale.
import { create, createFileRegistry, getExtension, ScalarType, type DescEnum, type DescField, type DescMessage, type DescMethod, type DescService } from '@bufbuild/protobuf';
import { CodeGeneratorResponse_Feature, CodeGeneratorResponseSchema, FileDescriptorSetSchema, type CodeGeneratorRequest } from '@bufbuild/protobuf/wkt';
import { HttpRuleSchema, type HttpRule } from '../src/gen/google/api/http_pb.js';
import { getComments, runNodeJs } from '@bufbuild/protoplugin';
import { EXTENSION_PATHS, EXTENSION_SCHEMAS } from './openapi-extensions.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json | undefined };
type Schema = { [key: string]: Json | undefined };
type Operation = { [key: string]: Json | undefined };

const OUT = 'openapi.json';
/** The vendor's v1 services serve answers over REST (V1_SERVICES); its other generated files (STS, the v2 packages …) are not REST routes of serve here. */
const V1_SERVED = new Set([
  'chainguard.platform.iam.Groups', 'chainguard.platform.iam.Identities', 'chainguard.platform.iam.Roles', 'chainguard.platform.iam.RoleBindings',
  'chainguard.platform.iam.IdentityProviders', 'chainguard.platform.iam.GroupInvites', 'chainguard.platform.iam.GroupAccountAssociations',
  'chainguard.platform.registry.Registry', 'chainguard.platform.registry.Vulnerabilities', 'chainguard.platform.vulnerabilities.v1.Advisories',
]);
/**
 * The vendor's published packages serve answers (src/server/rpc/vendor-services.ts), v2 and
 * v2beta1: each of their REST rules is an operation, the spec's where it has that shape.
 */
const PUBLISHED_PACKAGE = /^chainguard\.platform\.(iam|registry|vulnerabilities|advisory|libraries|events|ping)\.(v2|v2beta1)$/;
/** The vendor's sign-in services serve answers over REST (src/server/routes/sts.ts, published/). */
const SIGN_IN_SERVED = new Set(['chainguard.platform.oidc.SecurityTokenService', 'chainguard.platform.auth.Auth']);
const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const EXTENSION_COMMENT = /^serve's extension\b/i;
/** A query parameter used by this many operations or more is a shared one (components.parameters). */
const SHARED_PARAMETER_USES = 3;

// Field behaviours (google/api/field_behavior.proto).
const REQUIRED = 2;
const OUTPUT_ONLY = 3;
const INPUT_ONLY = 4;
const IMMUTABLE = 5;

/** The spec's shared list parameters (platform-api-v2.md, "Shared List parameters"), where proto/ says nothing of a field. */
const LIST_PARAMETERS: Record<string, { description: string; example?: Json }> = {
  page_size: { description: 'Results per page. Default 50, maximum 200.', example: 50 },
  page_token: { description: "Opaque cursor taken from the previous response's `nextPageToken`; empty or absent on the last page." },
  order_by: { description: 'A sortable field name, optionally followed by a space and `desc` (`name desc`); `uid`, `name`, `createTime`, `updateTime` (also written `created_at`).', example: 'name desc' },
  skip: { description: 'Number of results to skip, for random-access page jumping; the response field `skipped` echoes it.', example: 0 },
  'uidp.descendants_of': { description: 'Scopes the listing to everything below the given group or organization uid.' },
  'uidp.children_of': { description: 'Scopes the listing to direct children of the given uid.' },
  name: { description: 'Exact-match filter on name.', example: 'platform' },
  update_mask: { description: 'The fields to change, comma-separated (`description,name`); without it, every field the body holds.', example: 'description' },
};

/** Examples of fields by JSON name, for readers and tools that show one (Swagger UI, Prism). */
const FIELD_EXAMPLES: Record<string, Json> = {
  uid: '3f0f5a3c6f1c4bd2a6d2b0f6e9c8a7d1e2f3a4b5/9c8d7e6f5a4b3c2d',
  parent: '3f0f5a3c6f1c4bd2a6d2b0f6e9c8a7d1e2f3a4b5',
  name: 'platform',
  description: 'The platform team',
  createTime: '2026-01-01T00:00:00Z',
  updateTime: '2026-01-01T00:00:00Z',
  nextPageToken: '',
  totalCount: '1',
  email: 'someone@example.com',
};

function main(request: CodeGeneratorRequest): string {
  const registry = createFileRegistry(create(FileDescriptorSetSchema, { file: request.protoFile }));
  const http = registry.getExtension('google.api.http');
  const behavior = registry.getExtension('google.api.field_behavior');
  if (!http || !behavior) throw new Error('proto/ must import google/api/annotations.proto and google/api/field_behavior.proto');
  const behaviours = (field: DescField): number[] => (field.proto.options ? (getExtension(field.proto.options, behavior) as number[]) : []);
  // A method without the option reads as an empty rule (no pattern): one serve has no route for.
  const ruleOf = (method: DescMethod): HttpRule | undefined =>
    method.proto.options ? (getExtension(method.proto.options, http) as HttpRule | undefined) : undefined;

  const schemas: Record<string, Schema> = {};
  /** The schema of a message (once, by its full name), and of the messages and enums it uses. */
  function messageRef(message: DescMessage): Schema {
    const wkt = WELL_KNOWN[message.typeName];
    if (wkt) return wkt;
    if (!schemas[message.typeName]) {
      schemas[message.typeName] = {}; // placeholder: messages may refer to themselves
      schemas[message.typeName] = messageSchema(message, { update: false });
    }
    return ref(message.typeName);
  }
  function enumRef(e: DescEnum): Schema {
    schemas[e.typeName] ??= { type: 'string', enum: e.values.map((v) => v.name), ...describe(e) };
    return ref(e.typeName);
  }
  function messageSchema(message: DescMessage, { update }: { update: boolean }): Schema {
    const properties: Record<string, Json> = {};
    const required: string[] = [];
    for (const field of message.fields) {
      const b = behaviours(field);
      const annotations: Schema = { ...describe(field) };
      if (b.includes(OUTPUT_ONLY)) annotations.readOnly = true;
      if (b.includes(INPUT_ONLY)) annotations.writeOnly = true;
      if (b.includes(IMMUTABLE)) annotations.description = joinText(annotations.description as string | undefined, 'Immutable: set on create, never changed.');
      const example = FIELD_EXAMPLES[field.jsonName];
      if (example !== undefined && field.fieldKind === 'scalar') annotations.examples = [example];
      properties[field.jsonName] = withAnnotations(fieldSchema(field), annotations);
      if (b.includes(REQUIRED) && !update) required.push(field.jsonName);
    }
    return {
      type: 'object',
      ...describe(message),
      properties,
      ...(required.length ? { required } : {}),
      additionalProperties: false,
    };
  }
  function fieldSchema(field: DescField): Schema {
    switch (field.fieldKind) {
      case 'scalar': return scalarSchema(field.scalar);
      case 'enum': return enumRef(field.enum);
      case 'message': return messageRef(field.message);
      case 'list':
        return { type: 'array', items: field.listKind === 'scalar' ? scalarSchema(field.scalar) : field.listKind === 'enum' ? enumRef(field.enum) : messageRef(field.message) };
      case 'map': {
        const value = field.mapKind === 'scalar' ? scalarSchema(field.scalar) : field.mapKind === 'enum' ? enumRef(field.enum) : messageRef(field.message);
        // JSON object keys are strings: an integer key is its decimal text.
        const keys = field.mapKey === ScalarType.STRING ? {} : field.mapKey === ScalarType.BOOL ? { propertyNames: { enum: ['true', 'false'] } } : { propertyNames: { pattern: '^-?[0-9]+$' } };
        return { type: 'object', ...keys, additionalProperties: value };
      }
    }
  }

  // ---- operations, from each method's google.api.http rule ----
  const paths: Record<string, Record<string, Json>> = {};
  const pathOfShape: Record<string, string> = {};
  const operationIds = new Set<string>();
  const queryUses = new Map<string, { parameter: Schema; uses: number }>();
  const tags: Schema[] = [];
  /** The spec's creates by collection (`/iam/v2/groups`), for the published create rule on each (`POST /iam/v2/groups/{parent}`). */
  const specCreates = new Map<string, { service: DescService; method: DescMethod }>();
  const services = [...registry.files].filter((file) => request.fileToGenerate.includes(file.proto.name)).flatMap((file) => file.services).filter(documented);
  // The spec's shapes first: a published rule of the same shape is the spec's operation.
  for (const service of [...services.filter((s) => !isPublished(s)), ...services.filter(isPublished)]) {
    const served = service.methods.map((method) => [method, ruleOf(method)] as const).filter(([, rule]) => rule?.pattern.case);
    if (!served.length) continue; // gRPC's own (reflection)
    tags.push({ name: service.typeName, ...describe(service), ...(isV1(service) ? { 'x-deprecated': true } : {}) });
    for (const [method, rule] of served) {
      for (const [i, binding] of [rule!, ...rule!.additionalBindings].entries()) {
        const [verb, template] = verbAndPath(method, binding);
        if (!isPublished(service)) {
          if (verb === 'post' && binding.body === '*' && !template.includes('{') && !template.includes(':')) specCreates.set(template, { service, method });
          addOperation(verb, template, operationOf(service, method, binding, i));
          continue;
        }
        const published = `${service.typeName}.${method.name}`;
        const existing = paths[pathOfShape[shapeOf(template)] ?? '']?.[verb] as Operation | undefined;
        if (existing) {
          // The spec shows this shape: its operation (and JSON) answers the published rule too.
          existing['x-published-methods'] = [...((existing['x-published-methods'] as string[] | undefined) ?? []), published];
          continue;
        }
        const spec = verb === 'post' && /^(.*)\/\{parent\}$/.exec(template)?.[1];
        const specCreate = spec ? specCreates.get(spec) : undefined;
        const operation = specCreate
          ? publishedCreateOf(specCreate.service, specCreate.method, spec as string)
          : operationOf(service, method, binding, i, service.file.proto.package.endsWith('.v2beta1') ? '_v2beta1' : '');
        operation['x-published-methods'] = [published];
        addOperation(verb, template, operation);
      }
    }
  }

  function addOperation(verb: string, template: string, operation: Operation): void {
    // Paths that differ only in their variables' names are one path (OpenAPI): the
    // first one seen names them, and an operation's parameters follow its names.
    const path = (pathOfShape[shapeOf(template)] ??= template);
    const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
    let k = 0;
    for (const p of (operation.parameters as Schema[] | undefined) ?? []) if (p.in === 'path') p.name = names[k++]!;
    if ((paths[path] ??= {})[verb]) throw new Error(`two operations are ${verb} ${path}`);
    paths[path][verb] = operation;
  }

  /**
   * The published create rule of a collection the spec creates in (`POST /iam/v2/groups/{parent}`,
   * the bare resource as the body): serve answers it with the spec's create (src/server/pipeline/dispatch.ts),
   * so its body and answer are the spec's resource.
   */
  function publishedCreateOf(service: DescService, method: DescMethod, collection: string): Operation {
    const resource = method.input.fields.find((f) => f.name !== 'parent');
    if (!resource) throw new Error(`${method.input.typeName} has no resource field beside parent`);
    const rule = create(HttpRuleSchema, { pattern: { case: 'post', value: `${collection}/{parent=**}` }, body: resource.name });
    return operationOf(service, method, rule, 0, '_published');
  }

  function operationOf(service: DescService, method: DescMethod, rule: HttpRule, binding: number, idSuffix = ''): Operation {
    const [, template] = verbAndPath(method, rule);
    const comments = describe(method).description as string | undefined;
    const operationId = `${service.name}_${method.name}${binding ? `_${binding}` : ''}${idSuffix}`;
    if (operationIds.has(operationId)) throw new Error(`two operations are ${operationId}: name one of the services differently`);
    operationIds.add(operationId);
    const pathFields = [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
    const parameters: Json[] = pathFields.map((fieldPath) => {
      const field = fieldAt(method.input, fieldPath);
      return {
        name: fieldPath, in: 'path', required: true,
        description: joinText(joinText(`The request's \`${fieldPath}\`.`, describe(field).description as string | undefined), multiSegment(rule, fieldPath) ? 'May hold `/` (a uid names its ancestors); send it as is or as %2F.' : undefined),
        schema: fieldSchema(field),
      };
    });
    const body = rule.body;
    if (body !== '*') {
      const skip = new Set([...pathFields.map((p) => p.split('.')[0]!), ...(body ? [body] : [])]);
      for (const field of method.input.fields) if (!skip.has(field.name)) parameters.push(...queryParameters(field, ''));
    }
    const operation: Operation = {
      operationId,
      tags: [service.typeName],
      ...(comments ? { summary: summaryOf(comments), description: comments } : {}),
      ...(parameters.length ? { parameters } : {}),
      ...(body ? { requestBody: requestBodyOf(method, body, pathFields) } : {}),
      responses: {
        '200': responseOf(method.output, isPublished(service)),
        default: { $ref: '#/components/responses/Error' },
      },
    };
    if (isV1(service) || method.proto.options?.deprecated || service.proto.options?.deprecated) operation.deprecated = true;
    if (comments && EXTENSION_COMMENT.test(comments)) operation['x-pctl-extension'] = true;
    return operation;
  }

  /** A request field as query parameters: a nested message by its dotted field names (`uidp.descendants_of`). */
  function queryParameters(field: DescField, prefix: string): Json[] {
    const name = `${prefix}${field.name}`;
    if (field.fieldKind === 'message' && !WELL_KNOWN[field.message.typeName]) return field.message.fields.flatMap((f) => queryParameters(f, `${name}.`));
    const schema: Schema = field.fieldKind === 'message' ? WELL_KNOWN[field.message.typeName]! : fieldSchema(field);
    const shared = LIST_PARAMETERS[name];
    const described = describe(field).description ?? shared?.description;
    const parameter: Schema = {
      name, in: 'query', ...(described ? { description: described } : {}), schema,
      ...(shared?.example !== undefined ? { example: shared.example } : {}),
      ...(field.fieldKind === 'list' ? { explode: true } : {}),
    };
    const key = JSON.stringify(parameter);
    const seen = queryUses.get(key) ?? { parameter, uses: 0 };
    seen.uses++;
    queryUses.set(key, seen);
    return [parameter];
  }

  function requestBodyOf(method: DescMethod, body: string, pathFields: string[]): Json {
    let schema: Schema;
    if (body === '*') {
      const inPath = new Set(pathFields.map((p) => p.split('.')[0]));
      if (!inPath.size) {
        schema = messageRef(method.input);
      } else {
        // The request message less the fields the path carries.
        messageRef(method.input);
        const whole = schemas[method.input.typeName]!;
        const properties = Object.fromEntries(Object.entries(whole.properties as Record<string, Json>).filter(([k]) => !method.input.fields.some((f) => f.jsonName === k && inPath.has(f.name))));
        const required = ((whole.required as string[] | undefined) ?? []).filter((k) => k in properties);
        schema = { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false };
      }
    } else {
      const field = fieldAt(method.input, body);
      // PATCH carries the fields to change (update_mask names them): none is required.
      if (field.fieldKind === 'message' && method.input.fields.some((f) => f.name === 'update_mask')) {
        messageRef(field.message);
        const name = `${field.message.typeName}.Update`;
        schemas[name] ??= { ...messageSchema(field.message, { update: true }), description: `The fields of ${field.message.name} to change (update_mask names them; without it, every field the body holds).` };
        schema = ref(name);
      } else {
        schema = fieldSchema(field);
      }
    }
    return { required: true, content: { 'application/json': { schema } } };
  }

  /** A published rule answers as the vendor's gateway does: every field, `{}` for Empty (src/server/surfaces/published/). */
  function responseOf(output: DescMessage, published: boolean): Json {
    if (output.typeName === 'google.protobuf.Empty') {
      return published ? { description: 'Done (an empty object).', content: { 'application/json': { schema: WELL_KNOWN['google.protobuf.Empty']! } } } : { description: 'Done (an empty body).' };
    }
    return { description: `The ${output.name}.`, content: { 'application/json': { schema: messageRef(output) } } };
  }

  // Query parameters many operations share become components.parameters, referred to by name.
  const parameters: Record<string, Json> = {};
  for (const { parameter, uses } of queryUses.values()) {
    if (uses < SHARED_PARAMETER_USES) continue;
    const name = parameter.name as string;
    if (parameters[name]) continue; // a differing one of the same name stays inline
    parameters[name] = parameter;
  }
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item) as Operation[]) {
      operation.parameters = (operation.parameters as Schema[] | undefined)?.map((p) =>
        p.in === 'query' && parameters[p.name as string] && JSON.stringify(parameters[p.name as string]) === JSON.stringify(p) ? { $ref: `#/components/parameters/${p.name as string}` } : p);
    }
  }

  for (const [path, item] of Object.entries(EXTENSION_PATHS)) {
    if (paths[path]) throw new Error(`${path} is both in proto/ and in openapi-extensions.ts`);
    paths[path] = item as Record<string, Json>;
  }
  messageRef(registry.getMessage('google.rpc.Status')!);
  for (const name of ['google.rpc.ErrorInfo', 'google.rpc.BadRequest', 'google.rpc.PreconditionFailure']) messageRef(registry.getMessage(name)!);
  // The REST body of an error is the Status with its code's name beside the number, as
  // Google's APIs send it; details are `repeated Any`, in JSON each an object naming its @type.
  const status = schemas['google.rpc.Status']!;
  status.required = ['code', 'message'];
  (status.properties as Record<string, Json>).status = { type: 'string', enum: CODE_NAMES, description: "The code's name (google.rpc.Code)." };
  (status.properties as Record<string, Json>).details = {
    type: 'array', description: 'ErrorInfo (reason, domain, metadata), and BadRequest (field violations) or PreconditionFailure where they apply.',
    items: { type: 'object', required: ['@type'], properties: { '@type': { type: 'string', examples: ['type.googleapis.com/google.rpc.ErrorInfo'] } }, additionalProperties: true },
  };

  const document = {
    openapi: '3.1.0',
    info: {
      title: 'Platform Management API (as pctl serve answers it)',
      version: 'v2',
      description: [
        'The REST API of the Platform Management API v2, with the v1 calls serve still answers (deprecated) and serve\'s own extensions (`x-pctl-extension: true`).',
        'Generated from proto/ by scripts/protoc-gen-openapi.ts (`npm run gen`); the JSON of every body is the proto3 JSON mapping of its message.',
        'Errors are AIP-193: a google.rpc.Status body (`code`, `message`, `details`) with the HTTP status of its code.',
      ].join('\n\n'),
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/', description: 'The serve that sent this document' }],
    security: [{ bearerAuth: [] }],
    tags: [...tags, { name: 'pctl serve', description: "serve's own endpoints: the control API (/_pctl/), OIDC discovery, OAuth sign-in, the console and this document." }],
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
    components: {
      schemas: Object.fromEntries([...Object.entries(schemas), ...Object.entries<Json>(EXTENSION_SCHEMAS)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
      parameters: Object.fromEntries(Object.entries(parameters).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
      responses: {
        Error: {
          description: 'An AIP-193 error: the google.rpc.Status of the failure, its HTTP status the one of its code (3 → 400, 5 → 404, 16 → 401 …).',
          content: {
            'application/json': {
              schema: ref('google.rpc.Status'),
              examples: {
                notFound: { value: { code: 5, message: 'Group not found: 3f0f5a3c6f1c4bd2a6d2b0f6e9c8a7d1e2f3a4b5/9c8d7e6f5a4b3c2d', status: 'NOT_FOUND', details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'NOT_FOUND', domain: 'platform.api.v2', metadata: { resource: 'Group', uid: '3f0f5a3c6f1c4bd2a6d2b0f6e9c8a7d1e2f3a4b5/9c8d7e6f5a4b3c2d' } }] } },
                invalid: { value: { code: 3, message: 'Invalid argument: name: must match ^[a-z0-9 ._-]{1,}$', status: 'INVALID_ARGUMENT', details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'INVALID_ARGUMENT', domain: 'platform.api.v2' }, { '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field: 'name', description: 'must match ^[a-z0-9 ._-]{1,}$' }] }] } },
              },
            },
          },
        },
      },
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'A token of serve\'s issuer (`pctl serve token`, DATA_DIR/owner.token) or of an issuer it trusts.' },
      },
    },
  };
  return `${JSON.stringify(document, null, 2)}\n`;

  function describe(desc: DescMessage | DescField | DescEnum | DescService | DescMethod): Schema {
    const text = getComments(desc).leading?.trim();
    return text ? { description: text.split('\n').map((line) => line.trim()).join('\n') } : {};
  }

  /** serve's REST routes: its own v2 packages, the vendor's v1 services it answers (src/server/surfaces/v1/surface.ts), its published v2 and v2beta1, sign-in. */
  function documented(service: DescService): boolean {
    return service.file.proto.package.startsWith('platform.') || V1_SERVED.has(service.typeName) || isPublished(service);
  }

  function isPublished(service: DescService): boolean {
    return PUBLISHED_PACKAGE.test(service.file.proto.package) || SIGN_IN_SERVED.has(service.typeName);
  }

  function isV1(service: DescService): boolean {
    return V1_SERVED.has(service.typeName);
  }

}

/** google.rpc.Code, by number. */
const CODE_NAMES = ['OK', 'CANCELLED', 'UNKNOWN', 'INVALID_ARGUMENT', 'DEADLINE_EXCEEDED', 'NOT_FOUND', 'ALREADY_EXISTS', 'PERMISSION_DENIED', 'RESOURCE_EXHAUSTED',
  'FAILED_PRECONDITION', 'ABORTED', 'OUT_OF_RANGE', 'UNIMPLEMENTED', 'INTERNAL', 'UNAVAILABLE', 'DATA_LOSS', 'UNAUTHENTICATED'];

/** proto3 JSON of the well-known types. */
const WELL_KNOWN: Record<string, Schema> = {
  'google.protobuf.Timestamp': { type: 'string', format: 'date-time' },
  'google.protobuf.Duration': { type: 'string', pattern: '^-?[0-9]+(\\.[0-9]{1,9})?s$', examples: ['604800s'] },
  'google.protobuf.FieldMask': { type: 'string', description: 'Field paths, comma-separated (`description,name`).' },
  'google.protobuf.Struct': { type: 'object', additionalProperties: true },
  'google.protobuf.Value': {},
  'google.protobuf.ListValue': { type: 'array' },
  'google.protobuf.Empty': { type: 'object', additionalProperties: false },
  'google.protobuf.Any': { type: 'object', required: ['@type'], properties: { '@type': { type: 'string' } }, additionalProperties: true },
  'google.protobuf.StringValue': { type: ['string', 'null'] },
  'google.protobuf.BoolValue': { type: ['boolean', 'null'] },
  'google.protobuf.Int32Value': { type: ['integer', 'null'], format: 'int32' },
  'google.protobuf.UInt32Value': { type: ['integer', 'null'], format: 'uint32' },
  'google.protobuf.Int64Value': { type: ['string', 'null'], format: 'int64' },
  'google.protobuf.UInt64Value': { type: ['string', 'null'], format: 'uint64' },
  'google.protobuf.DoubleValue': { type: ['number', 'null'] },
  'google.protobuf.FloatValue': { type: ['number', 'null'] },
  'google.protobuf.BytesValue': { type: ['string', 'null'], contentEncoding: 'base64' },
};

/** proto3 JSON of a scalar (ScalarType numbers): 64-bit integers are decimal strings, bytes base64. */
function scalarSchema(scalar: number): Schema {
  switch (scalar) {
    case 1: case 2: return { type: 'number' }; // double, float
    case 3: case 16: case 18: return { type: 'string', format: 'int64', pattern: '^-?[0-9]+$' }; // int64, sfixed64, sint64
    case 4: case 6: return { type: 'string', format: 'uint64', pattern: '^[0-9]+$' }; // uint64, fixed64
    case 5: case 15: case 17: return { type: 'integer', format: 'int32' }; // int32, sfixed32, sint32
    case 7: case 13: return { type: 'integer', format: 'uint32', minimum: 0 }; // fixed32, uint32
    case 8: return { type: 'boolean' };
    case 9: return { type: 'string' };
    case 12: return { type: 'string', contentEncoding: 'base64' };
    default: throw new Error(`scalar type ${scalar}`);
  }
}

/** Annotations beside a $ref are allowed in 3.1; kept beside it rather than merged into the target. */
function withAnnotations(schema: Schema, annotations: Schema): Schema {
  return { ...schema, ...annotations };
}

/** A comment's first sentence, on one line. */
function summaryOf(comment: string): string {
  const paragraph = comment.split(/\n\s*\n/)[0]!.replace(/\s*\n\s*/g, ' ');
  return /^.*?[.:](?=\s|$)/.exec(paragraph)?.[0].replace(/:$/, '') ?? paragraph;
}

function joinText(a: string | undefined, b: string | undefined): string | undefined {
  return [a, b].filter(Boolean).join('\n\n') || undefined;
}

/** A path template with its variables unnamed: `/iam/v2/groups/{}`. */
function shapeOf(template: string): string {
  return template.replace(/\{[^}]+\}/g, '{}');
}

function verbAndPath(method: DescMethod, rule: HttpRule): [string, string] {
  const { case: verb, value } = rule.pattern;
  if (!verb || verb === 'custom' || typeof value !== 'string') throw new Error(`${method.parent.typeName}.${method.name}: a google.api.http rule needs get/put/post/patch/delete`);
  // `{group.uid=**}` → `{group.uid}`: OpenAPI names the variable; the description says it may hold `/`.
  return [verb, value.replace(/\{([^}=]+)(=[^}]*)?\}/g, '{$1}')];
}

function multiSegment(rule: HttpRule, fieldPath: string): boolean {
  const template = typeof rule.pattern.value === 'string' ? rule.pattern.value : '';
  return new RegExp(`\\{${fieldPath.replace(/\./g, '\\.')}=[^}]*\\*\\*`).test(template);
}

function fieldAt(message: DescMessage, fieldPath: string): DescField {
  let desc: DescMessage | undefined = message;
  let field: DescField | undefined;
  for (const name of fieldPath.split('.')) {
    field = desc?.fields.find((f) => f.name === name);
    if (!field) throw new Error(`${message.typeName} has no field ${fieldPath} (google.api.http)`);
    desc = field.fieldKind === 'message' ? field.message : undefined;
  }
  return field!;
}

runNodeJs({
  name: 'protoc-gen-openapi',
  version: 'v1',
  run(request) {
    return create(CodeGeneratorResponseSchema, {
      supportedFeatures: BigInt(CodeGeneratorResponse_Feature.PROTO3_OPTIONAL),
      file: [{ name: OUT, content: main(request) }],
    });
  },
});

// RPC ⇄ REST, by each method's google.api.http rule (the AIP-127 transcoding that Google's
// gateways do): the request message names the REST call the rule describes (path variables
// from its fields, the `body` field or the whole rest as the JSON body, what is left as query
// parameters), and a REST answer's JSON becomes the response message. The JSON of both sides
// is the proto3 JSON mapping, which is what the REST API speaks. The path and query are read
// from the message's fields directly; the JSON body is made only when a route reads it.
import { create, fromJson, getExtension, isFieldSet, toJson, type DescField, type DescMessage, type DescMethod, type JsonObject, type JsonValue, type Message } from '@bufbuild/protobuf';
import { invalidField } from '../../../api/errors.js';
import { http as httpRuleExtension } from '../../../gen/google/api/annotations_pb.js';

/** A REST call derived from a request message: what the dispatcher needs besides auth. */
export interface RestCall {
  method: string;
  /** Percent-encoded, as on the wire. */
  path: string;
  query: URLSearchParams;
  /** The JSON body (undefined: none), made when asked for. */
  body(): JsonValue | undefined;
}

interface Variable {
  /** The field path as the rule writes it (`group.uid`). */
  fieldPath: string;
  /** The fields along it. */
  fields: DescField[];
  /** `**` (and `=**`) keeps slashes: a uid is a path of its own. */
  multiSegment: boolean;
}

export interface Transcoder {
  /** The REST method and path template (`GET /iam/v2/groups/{uid=**}`). */
  readonly verb: string;
  readonly template: string;
  toRest(request: Message): RestCall;
  fromRest(body: unknown): Message;
}

/** Whether a method has a REST route: the vendor leaves its internal ones (GroupInvites/CreateWithGroup) without a google.api.http rule. */
export function hasHttpRule(method: DescMethod): boolean {
  return Boolean(method.proto.options && getExtension(method.proto.options, httpRuleExtension).pattern.case);
}

/** The transcoder of one RPC; throws when the method has no http rule (a bug in proto/, caught at startup). */
export function transcoderOf(method: DescMethod): Transcoder {
  const rule = method.proto.options ? getExtension(method.proto.options, httpRuleExtension) : undefined;
  if (!rule) throw new Error(`${method.parent.typeName}.${method.name} has no google.api.http rule`);
  const { case: verb, value: template } = rule.pattern;
  if (!verb || verb === 'custom' || typeof template !== 'string') {
    throw new Error(`${method.parent.typeName}.${method.name} has no google.api.http get/post/patch/delete rule`);
  }
  const input = method.input;
  const variables: Variable[] = [];
  const parts = template.split(/(\{[^}]+\})/).filter(Boolean).map((part) => {
    const m = /^\{([^=}]+)(?:=([^}]*))?\}$/.exec(part);
    if (!m) return part;
    const fieldPath = m[1]!;
    const variable: Variable = { fieldPath, fields: fieldsAlong(input, fieldPath), multiSegment: (m[2] ?? '*').includes('**') };
    variables.push(variable);
    return variable;
  });
  // '' (no body), '*' (the whole request) or one top-level field.
  const bodyField = rule.body === '' || rule.body === '*' ? undefined : fieldsAlong(input, rule.body)[0]!;
  // The fields left for the query: neither the body nor the first field of a path variable.
  const inPath = new Set(variables.map((v) => v.fields[0]!));
  const queryFields = rule.body === '*' ? [] : input.fields.filter((f) => f !== bodyField && !inPath.has(f));

  return {
    verb: verb.toUpperCase(),
    template,
    toRest(request) {
      const path = parts.map((part) => {
        if (typeof part === 'string') return part;
        const value = valueAt(request, part.fields);
        if (typeof value !== 'string' || value === '') throw invalidField(part.fieldPath, 'is required');
        return part.multiSegment ? value.split('/').map(encodeURIComponent).join('/') : encodeURIComponent(value);
      }).join('');
      const query = new URLSearchParams();
      appendQuery(query, request, queryFields, '');
      const body = (): JsonValue | undefined => {
        if (rule.body === '') return undefined;
        // The request less the path variables (a gateway takes those from the path: the
        // path's copy of `group.uid` is the one that counts); the body field's value, or all of it.
        const json = toJson(input, request) as JsonObject;
        for (const v of variables) removePath(json, v.fields.map((f) => f.jsonName));
        return bodyField ? (json[bodyField.jsonName] ?? {}) : json;
      };
      return { method: verb.toUpperCase(), path, query, body };
    },
    fromRest(body) {
      if (body === undefined) return create(method.output);
      return fromJson(method.output, body as JsonValue);
    },
  };
}

/** `identity_provider.uid` → its fields, checking each exists. */
function fieldsAlong(message: DescMessage, fieldPath: string): DescField[] {
  const out: DescField[] = [];
  let desc: DescMessage | undefined = message;
  for (const name of fieldPath.split('.')) {
    const field: DescField | undefined = desc?.fields.find((f) => f.name === name);
    if (!field) throw new Error(`${message.typeName} has no field ${fieldPath} (google.api.http)`);
    out.push(field);
    desc = field.fieldKind === 'message' ? field.message : undefined;
  }
  return out;
}

function valueAt(message: Message, fields: DescField[]): unknown {
  let node: unknown = message;
  for (const f of fields) node = node === undefined ? undefined : (node as Record<string, unknown>)[f.localName];
  return node;
}

function removePath(json: JsonObject, path: string[]): void {
  let node: JsonValue | undefined = json;
  for (const key of path.slice(0, -1)) node = node && typeof node === 'object' && !Array.isArray(node) ? node[key] : undefined;
  if (node && typeof node === 'object' && !Array.isArray(node)) delete node[path[path.length - 1]!];
}

/**
 * The set fields of a request as query parameters by proto name: `page_size`,
 * `uidp.descendants_of`; repeated fields once per value, enums by name, a FieldMask as its
 * comma-separated paths. The spec's own spellings, which the REST routes read.
 */
/** A well-known type's JSON form as a query value: its string, number or bool as text; anything else as JSON. */
function queryValue(json: JsonValue): string {
  return typeof json === 'object' && json !== null ? JSON.stringify(json) : String(json);
}

export function appendQuery(query: URLSearchParams, message: Message, fields: readonly DescField[], prefix: string): void {
  for (const field of fields) {
    if (!isFieldSet(message, field)) continue;
    const name = `${prefix}${field.name}`;
    const value = (message as unknown as Record<string, unknown>)[field.localName];
    switch (field.fieldKind) {
      case 'message':
        if (field.message.typeName === 'google.protobuf.FieldMask') query.append(name, (value as { paths: string[] }).paths.join(','));
        else if (field.message.typeName.startsWith('google.protobuf.')) query.append(name, queryValue(toJson(field.message, value as Message)));
        else appendQuery(query, value as Message, field.message.fields, `${name}.`);
        break;
      case 'enum':
        query.append(name, field.enum.value[value as number]?.name ?? String(value));
        break;
      case 'list':
        for (const v of value as unknown[]) query.append(name, field.listKind === 'enum' ? (field.enum.value[v as number]?.name ?? String(v)) : String(v));
        break;
      default:
        query.append(name, String(value));
    }
  }
}

// RPC ⇄ REST, by each method's google.api.http rule (the AIP-127 transcoding that Google's
// gateways do): the request message becomes the REST call the rule names (path variables
// from its fields, the `body` field or the whole rest as the JSON body, what is left as
// query parameters), and the REST answer's JSON becomes the response message. The JSON of
// both sides is the proto3 JSON mapping, which is what the REST API speaks.
import { create, fromJson, getExtension, toJson, type DescField, type DescMessage, type DescMethod, type JsonObject, type JsonValue, type Message } from '@bufbuild/protobuf';
import { invalidField } from '../../api/errors.js';
import { http as httpRuleExtension } from '../../gen/google/api/annotations_pb.js';

/** A REST call derived from a request message: what the dispatcher needs besides auth. */
export interface RestCall {
  method: string;
  /** Percent-encoded, as on the wire. */
  path: string;
  query: URLSearchParams;
  /** The JSON body (undefined: none). */
  body: JsonValue | undefined;
}

interface Variable {
  /** The field path as the rule writes it (`group.uid`). */
  fieldPath: string;
  /** The same path in JSON names (`group.uid`, `identityProvider.uid`). */
  jsonPath: string[];
  /** `**` (and `=**`) keeps slashes: a uid is a path of its own. */
  multiSegment: boolean;
}

export interface Transcoder {
  toRest(request: Message): RestCall;
  fromRest(body: unknown): Message;
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
    const variable: Variable = { fieldPath, jsonPath: jsonPathOf(input, fieldPath), multiSegment: (m[2] ?? '*').includes('**') };
    variables.push(variable);
    return variable;
  });
  // '' (no body), '*' (the whole request) or one top-level field, by JSON and proto name.
  const bodyField = rule.body === '' || rule.body === '*' ? rule.body : jsonPathOf(input, rule.body)[0]!;
  const bodyProtoName = rule.body;

  return {
    toRest(request) {
      const json = toJson(input, request) as JsonObject;
      const path = parts.map((part) => {
        if (typeof part === 'string') return part;
        const value = takePath(json, part.jsonPath);
        if (typeof value !== 'string' || value === '') throw invalidField(part.fieldPath, 'is required');
        return part.multiSegment ? value.split('/').map(encodeURIComponent).join('/') : encodeURIComponent(value);
      }).join('');
      let body: JsonValue | undefined;
      if (bodyField === '*') {
        body = json;
      } else if (bodyField !== '') {
        body = json[bodyField] ?? {};
        delete json[bodyField];
      }
      const query = new URLSearchParams();
      if (bodyField !== '*') {
        const rest = toJson(input, request, { useProtoFieldName: true }) as JsonObject;
        for (const v of variables) takePath(rest, v.fieldPath.split('.'));
        if (bodyField !== '') delete rest[bodyProtoName];
        appendQuery(query, input, rest, '');
      }
      return { method: verb.toUpperCase(), path, query, body };
    },
    fromRest(body) {
      if (body === undefined) return create(method.output);
      return fromJson(method.output, body as JsonValue);
    },
  };
}

/** `identity_provider.uid` → ['identityProvider', 'uid'], checking each field exists. */
function jsonPathOf(message: DescMessage, fieldPath: string): string[] {
  const out: string[] = [];
  let desc: DescMessage | undefined = message;
  for (const name of fieldPath.split('.')) {
    const field: DescField | undefined = desc?.fields.find((f) => f.name === name);
    if (!field) throw new Error(`${message.typeName} has no field ${fieldPath} (google.api.http)`);
    out.push(field.jsonName);
    desc = field.fieldKind === 'message' ? field.message : undefined;
  }
  return out;
}

/** Removes and returns the value at a JSON path. */
function takePath(json: JsonObject, path: string[]): JsonValue | undefined {
  let node: JsonValue | undefined = json;
  for (const key of path.slice(0, -1)) node = node && typeof node === 'object' && !Array.isArray(node) ? node[key] : undefined;
  if (!node || typeof node !== 'object' || Array.isArray(node)) return undefined;
  const last = path[path.length - 1]!;
  const value = node[last];
  delete node[last];
  return value;
}

/**
 * The set fields of a request (its proto-name JSON) as query parameters: `page_size`,
 * `uidp.descendants_of`; repeated fields once per value, enums by name, a FieldMask as its
 * comma-separated paths. The spec's own spellings, which the REST routes read.
 */
function appendQuery(query: URLSearchParams, desc: DescMessage, json: JsonObject, prefix: string): void {
  for (const field of desc.fields) {
    const value = json[field.name];
    if (value === undefined || value === null) continue;
    const name = `${prefix}${field.name}`;
    const nested = field.fieldKind === 'message' && !field.message.typeName.startsWith('google.protobuf.');
    if (nested && typeof value === 'object' && !Array.isArray(value)) appendQuery(query, field.message, value, `${name}.`);
    else if (Array.isArray(value)) for (const v of value) query.append(name, String(v));
    else query.append(name, String(value));
  }
}

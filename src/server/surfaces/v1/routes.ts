// REST → v1 RPC, by each method's google.api.http rule (the reverse of rpc/transcode.ts): the
// rule's path template becomes a pattern, and a call's path variables, query parameters and
// JSON body become the method's request message, read the way the vendor's gateway reads
// them (proto3 JSON in either spelling, unknown fields and parameters ignored).
import { fromJson, getExtension, ScalarType, type DescField, type DescMessage, type DescMethod, type JsonObject, type JsonValue, type Message } from '@bufbuild/protobuf';
import { ApiError, Code, invalidArgument, invalidField } from '../../../api/errors.js';
import { http as httpRuleExtension } from '../../../gen/google/api/annotations_pb.js';
import { unknownJsonFields } from '../proto-json.js';

export interface V1Route {
  method: DescMethod;
  /** GET, POST, PUT, DELETE. */
  verb: string;
  /** The rule's template: `/iam/v1/groups/{parent=**}`. */
  template: string;
  pattern: RegExp;
  /** The fields the pattern's groups fill, in order. */
  variables: string[];
  /** '' (no body), '*' (the whole request) or the one field the body is. */
  body: string;
}

export function routeOf(method: DescMethod): V1Route {
  const rule = method.proto.options ? getExtension(method.proto.options, httpRuleExtension) : undefined;
  const { case: verb, value: template } = rule?.pattern ?? {};
  if (!rule || !verb || verb === 'custom' || typeof template !== 'string') throw new Error(`${method.parent.typeName}.${method.name} has no google.api.http rule`);
  const variables: string[] = [];
  const source = template.split(/(\{[^}]+\})/).filter(Boolean).map((part) => {
    const m = /^\{([^=}]+)(?:=([^}]*))?\}$/.exec(part);
    if (!m) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    variables.push(m[1]!);
    return (m[2] ?? '*').includes('**') ? '(.+)' : '([^/]+)';
  }).join('');
  return { method, verb: verb.toUpperCase(), template, pattern: new RegExp(`^${source}$`), variables, body: rule.body };
}

/** The routes, most specific first: more literal text wins (`…/batch/{parent}` before `…/{parent}`, `{group}:check` before `{group}`). */
export function sortRoutes(routes: V1Route[]): V1Route[] {
  const literal = (r: V1Route) => r.template.replace(/\{[^}]+\}/g, '').length;
  return [...routes].sort((a, b) => literal(b) - literal(a));
}

/** The route a call takes: a 404 when no rule has its path, a 405 naming the allowed methods when none has its method. */
export function matchRoute(routes: readonly V1Route[], verb: string, path: string): { route: V1Route; values: string[] } {
  const allowed: string[] = [];
  for (const route of routes) {
    const m = route.pattern.exec(path);
    if (!m) continue;
    if (route.verb !== verb) {
      allowed.push(route.verb);
      continue;
    }
    const values = m.slice(1).map((v, i) => {
      try {
        return decodeURIComponent(v);
      } catch {
        throw invalidField(route.variables[i]!, 'is not a valid percent-encoded path element');
      }
    });
    return { route, values };
  }
  if (allowed.length) {
    const allow = [...new Set(allowed)].join(', ');
    throw new ApiError(Code.UNIMPLEMENTED, `Method ${verb} is not allowed on ${path} (allowed: ${allow})`, { reason: 'METHOD_NOT_ALLOWED', httpStatus: 405, headers: { allow } });
  }
  throw new ApiError(Code.NOT_FOUND, `No such v1 route: ${verb} ${path} (serve answers the v1 calls of its groups, identities, roles, role bindings, identity providers, invites, account associations, repos, tags and advisories; see docs/v1.md)`, { reason: 'ROUTE_NOT_FOUND' });
}

/**
 * The request message of a call: its body, then the query parameters (unless the body is the
 * whole request), then the path variables. A `strict` read refuses a body naming fields its
 * message has not (the published rules, as the spec's routes do); v1's ignores them, as the
 * vendor's v1 gateway does.
 */
export function requestOf(route: V1Route, values: string[], query: URLSearchParams, body: unknown, strict = false): Message {
  const input = route.method.input;
  let json: JsonObject = {};
  if (strict) {
    const bodyField = input.fields.find((f) => f.name === route.body);
    const bodyMessage = route.body === '*' ? input : bodyField?.fieldKind === 'message' ? bodyField.message : undefined;
    const unknown = bodyMessage ? unknownJsonFields(bodyMessage, body) : [];
    if (unknown.length) throw invalidArgument(unknown);
  }
  if (route.body === '*') {
    if (!isObject(body)) throw invalidField('body', 'must be a JSON object');
    json = { ...body };
  } else if (route.body !== '') {
    json[route.body] = body as JsonValue;
  }
  if (route.body !== '*') for (const [name, value] of query) setParam(input, json, name, value);
  // A variable may name a nested field (`{group.uid=**}`, the published update rules).
  route.variables.forEach((name, i) => {
    const path = name.split('.');
    let node = json;
    for (const key of path.slice(0, -1)) node = (node[key] = isObject(node[key]) ? { ...node[key] } : {});
    node[path.at(-1)!] = values[i]!;
  });
  try {
    return fromJson(input, json, { ignoreUnknownFields: true });
  } catch (err) {
    throw invalidField(route.body === '' ? 'query' : 'body', `is not a valid ${input.name}: ${(err as Error).message}`);
  }
}

const isObject = (v: unknown): v is JsonObject => Boolean(v) && typeof v === 'object' && !Array.isArray(v);

/** `uidp.descendants_of=X` into the JSON of `message` (proto or JSON names); repeated fields collect, bools parse; unknown names are ignored, as the vendor's gateway does. */
function setParam(message: DescMessage, json: JsonObject, name: string, value: string): void {
  const path = name.split('.');
  let desc = message;
  let node = json;
  for (let i = 0; i < path.length; i++) {
    const field: DescField | undefined = desc.fields.find((f) => f.name === path[i] || f.jsonName === path[i]);
    if (!field) return;
    if (i < path.length - 1) {
      if (field.fieldKind !== 'message') return;
      const next = node[field.name];
      node = (node[field.name] = isObject(next) ? next : {});
      desc = field.message;
      continue;
    }
    // A FieldMask's JSON names lowerCamelCase paths; the query may name them as proto does (`update_mask=role_uid`).
    const mask = field.fieldKind === 'message' && field.message.typeName === 'google.protobuf.FieldMask';
    const scalar = field.fieldKind === 'scalar' && field.scalar === ScalarType.BOOL ? parseBool(name, value)
      : mask ? value.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()) : value;
    if (field.fieldKind === 'list') {
      const list = node[field.name];
      node[field.name] = [...(Array.isArray(list) ? list : []), field.listKind === 'scalar' && field.scalar === ScalarType.BOOL ? parseBool(name, value) : value];
    } else {
      node[field.name] = scalar;
    }
  }
}

function parseBool(name: string, value: string): boolean {
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0' || value === '') return false;
  throw invalidField(name, 'must be true or false');
}

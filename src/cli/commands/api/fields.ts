// The request-building half of `pctl api`, modelled on `gh api`, kept free of I/O beyond
// reading `@file` / `@-` values so that it can be tested on its own. Every problem is a
// UsageError: exit 2, before any request is sent.
//
//   -f key=value       a string field
//   -F key=value       a typed field: true, false, null, numbers; @file reads a file, @- stdin
//   key[sub]=v         nested objects (gh's syntax), to any depth: a[b][c]=v
//   key[]=v            appends to an array: tags[]=a -f tags[]=b
//   -q key=value       a query parameter (repeat a key to repeat the parameter)
//   -H 'Name: value'   an extra request header
import { UsageError } from '../../errors.js';

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** Reads a file (or stdin for `-`) as text; missing files are the caller's UsageError. */
export type ReadSource = (source: string) => Promise<string>;

/** `key=value` at the first `=`; the key must not be empty. */
function splitPair(flag: string, raw: string): [string, string] {
  const eq = raw.indexOf('=');
  if (eq <= 0) throw new UsageError(`${flag} ${JSON.stringify(raw)}: expected key=value`);
  return [raw.slice(0, eq), raw.slice(eq + 1)];
}

/** `group[name][x]` → ['group', 'name', 'x']; `tags[]` → ['tags', '']; refuses anything else. */
export function parseKey(flag: string, key: string): string[] {
  const m = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key);
  if (!m) throw new UsageError(`${flag} ${JSON.stringify(key)}: a key is a name, optionally followed by [sub] parts (group[name]=x, tags[]=a)`);
  const parts = [m[1]!];
  for (const sub of m[2]!.matchAll(/\[([^[\]]*)\]/g)) parts.push(sub[1]!);
  // `a[]` must be last: `a[][b]` would need gh's array-of-objects rules, which no endpoint here needs.
  if (parts.slice(1, -1).includes('')) throw new UsageError(`${flag} ${JSON.stringify(key)}: [] may only end a key`);
  return parts;
}

const NUMBER_RE = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/** gh's "magic" conversion of a -F value. */
async function typedValue(raw: string, read: ReadSource): Promise<Json> {
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  if (raw === 'null') return null;
  if (NUMBER_RE.test(raw)) {
    const n = Number(raw);
    if (Number.isFinite(n)) return n;
  }
  if (raw.startsWith('@')) return read(raw.slice(1));
  return raw;
}

/** Sets `value` at `path` in `target`, refusing a key used both as a value and as an object/array. */
function setPath(target: JsonObject, path: string[], value: Json, key: string): void {
  let node: JsonObject | Json[] = target;
  for (let i = 0; i < path.length; i++) {
    const part = path[i]!;
    const last = i === path.length - 1;
    const nextIsArray = !last && path[i + 1] === '';
    if (Array.isArray(node)) {
      // Only `[]` reaches an array, and only as the final part (parseKey makes sure).
      node.push(value);
      return;
    }
    const existing: Json | undefined = Object.hasOwn(node, part) ? node[part] : undefined;
    if (last) {
      if (existing !== undefined) throw new UsageError(`field ${JSON.stringify(key)} is given twice (or clashes with another field)`);
      put(node, part, value);
      return;
    }
    if (existing === undefined) {
      const child: JsonObject | Json[] = nextIsArray ? [] : {};
      put(node, part, child);
      node = child;
    } else if (nextIsArray ? Array.isArray(existing) : isObject(existing)) {
      node = existing as JsonObject | Json[];
    } else {
      throw new UsageError(`field ${JSON.stringify(key)} clashes with another field of the same name`);
    }
  }
}

/** A plain own property, even for keys such as `__proto__`. */
function put(node: JsonObject, key: string, value: Json): void {
  Object.defineProperty(node, key, { value, enumerable: true, writable: true, configurable: true });
}

function isObject(v: Json | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Builds the JSON body from -f (strings) and -F (typed) flags. */
export async function buildFields(rawFields: readonly string[], typedFields: readonly string[], read: ReadSource): Promise<JsonObject> {
  const body: JsonObject = Object.create(null) as JsonObject;
  for (const raw of rawFields) {
    const [key, value] = splitPair('-f', raw);
    setPath(body, parseKey('-f', key), value, key);
  }
  for (const raw of typedFields) {
    const [key, value] = splitPair('-F', raw);
    const path = parseKey('-F', key);
    setPath(body, path, await typedValue(value, read), key);
  }
  return { ...body };
}

/** For GET, as gh does: fields become query parameters; `a[]=x` repeats `a`. Nested objects cannot. */
export function fieldsToQuery(fields: JsonObject): [string, string][] {
  const out: [string, string][] = [];
  for (const [key, value] of Object.entries(fields)) {
    const values = Array.isArray(value) ? value : [value];
    for (const v of values) {
      if (typeof v === 'object' && v !== null) {
        throw new UsageError(`field ${JSON.stringify(key)}: a GET request has no body, and a nested field cannot be a query parameter`);
      }
      out.push([key, String(v)]);
    }
  }
  return out;
}

/** `-q key=value` flags; a value may be empty. */
export function parseQuery(raws: readonly string[]): [string, string][] {
  return raws.map((raw) => splitPair('-q', raw));
}

const TOKEN_RE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** `-H 'Name: value'` flags, into a header record (names lower-case, as node:http gives them). */
export function parseHeaders(raws: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of raws) {
    const colon = raw.indexOf(':');
    const name = colon > 0 ? raw.slice(0, colon).trim() : '';
    if (!TOKEN_RE.test(name)) throw new UsageError(`-H ${JSON.stringify(raw)}: expected 'Name: value'`);
    const value = raw.slice(colon + 1).trim();
    if (/[\r\n\0]/.test(value)) throw new UsageError(`-H ${JSON.stringify(raw)}: a header value cannot hold a line break`);
    const lower = name.toLowerCase();
    if (lower === 'content-length' || lower === 'host' || lower === 'transfer-encoding' || lower === 'connection') {
      throw new UsageError(`-H ${name}: set by pctl itself`);
    }
    out[lower] = value;
  }
  return out;
}

/** The method and path from `pctl api METHOD PATH` or `pctl api PATH`. */
export function methodAndPath(first: string, second: string | undefined, hasBody: boolean, explicit?: string): { method: string; path: string } {
  let method: string;
  let path: string;
  if (explicit !== undefined) {
    // -X METHOD PATH, as in gh api and curl.
    if (!/^[A-Za-z]+$/.test(explicit)) throw new UsageError(`--method: ${JSON.stringify(explicit)} is not an HTTP method`);
    if (second !== undefined) throw new UsageError(`give the method once: -X ${explicit.toUpperCase()} PATH, or METHOD PATH without -X`);
    method = explicit.toUpperCase();
    path = first;
  } else if (second !== undefined) {
    if (!/^[A-Za-z]+$/.test(first)) throw new UsageError(`${JSON.stringify(first)} is not an HTTP method (usage: pctl api METHOD PATH)`);
    method = first.toUpperCase();
    path = second;
  } else {
    if (/^[A-Z]+$/.test(first)) throw new UsageError(`missing PATH after ${first} (usage: pctl api METHOD PATH)`);
    method = hasBody ? 'POST' : 'GET';
    path = first;
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(path)) {
    throw new UsageError(`${path}: give a path such as /iam/v2/groups; the server is the profile's (or --api-url)`);
  }
  if (!path.startsWith('/')) path = `/${path}`;
  return { method, path };
}

/** Splits `/x?a=1&b=2` into the path and its query pairs (form-decoded, as the server reads them). */
export function splitPathQuery(path: string): { path: string; query: [string, string][] } {
  const q = path.indexOf('?');
  if (q < 0) return { path, query: [] };
  return { path: path.slice(0, q), query: [...new URLSearchParams(path.slice(q + 1))] };
}

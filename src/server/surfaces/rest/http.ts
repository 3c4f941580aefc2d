// REST's wire: an HTTP request (HTTP/1.1 or HTTP/2) read into a call for the pipeline (the
// query decoded strictly, the body read when a route asks for it: bounded, UTF-8, JSON no
// deeper than MAX_JSON_DEPTH), and the answer written back as JSON.
import { ApiError, Code, invalidField } from '../../../api/errors.js';
import { redactUrl } from '../../../api/redact.js';
import { parseParams } from '../../base/params.js';
import { MAX_BODY_BYTES, toErrorResponse, type Dispatch } from '../../pipeline/dispatch.js';
import type { Response } from '../../pipeline/handler.js';
import type { Exchange } from '../../transport/exchange.js';

/**
 * How deeply a JSON body may nest objects and arrays. No body of the API comes near it (the
 * deepest nest a handful of levels); a deeper one is refused as it is parsed, so no value that
 * JSON.stringify (the journal, the RPC answer) cannot walk is ever kept.
 */
export const MAX_JSON_DEPTH = 64;

/** Methods whose requests serve reads no body of. */
const BODILESS = new Set(['GET', 'HEAD', 'OPTIONS']);
const noop = () => {};

/** The REST front: an HTTP request (HTTP/1.1 or HTTP/2) in, a JSON answer out. */
export function restHandler(dispatch: Dispatch, log?: (line: string) => void): (x: Exchange) => void {
  return (x) => {
    const started = performance.now();
    const rawUrl = x.url;
    const q = rawUrl.indexOf('?');
    let text: Promise<string> | undefined;
    const body = () => (text ??= readText(x));
    let out: Promise<Response>;
    try {
      out = dispatch({
        method: x.method,
        path: q === -1 ? rawUrl : rawUrl.slice(0, q),
        query: parseParams(q === -1 ? '' : rawUrl.slice(q + 1)),
        headers: x.headers,
        address: x.address,
        json: () => body().then(parseJson),
        form: () => body().then(parseParams),
        ...(BODILESS.has(x.method) ? {} : { arrived: () => body().then(noop, noop) }),
      });
    } catch (err) {
      out = Promise.resolve(toErrorResponse(err, log));
    }
    void out.then((answer) => {
      if (answer.fault === 'reset') {
        // The connection is cut with nothing sent (HTTP/2: the stream is reset).
        x.reset();
        log?.(`${x.method} ${redactUrl(rawUrl)} reset (injected fault)`);
        return;
      }
      if (answer.fault === 'stall') {
        // Never answered: the client gives up, or serve's close cuts the connection.
        log?.(`${x.method} ${redactUrl(rawUrl)} stalled (injected fault)`);
        return;
      }
      const status = answer.status ?? 200;
      const payload = answer.raw ?? answer.bodyJson?.utf8 ?? answer.bodyJson?.text ?? (answer.body === undefined ? '' : JSON.stringify(answer.body));
      const length = answer.raw === undefined && answer.bodyJson ? answer.bodyJson.bytes : Buffer.byteLength(payload);
      const json = payload && answer.raw === undefined;
      // Most answers are JSON with no headers of their own: one literal, node's quickest to write.
      let headers: Record<string, string | number>;
      if (json && !answer.headers) headers = { 'content-length': length, 'content-type': 'application/json' };
      else {
        headers = { 'content-length': length, ...answer.headers };
        if (json) headers['content-type'] = 'application/json';
      }
      x.respond(status, headers, payload);
      // The URL as sent may hold a token (`?access_token=…`): masked like the CLI's trace.
      log?.(`${x.method} ${redactUrl(rawUrl)} ${status} ${(performance.now() - started).toFixed(1)}ms`);
    });
  };
}

function parseJson(text: string): unknown {
  if (!text.trim()) throw invalidField('body', 'is required (a JSON object)');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw invalidField('body', `is not valid JSON (${(err as Error).message})`);
  }
  ensureBoundedDepth(value);
  if (/\\u[dD][89a-fA-F]/.test(text)) ensureWellFormed(value);
  return value;
}

/** A body given as a value (MCP's tool arguments): the same limits as a parsed one, depth and Unicode. */
export function checkedBody(value: unknown): unknown {
  ensureBoundedDepth(value);
  ensureWellFormed(value);
  return value;
}

/**
 * "\ud800" parses to a lone surrogate, which SQLite cannot store as UTF-8: it came back as
 * U+FFFD, so a 200 reported a value other than the one stored. Refused instead.
 */
function ensureWellFormed(value: unknown): void {
  if (hasLoneSurrogate(value)) throw invalidField('body', 'must hold well-formed Unicode text (a \\uD800-\\uDFFF escape must be part of a surrogate pair)');
}

/** A code-3 error naming the limit when the value nests deeper than MAX_JSON_DEPTH. Iterative: the value may be deep. */
function ensureBoundedDepth(value: unknown): void {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (!v || typeof v !== 'object') continue;
    if (depth > MAX_JSON_DEPTH) {
      throw invalidField('body', `must not nest objects and arrays more than ${MAX_JSON_DEPTH} levels deep`);
    }
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The request body as text, at most MAX_BODY_BYTES; bytes that are not UTF-8 are a code-3 error, not U+FFFD. */
export async function readText(x: Pick<Exchange, 'headers' | 'readBody' | 'discardBody'>): Promise<string> {
  const declared = Number(x.headers['content-length'] ?? 0);
  if (declared > MAX_BODY_BYTES) {
    x.discardBody();
    throw tooLarge();
  }
  const bytes = await x.readBody(MAX_BODY_BYTES, tooLarge, 'The client closed the connection before the request body was complete');
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw invalidField('body', 'must be UTF-8 text');
  }
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether any string (key or value) of a parsed JSON value holds an unpaired surrogate; iterative, as bodies nest deep. */
function hasLoneSurrogate(root: unknown): boolean {
  const stack: unknown[] = [root];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (LONE_SURROGATE.test(v)) return true;
    } else if (Array.isArray(v)) {
      for (const x of v) stack.push(x);
    } else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (LONE_SURROGATE.test(k)) return true;
        stack.push(x);
      }
    }
  }
  return false;
}

function tooLarge(): ApiError {
  return new ApiError(Code.INVALID_ARGUMENT, `Invalid argument: body: must be at most ${MAX_BODY_BYTES} bytes`, {
    reason: 'PAYLOAD_TOO_LARGE',
    httpStatus: 413,
    fieldViolations: [{ field: 'body', description: `must be at most ${MAX_BODY_BYTES} bytes` }],
    headers: { connection: 'close' },
  });
}

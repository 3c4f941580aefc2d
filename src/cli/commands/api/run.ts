// pctl api [METHOD] PATH [-f k=v]… [-F k=v]… [--input FILE|-] [-q k=v]… [-H 'N: v']… [--paginate] [-i]
// The escape hatch for endpoints without a command, modelled on `gh api`: same client (auth,
// profiles, timeout, retries, --debug), same errors and exit codes as every other command.
// --paginate walks pages through the one client Paginator and merges the plural array.
import type { FlagValues } from '../../command.js';
import type { apiFlags } from './index.js';
import { readFile } from 'node:fs/promises';
import { STATUS_CODES } from 'node:http';
import { listQueryParams } from '../../../api/resources.js';
import { Paginator } from '../../../client/paginate.js';
import type { ApiError } from '../../../api/errors.js';
import type { RawResponse } from '../../../client/http.js';
import { write } from '../../../output/print.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import {
  buildFields, fieldsToQuery, methodAndPath, parseHeaders, parseQuery, splitPathQuery, type ReadSource,
} from './fields.js';

type ApiFlags = FlagValues<typeof apiFlags>;

const ENVELOPE_KEYS = new Set(['nextPageToken', 'totalCount', 'skipped']);

export async function run(ctx: Context, [first, second]: string[], opts: ApiFlags): Promise<number> {
  // ---- everything the user typed is checked before any request (exit 2) ----
  const format = ctx.globals.output;
  if (format !== undefined && format !== 'json' && format !== 'yaml' && format !== 'ndjson') {
    throw new UsageError(`pctl api prints the response as JSON: -o ${format} is not available here (use json, yaml or ndjson)`);
  }
  const rawFields = opts.rawField ?? [];
  const typedFields = opts.field ?? [];
  const hasFields = rawFields.length + typedFields.length > 0;
  if (hasFields && opts.input !== undefined) throw new UsageError('--input sends the body as is: it cannot be combined with -f/-F fields');
  const target = methodAndPath(first!, second, hasFields || opts.input !== undefined, opts.method);
  const { method } = target;
  const { path, query: pathQuery } = splitPathQuery(target.path);
  if (opts.paginate && method !== 'GET') throw new UsageError(`--paginate follows nextPageToken on GET requests, not ${method}`);

  const stdinUsers = (opts.input === '-' ? 1 : 0) + typedFields.filter((f) => /^[^=]+=@-$/.test(f)).length;
  if (stdinUsers > 1) throw new UsageError('only one of --input - and -F key=@- can read stdin');
  const read: ReadSource = (source) => readSource(ctx, source);

  const fields = hasFields ? await buildFields(rawFields, typedFields, read) : undefined;
  const query: [string, string][] = [...pathQuery, ...parseQuery(opts.query ?? [])];
  let body: string | Uint8Array | undefined;
  if (fields && (method === 'GET' || method === 'HEAD')) query.push(...fieldsToQuery(fields)); // as gh does
  else if (fields) body = JSON.stringify(fields);
  else if (opts.input !== undefined) body = opts.input === '-' ? await readStdin(ctx) : await readInputFile(opts.input);
  const headers = parseHeaders(opts.header ?? []);

  // ---- the request(s) ----
  const client = await ctx.client();
  const send = (q: [string, string][]) => client.http.send(method, path, { query: q, headers, body });
  const responses: RawResponse[] = [];

  const fail = async (res: RawResponse, error: ApiError): Promise<never> => {
    // -i shows what came back, error or not; stdout stays empty otherwise (the contract).
    if (opts.include) {
      for (const r of responses) await write(ctx.io.stdout, head(r));
      if (res.text) await write(ctx.io.stdout, withNewline(res.text));
    }
    throw error;
  };

  let document: unknown;
  let text: string | undefined;
  if (!opts.paginate) {
    const res = await send(query);
    responses.push(res);
    if (res.error) return fail(res, res.error);
    document = res.json;
    text = res.text;
  } else {
    const merged = await paginate(query, send, responses, fail);
    document = merged.document;
    text = merged.text;
  }

  // ---- the output ----
  const out = ctx.io.stdout;
  if (opts.include) for (const r of responses) await write(out, head(r));
  if (!text) return 0; // an empty body (a DELETE): nothing to print
  if (document === undefined) {
    await write(out, text); // not JSON: as received
    return 0;
  }
  await write(out, await render(ctx, document, text));
  return 0;
}

/**
 * Follows nextPageToken with the client's Paginator, gathering the plural array (the one
 * array-valued key of the envelope) across pages: one document, the first page's envelope
 * with every item, the last page's totalCount, and no nextPageToken.
 */
async function paginate(
  query: [string, string][],
  send: (q: [string, string][]) => Promise<RawResponse>,
  responses: RawResponse[],
  fail: (res: RawResponse, error: ApiError) => Promise<never>,
): Promise<{ document: unknown; text: string | undefined }> {
  // The paging parameters the user gave seed the paginator; the rest go on every page.
  const take = (name: string) => {
    const i = query.findIndex(([k]) => k === name);
    return i < 0 ? undefined : query.splice(i, 1)[0]![1];
  };
  const pageToken = take('page_token') || undefined;
  const pageSizeRaw = take('page_size');
  const skipRaw = take('skip');
  const pageSize = pageSizeRaw !== undefined && /^\d+$/.test(pageSizeRaw) ? Number(pageSizeRaw) : undefined;
  const skip = skipRaw !== undefined && /^\d+$/.test(skipRaw) ? Number(skipRaw) : undefined;
  if (pageSizeRaw !== undefined && pageSize === undefined) query.push(['page_size', pageSizeRaw]); // let the server say what is wrong
  if (skipRaw !== undefined && skip === undefined) query.push(['skip', skipRaw]);

  let first: Record<string, unknown> | undefined;
  let last: Record<string, unknown> | undefined;
  let plural: string | undefined;
  let single: RawResponse | undefined;

  const paginator = new Paginator<unknown>(
    async (q) => {
      const res = await send([...query, ...listQueryParams({ pageSize: q.pageSize, pageToken: q.pageToken, skip: q.skip })]);
      responses.push(res);
      if (res.error) return fail(res, res.error);
      const env = res.json;
      if (!isRecord(env) || !(plural ??= pluralKey(env))) {
        single = res; // not a list envelope: nothing to follow
        return { items: [] };
      }
      first ??= env;
      last = env;
      const items = Array.isArray(env[plural]) ? (env[plural] as unknown[]) : [];
      return { items, nextPageToken: typeof env.nextPageToken === 'string' ? env.nextPageToken : undefined };
    },
    { pageToken, pageSize, skip },
  );
  const items = await paginator.all();
  if (single || !first || !plural) {
    const res = single ?? responses[responses.length - 1];
    return { document: res?.json, text: res?.text };
  }
  const document: Record<string, unknown> = { ...first, [plural]: items };
  if (last && last.totalCount !== undefined) document.totalCount = last.totalCount;
  delete document.nextPageToken;
  return { document, text: JSON.stringify(document) };
}

/** The envelope's array: `groups`, `repos`, … (any key holding an array, envelope fields aside). */
function pluralKey(env: Record<string, unknown>): string | undefined {
  return Object.keys(env).find((k) => !ENVELOPE_KEYS.has(k) && Array.isArray(env[k]));
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Pretty JSON on a TTY or with -o json, the body as received in a pipe; -o yaml, -o ndjson (one line). */
async function render(ctx: Context, document: unknown, text: string): Promise<string> {
  switch (ctx.globals.output) {
    case 'yaml': {
      const YAML = (await import('yaml')).default;
      return YAML.stringify(document, { lineWidth: 0 });
    }
    case 'ndjson':
      return `${JSON.stringify(document)}\n`;
    case 'json':
      return `${JSON.stringify(document, null, 2)}\n`;
    default:
      return ctx.io.stdoutIsTTY ? `${JSON.stringify(document, null, 2)}\n` : withNewline(text);
  }
}

/** `HTTP/1.1 200 OK`, then each header as `Name: value`, then a blank line (like curl -i / gh api -i). */
function head(res: RawResponse): string {
  const lines = [`HTTP/1.1 ${res.status} ${STATUS_CODES[res.status] ?? ''}`.trimEnd()];
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) lines.push(`${canonicalName(name)}: ${v}`);
  }
  return `${lines.join('\n')}\n\n`;
}

/** `content-type` → `Content-Type`. */
function canonicalName(name: string): string {
  return name.replace(/(^|-)([a-z])/g, (_m, sep: string, ch: string) => sep + ch.toUpperCase());
}

function withNewline(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}

async function readSource(ctx: Context, source: string): Promise<string> {
  if (source === '-') return (await readStdin(ctx)).toString('utf8');
  return (await readInputFile(source)).toString('utf8');
}

async function readInputFile(file: string): Promise<Buffer> {
  if (!file) throw new UsageError('a file name is required after @ (or --input); use - for stdin');
  try {
    return await readFile(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : (err as Error).message}`);
  }
}

async function readStdin(ctx: Context): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of ctx.io.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk));
  return Buffer.concat(chunks);
}

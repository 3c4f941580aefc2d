// What every `<resource> list` does: turn the paging, scope and filter flags into one
// paginator and stream its pages into the printer.
import { DEFAULT_LIST_ORDER, type ListQuery, type ResourceDescriptor } from '../../api/resources.js';
import type { PaginateOptions, Paginator } from '../../client/paginate.js';
import type { View } from '../../output/columns.js';
import { createPrinter } from '../../output/print.js';
import { optionKey, type PagingFlags } from '../command.js';
import type { Context } from '../context.js';
import { groupUid } from './resolve.js';
import { checkNotEmpty } from './validate.js';

export type { PagingFlags };

export interface ScopeFlags {
  descendantsOf?: string;
  childrenOf?: string;
  /** Shorthand for childrenOf on identities and role bindings. */
  group?: string;
  name?: string;
}


/** The paging and scope flags as paginator options; `defaultOrder` null leaves the order to the server. */
export function paginateOptions(flags: PagingFlags & ScopeFlags, defaultOrder: string | null = DEFAULT_LIST_ORDER): PaginateOptions {
  const q: PaginateOptions = {};
  if (flags.limit !== undefined) q.limit = flags.limit;
  if (flags.pageSize !== undefined) q.pageSize = flags.pageSize;
  const orderBy = flags.orderBy ?? defaultOrder;
  if (orderBy !== null) q.orderBy = orderBy;
  if (flags.skip !== undefined) q.skip = flags.skip;
  if (flags.pageToken !== undefined) q.pageToken = flags.pageToken;
  const scope: ListQuery = {};
  if (flags.descendantsOf !== undefined) scope.descendantsOf = flags.descendantsOf;
  const childrenOf = flags.childrenOf ?? flags.group;
  if (childrenOf !== undefined) scope.childrenOf = childrenOf;
  if (flags.name !== undefined) scope.name = flags.name;
  return { ...q, ...scope };
}

/** The scope flags with group references (names, name paths, uid suffixes) resolved to uids. */
async function resolveScope<F extends ScopeFlags>(ctx: Context, flags: F): Promise<F> {
  const out = { ...flags };
  if (flags.descendantsOf !== undefined) out.descendantsOf = await groupUid(ctx, flags.descendantsOf, '--descendants-of');
  if (flags.childrenOf !== undefined) out.childrenOf = await groupUid(ctx, flags.childrenOf, '--children-of');
  if (flags.group !== undefined) out.group = await groupUid(ctx, flags.group, '--group');
  return out;
}

/** The declaration's filters (`artifactNames`) from their repeatable flags (`--artifact`). */
function filterValues(d: ResourceDescriptor, flags: Record<string, unknown>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [param, f] of Object.entries(d.filters)) {
    const values = flags[optionKey(f.flag)] as string[] | undefined;
    for (const v of values ?? []) checkNotEmpty(param, v);
    if (values?.length) out[param] = values;
  }
  return out;
}

export async function runList(
  ctx: Context,
  d: ResourceDescriptor,
  flags: PagingFlags & ScopeFlags & Record<string, unknown>,
  view: View<never> = d.view as View<never>,
): Promise<number> {
  const client = await ctx.client();
  const filters = filterValues(d, flags);
  const query = paginateOptions(await resolveScope(ctx, flags));
  const pages = client.list(d, Object.keys(filters).length ? { ...query, filters } : query);
  await printPaged(ctx, view as View<unknown>, pages, d.plural, flags);
  return 0;
}

/**
 * Prints a listing, then says how it continues where --limit stopped it. With --page-token
 * (`''` for the first page), `-o json` prints the API's own page: `{"<key>": [...],
 * "nextPageToken": "…"}` ("" at the end), so a script pages with it; else a terminal gets the
 * command for the next items on stderr (a pipe gets nothing: the data alone).
 */
export async function printPaged<T>(ctx: Context, view: View<T>, paginator: Paginator<T>, key: string, flags: PagingFlags): Promise<void> {
  const printer = createPrinter(ctx);
  const envelope = flags.pageToken !== undefined && printer.mode === 'json' ? { key, nextPageToken: () => paginator.nextPageToken } : undefined;
  await printer.list(view, paginator.pages(), envelope);
  const next = paginator.nextPageToken;
  if (next && !envelope && ctx.io.stderrIsTTY) ctx.io.stderr.write(`More ${view.noun}: ${continuation(ctx.argv, next)}\n`);
}

/** The command line that lists what comes after `token`: the same, without --skip and the old token. */
function continuation(argv: readonly string[], token: string): string {
  const kept: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--page-token' || arg === '--skip') i++;
    else if (!arg.startsWith('--page-token=') && !arg.startsWith('--skip=')) kept.push(arg);
  }
  return ['pctl', ...kept, '--page-token', token].map(shellWord).join(' ');
}

/** A word as a POSIX shell reads it back: as is when safe, else in single quotes. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

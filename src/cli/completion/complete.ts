// `pctl __complete <words…>` (hidden): the live half of shell completion. The words are the
// command line after `pctl` up to the cursor, the last one being the word being completed
// (possibly empty). When that word is a reference the API can list (a group, repo, identity,
// role or role binding) or a profile, prints the candidates starting with it, one per line as
// `value<TAB>description`. Any failure prints nothing and exits 0: a completion must never
// spill an error into the user's prompt. The API is asked once, with a short timeout and no
// retries, through the same connection resolution as every command (flags > env > profile).
// The timeout bounds the network only: it starts once the modules are loaded and the
// connection resolved (a busy machine may be slow to load them; that is no reason to give
// up). PCTL_COMPLETE_TIMEOUT (a duration, as --timeout) sets it for a slow link.
import type { Command } from 'commander';
import type { ListQuery } from '../../api/resources.js';
import { deadlineSignal, type Context, type Env } from '../context.js';
import { parseDuration } from '../main.js';
import { commandSpec, findFlag, flagsOf, locate, valueKindAt, type LiveNoun, type ValueKind } from './spec.js';
import { FULL_UID_RE } from '../../api/references.js';

/** Connect + request, for the one request a completion makes (default). */
export const COMPLETE_TIMEOUT_MS = 1500;
/** Candidates asked for per request (the API's page size maximum). */
const PAGE = 200;

export type Candidate = readonly [value: string, description: string];

export async function runComplete(ctx: Context, words: readonly string[], program: Command): Promise<number> {
  try {
    const found = await candidates(ctx, words, program);
    const clean = (s: string) => s.replace(/[\t\r\n]+/g, ' ').trim();
    const text = found.map(([v, d]) => (d ? `${clean(v)}\t${clean(d)}` : clean(v))).join('\n');
    if (text) ctx.io.stdout.write(`${text}\n`);
  } catch {
    // silent: nothing to offer (a refused connection, an error status, the deadline passed)
  }
  return 0;
}

/** PCTL_COMPLETE_TIMEOUT when it is a valid duration, else COMPLETE_TIMEOUT_MS. */
export function completeTimeoutMs(env: Env): number {
  const value = env.PCTL_COMPLETE_TIMEOUT;
  if (!value) return COMPLETE_TIMEOUT_MS;
  try {
    return parseDuration(value);
  } catch {
    return COMPLETE_TIMEOUT_MS;
  }
}

/** The candidates for the last word, filtered by what it starts with. */
export async function candidates(ctx: Context, words: readonly string[], program: Command): Promise<Candidate[]> {
  if (!words.length) return [];
  const root = commandSpec(program);
  let cur = words[words.length - 1]!;
  const pos = locate(root, words.slice(0, -1));
  let kind: ValueKind | undefined;
  const eq = cur.indexOf('=');
  if (!pos.valueFor && cur.startsWith('-') && eq > 0) {
    // --flag=VALUE
    kind = findFlag(flagsOf(root, pos.command.path), cur.slice(0, eq))?.value;
    cur = cur.slice(eq + 1);
  } else {
    kind = valueKindAt(pos);
  }
  if (kind?.kind !== 'live') return [];
  ctx.globals = {
    ...ctx.globals,
    apiUrl: pos.given['--api-url'] ?? ctx.globals.apiUrl,
    profile: pos.given['--profile'] ?? ctx.globals.profile,
    debug: false,
    timeoutMs: completeTimeoutMs(ctx.env),
    retries: 0,
  };
  const all = await lookup(ctx, kind.noun, cur);
  const seen = new Set<string>();
  return all.filter(([v]) => v.startsWith(cur) && !seen.has(v) && (seen.add(v), true));
}

/**
 * bash shows values without descriptions, sorted into columns: names and uids side by side
 * look paired and are not. One value per item instead: its name when no other item has that
 * name, else its uid; a word that matches no name (a uid being typed) gets the uids.
 */
function oneColumn(perItem: { uid?: string | undefined; offered: readonly Candidate[] }[], prefix: string): Candidate[] {
  const count = new Map<string, number>();
  for (const { offered } of perItem) if (offered[0]) count.set(offered[0][0], (count.get(offered[0][0]) ?? 0) + 1);
  const one = perItem.flatMap(({ uid, offered }) => {
    const first = offered[0];
    if (!first) return [];
    return count.get(first[0]) === 1 ? [first] : offered.filter(([value]) => value === uid);
  });
  if (one.some(([value]) => value.startsWith(prefix))) return one;
  return perItem.flatMap(({ uid, offered }) => offered.filter(([value]) => value === uid));
}

async function lookup(ctx: Context, noun: LiveNoun, prefix: string): Promise<Candidate[]> {
  if (noun === 'profile') {
    const store = await ctx.config();
    return Object.entries(store.profiles()).map(([name, p]) => [name, p.apiUrl ?? ''] as const);
  }
  const [{ resolveConnection }, { ApiClient }, { registry }] = await Promise.all([
    import('../connect.js'),
    import('../../client/index.js'),
    import('../../api/registry/index.js'),
  ]);
  const conn = await resolveConnection(ctx);
  // The deadline starts now, with the modules loaded: it bounds the one request (connect,
  // answer and body; no retry), which then rejects and runComplete prints nothing.
  const timeoutMs = ctx.globals.timeoutMs;
  const deadline = deadlineSignal(ctx.clock, timeoutMs);
  const client = new ApiClient({ baseUrl: conn.apiUrl, token: conn.token, timeoutMs, deadline: () => deadline, retries: 0, userAgent: 'pctl' });
  const d = registry.find((r) => r.plural === noun);
  if (!d?.completion) return [];
  const { completion } = d;
  const query: ListQuery = { pageSize: PAGE };
  if (completion.orderBy) query.orderBy = completion.orderBy;
  // Typing a uid path drills down: `<org uid>/` lists that group's children, as uids only
  // (names are only worth offering when not in the middle of a uid).
  const slash = d.references ? prefix.lastIndexOf('/') : -1;
  const parent = slash > 0 ? prefix.slice(0, slash) : '';
  if (FULL_UID_RE.test(parent)) query.childrenOf = parent;
  const page = await client.listPage(d, query);
  const perItem = page.items.map((item) => ({ uid: (item as { uid?: string }).uid, offered: completion.candidates(item) }));
  if (slash > 0) return perItem.flatMap(({ uid, offered }) => offered.filter(([value]) => value === uid));
  if (ctx.env.PCTL_COMPLETE_SHELL === 'bash') return oneColumn(perItem, prefix);
  // Every item's first candidate (its name, for groups), then every second one (its uid) …
  const width = Math.max(0, ...perItem.map((p) => p.offered.length));
  const out: Candidate[] = [];
  for (let k = 0; k < width; k++) for (const p of perItem) if (p.offered[k]) out.push(p.offered[k]!);
  return out;
}

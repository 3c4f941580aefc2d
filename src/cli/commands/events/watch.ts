// pctl events watch: the change feed of a running serve (long polls of /_pctl/events), one
// line per event as it commits; resumable with --after SEQ.
import type { FeedEvent } from '../../../api/events.js';
import type { FlagValues } from '../../command.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { groupUid } from '../../shared/resolve.js';
import type { watchFlags } from './index.js';

interface Page { events: FeedEvent[]; last: number }

function whole(flag: string, raw: string | undefined, min: number): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < min) throw UsageError.invalidField(flag, `must be a whole number of at least ${min}`);
  return Number(raw);
}

/** JSON with -o json or ndjson (one event per line either way: a stream has no end to close an array at); else tab-separated columns. */
function line(ctx: Context, e: FeedEvent): string {
  const out = ctx.globals.output;
  if (out === 'json' || out === 'ndjson') return JSON.stringify(e);
  return [e.seq, e.time, e.type, e.subject, e.data.actor?.subject ?? ''].join('\t');
}

export async function run(ctx: Context, _args: string[], opts: FlagValues<typeof watchFlags>): Promise<number> {
  let after = whole('after', opts.after, 0);
  const count = whole('count', opts.count, 1);
  const client = await ctx.client();
  const group = opts.descendantsOf === undefined ? undefined : await groupUid(ctx, opts.descendantsOf, '--descendants-of');
  const filters: [string, string][] = [];
  if (group) filters.push(['descendants_of', group]);
  if (opts.type) filters.push(['type', opts.type]);
  // Without --after: from the newest event on, so only what commits from now is printed.
  if (after === undefined) after = ((await client.request('GET', '/_pctl/events', { query: [['limit', '0']] })) as Page).last;
  let printed = 0;
  // Long polls: each waits up to 25 s on the server for a match. Ctrl-C ends it (exit 130).
  for (;;) {
    const page = (await client.request('GET', '/_pctl/events', { query: [['after', String(after)], ['wait', '25'], ...filters] })) as Page;
    for (const e of page.events) {
      ctx.io.stdout.write(`${line(ctx, e)}\n`);
      if (count !== undefined && ++printed >= count) return 0;
    }
    after = page.last;
  }
}

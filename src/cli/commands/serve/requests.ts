// `pctl serve requests [--follow] [--limit N]`: the journal of a running serve, through its
// control API (/_pctl/requests) with the connection every command uses (the owner's token).
import type { JournalEntry as Entry } from '../../../api/journal.js';
import { createPrinter } from '../../../output/print.js';
import type { View } from '../../../output/columns.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';

interface Page {
  requests: Entry[];
  last: number;
}

const statusText = (e: Entry) => (e.status === 0 ? '-' : String(e.status));
const faultText = (e: Entry) => (e.fault ? `${e.fault.id} ${e.fault.effect}` : e.matched ? '' : 'no route');

const view: View<Entry> = {
  noun: 'requests',
  id: (e) => String(e.seq),
  columns: [
    { header: 'TIME', value: (e) => e.time, kind: 'time' },
    { header: 'METHOD', value: (e) => e.method },
    { header: 'PATH', value: (e) => (e.rpc ? `${e.path} (${e.rpc})` : e.path), shrink: true },
    { header: 'STATUS', value: statusText },
    { header: 'MS', value: (e) => e.durationMs },
    { header: 'CALLER', value: (e) => e.identity ?? '', kind: 'uid' },
    { header: 'FAULT', value: faultText },
  ],
};

/** One line per entry while following: JSON with -o json or ndjson, else the table's columns, tab-separated. */
function followLine(ctx: Context, e: Entry): string {
  const out = ctx.globals.output;
  if (out === 'json' || out === 'ndjson') return JSON.stringify(e);
  return [e.time, e.method, e.rpc ? `${e.path} (${e.rpc})` : e.path, statusText(e), e.durationMs, e.identity ?? '', faultText(e)].join('\t');
}

export async function runRequests(ctx: Context, opts: { follow?: boolean; limit?: string }): Promise<number> {
  const limit = opts.limit === undefined ? undefined : Number(opts.limit);
  if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1)) throw UsageError.invalidField('limit', 'must be a whole number of at least 1');
  const client = await ctx.client();
  const page = (await client.request('GET', '/_pctl/requests', { query: limit ? [['limit', String(limit)]] : [] })) as Page;
  if (!opts.follow) {
    await createPrinter(ctx).list(view, (async function* () { yield page.requests; })());
    return 0;
  }
  for (const e of page.requests) ctx.io.stdout.write(`${followLine(ctx, e)}\n`);
  // Long polls: each waits up to 25 s on the server for something newer. Ctrl-C ends it (exit 130).
  for (let last = page.last; ;) {
    const next = (await client.request('GET', '/_pctl/requests', { query: [['after', String(last)], ['wait', '25']] })) as Page;
    for (const e of next.requests) ctx.io.stdout.write(`${followLine(ctx, e)}\n`);
    last = next.last;
  }
}

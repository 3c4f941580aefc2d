// `pctl serve v1-callers`: who still calls the v1 API of a running serve (its journal, through
// /_pctl/v1-callers with the owner's token), and the v2 call each should make instead.
import type { V1Caller, V1Callers } from '../../../api/journal.js';
import type { View } from '../../../output/columns.js';
import { createPrinter } from '../../../output/print.js';
import type { Context } from '../../context.js';

const view: View<V1Caller> = {
  noun: 'v1 callers',
  id: (c) => c.identity,
  columns: [
    { header: 'CALLER', value: (c) => c.name || (c.identity ? '' : '(no valid token)'), keep: true },
    { header: 'IDENTITY', value: (c) => c.identity, kind: 'uid' },
    { header: 'V1 CALL', value: (c) => c.call, shrink: true },
    { header: 'COUNT', value: (c) => c.count },
    { header: 'LAST', value: (c) => c.lastTime, kind: 'time' },
    { header: 'USE INSTEAD', value: (c) => c.successor || '-' },
  ],
};

export async function runV1Callers(ctx: Context): Promise<number> {
  const client = await ctx.client();
  const report = (await client.request('GET', '/_pctl/v1-callers')) as V1Callers;
  await createPrinter(ctx).list(view, (async function* () { yield report.callers; })());
  const since = report.window.since ? ` since ${report.window.since}` : '';
  ctx.io.stderr.write(`From the journal's last ${report.window.requests} requests${since} (serve --journal N keeps more).\n`);
  return 0;
}

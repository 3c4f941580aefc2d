// pctl events deliveries [--subscription UID] [--failed] [--limit N]: serve's delivery log (/_pctl/deliveries).
import type { DeliveryInfo } from '../../../api/events.js';
import type { View } from '../../../output/columns.js';
import { createPrinter } from '../../../output/print.js';
import type { FlagValues } from '../../command.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { deliveriesFlags } from './index.js';

const view: View<DeliveryInfo> = {
  noun: 'deliveries',
  id: (d) => String(d.id),
  columns: [
    { header: 'ID', value: (d) => d.id, keep: true },
    { header: 'STATE', value: (d) => d.state },
    { header: 'TYPE', value: (d) => d.type, shrink: true },
    { header: 'SUBJECT', value: (d) => d.subject, kind: 'uid' },
    { header: 'ATTEMPTS', value: (d) => d.attempts },
    { header: 'LAST STATUS', value: (d) => (d.lastStatus === undefined ? '' : d.lastStatus === 0 ? `- (${d.lastError ?? 'no answer'})` : String(d.lastStatus)) },
    { header: 'NEXT ATTEMPT', value: (d) => d.nextAttemptTime, kind: 'time' },
    { header: 'SINK', value: (d) => d.sink, wide: true },
    { header: 'SUBSCRIPTION', value: (d) => d.subscription, kind: 'uid', wide: true },
    { header: 'EVENT ID', value: (d) => d.eventId, wide: true },
    { header: 'UPDATED', value: (d) => d.updateTime, kind: 'time', wide: true },
  ],
};

export async function run(ctx: Context, _args: string[], opts: FlagValues<typeof deliveriesFlags>): Promise<number> {
  const query: [string, string][] = [];
  if (opts.limit !== undefined) {
    const n = Number(opts.limit);
    if (!/^\d+$/.test(opts.limit) || n < 1 || n > 1000) throw UsageError.invalidField('limit', 'must be a whole number from 1 to 1000');
    query.push(['limit', opts.limit]);
  }
  if (opts.subscription) query.push(['subscription', opts.subscription]);
  if (opts.failed) query.push(['state', 'failed']);
  const client = await ctx.client();
  const { deliveries } = (await client.request('GET', '/_pctl/deliveries', { query })) as { deliveries: DeliveryInfo[] };
  await createPrinter(ctx).list(view, (async function* () { yield deliveries; })());
  return 0;
}

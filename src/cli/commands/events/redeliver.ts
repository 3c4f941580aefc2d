// pctl events redeliver ID: the delivery is pending again, due now (POST /_pctl/deliveries/{id}:redeliver).
import type { DeliveryInfo } from '../../../api/events.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';

export async function run(ctx: Context, [id]: string[]): Promise<number> {
  if (!/^\d{1,15}$/.test(id!)) throw UsageError.invalidField('id', 'must be a delivery id (a whole number; see pctl events deliveries)');
  const client = await ctx.client();
  const d = (await client.request('POST', `/_pctl/deliveries/${id}:redeliver`, { body: {} })) as DeliveryInfo;
  ctx.io.stderr.write(`Delivery ${d.id} (${d.type} ${d.subject}) is pending again: it is sent to ${d.sink} next.\n`);
  return 0;
}

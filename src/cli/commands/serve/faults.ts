// `pctl serve faults list|add|clear`: the fault rules of a running serve, through its
// control API (/_pctl/faults) with the connection every command uses (the owner's token).
import { formatFaultRule, FaultSpecError, parseFaultSpec, type FaultRule } from '../../../api/faults.js';
import { createPrinter } from '../../../output/print.js';
import type { View } from '../../../output/columns.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';

const view: View<FaultRule> = {
  noun: 'fault rules',
  id: (f) => f.id ?? '',
  columns: [
    { header: 'ID', value: (f) => f.id, keep: true },
    { header: 'RULE', value: (f) => formatFaultRule(f) },
    { header: 'HITS', value: (f) => f.hits ?? 0 },
  ],
};

export async function runFaultsList(ctx: Context): Promise<number> {
  const client = await ctx.client();
  const { faults } = (await client.request('GET', '/_pctl/faults')) as { faults: FaultRule[] };
  await createPrinter(ctx).list(view, (async function* () { yield faults; })());
  return 0;
}

export async function runFaultsAdd(ctx: Context, spec: string): Promise<number> {
  let rule: FaultRule;
  try {
    rule = parseFaultSpec(spec);
  } catch (err) {
    if (err instanceof FaultSpecError) throw UsageError.invalidField('rule', err.message);
    throw err;
  }
  const client = await ctx.client();
  const added = (await client.request('POST', '/_pctl/faults', { body: rule })) as FaultRule;
  await createPrinter(ctx).item(view, added);
  return 0;
}

export async function runFaultsClear(ctx: Context, id: string | undefined): Promise<number> {
  const client = await ctx.client();
  if (id) await client.request('DELETE', `/_pctl/faults/${encodeURIComponent(id)}`);
  else await client.request('DELETE', '/_pctl/faults');
  return 0;
}

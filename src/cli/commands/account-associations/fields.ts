// The provider flags of create and update, as the fields (dotted, for the update mask) they set.
import type { FlagValues } from '../../command.js';
import { UsageError } from '../../errors.js';
import type { updateFlags } from './index.js';

/** `--azure-client web=1234…` repeats → {web: '1234…'}. */
function clientIds(pairs: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq < 1 || eq === pair.length - 1) throw UsageError.invalidField('azure.clientIds', `--azure-client takes NAME=ID, not ${JSON.stringify(pair)}`);
    out[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return out;
}

/** Each provider flag given, by the field it sets. */
export function providerFields(opts: Partial<FlagValues<typeof updateFlags>>): [field: string, value: unknown][] {
  const out: [string, unknown][] = [];
  if (opts.awsAccount !== undefined) out.push(['amazon.account', opts.awsAccount]);
  if (opts.gcpProjectId !== undefined) out.push(['google.projectId', opts.gcpProjectId]);
  if (opts.gcpProjectNumber !== undefined) out.push(['google.projectNumber', opts.gcpProjectNumber]);
  if (opts.azureTenant !== undefined) out.push(['azure.tenantId', opts.azureTenant]);
  if (opts.azureClient !== undefined) out.push(['azure.clientIds', clientIds(opts.azureClient)]);
  return out;
}

/** Dotted fields → a nested object (`amazon.account` → {amazon: {account}}). */
export function nest(fields: readonly [string, unknown][]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [path, value] of fields) {
    const [top, leaf] = path.split('.') as [string, string | undefined];
    if (leaf === undefined) out[top] = value;
    else out[top] = { ...((out[top]) ?? {}), [leaf]: value };
  }
  return out;
}

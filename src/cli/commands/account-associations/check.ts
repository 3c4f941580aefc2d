// pctl account-associations check ASSOCIATION --provider aws|gcp|azure: POST {uid}:check.
import { accountAssociations } from '../../../api/resources.js';
import { AccountAssociationCheck } from '../../../api/schemas.js';
import { col } from '../../../output/columns.js';
import type { FlagValues } from '../../command.js';
import type { Context } from '../../context.js';
import { printResource } from '../../shared/get.js';
import { resolver } from '../../shared/resolve.js';
import type { checkFlags } from './index.js';

const PROVIDER_TYPES = { aws: 'AMAZON', gcp: 'GOOGLE', azure: 'AZURE' } as const;
type Check = { status: string; reason: string; message: string };

const checkView = {
  noun: 'checks',
  id: (c: Check) => c.status,
  columns: [col<Check>('STATUS', (c) => c.status), col<Check>('REASON', (c) => c.reason), col<Check>('MESSAGE', (c) => c.message, { shrink: true })],
};

export async function run(ctx: Context, [ref]: string[], opts: FlagValues<typeof checkFlags>): Promise<number> {
  const uid = await resolver(ctx).uid(accountAssociations, ref!);
  const client = await ctx.client();
  const providerType = PROVIDER_TYPES[opts.provider as keyof typeof PROVIDER_TYPES];
  const result = await client.action(accountAssociations, 'check', { providerType }, AccountAssociationCheck, uid);
  return printResource(ctx, checkView, result);
}

// `pctl serve snapshot list`: the snapshots of the running serve's data dir, by name.
import { createPrinter } from '../../../../output/print.js';
import type { SnapshotInfo } from '../../../../api/snapshots.js';
import type { Context } from '../../../context.js';
import { snapshotView } from './view.js';

export async function runSnapshotList(ctx: Context): Promise<number> {
  const client = await ctx.client();
  const { snapshots } = (await client.request('GET', '/_pctl/snapshots')) as { snapshots: SnapshotInfo[] };
  await createPrinter(ctx).list(snapshotView, (async function* () { yield snapshots; })());
  return 0;
}

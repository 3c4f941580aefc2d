// `pctl serve snapshot save NAME [--force]`: the running serve's data as DATA_DIR/snapshots/NAME.db.
import { createPrinter } from '../../../../output/print.js';
import type { SnapshotInfo } from '../../../../api/snapshots.js';
import type { Context } from '../../../context.js';
import { checkSnapshotName, snapshotView } from './view.js';

export async function runSnapshotSave(ctx: Context, name: string, opts: { force?: boolean }): Promise<number> {
  checkSnapshotName(name);
  const client = await ctx.client();
  const saved = (await client.request('POST', '/_pctl/snapshots', { body: { name, ...(opts.force ? { overwrite: true } : {}) } })) as SnapshotInfo;
  await createPrinter(ctx).item(snapshotView, saved);
  return 0;
}

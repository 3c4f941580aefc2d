// `pctl serve snapshot restore NAME`: the running serve's data replaced by a snapshot's, in one
// transaction (requests see the data before or after, never between). Asks first: every
// change since the snapshot goes.
import type { SnapshotInfo } from '../../../../api/snapshots.js';
import type { Context } from '../../../context.js';
import { confirmDestructive } from '../../../shared/delete.js';
import { checkSnapshotName } from './view.js';

export async function runSnapshotRestore(ctx: Context, name: string): Promise<number> {
  checkSnapshotName(name);
  if (!(await confirmDestructive(ctx, `Replace every resource of the running serve with snapshot ${name}?`, `restore snapshot ${name}`))) {
    ctx.io.stderr.write('Aborted; nothing was restored.\n');
    return 2;
  }
  const client = await ctx.client();
  const restored = (await client.request('POST', `/_pctl/snapshots/${name}:restore`)) as SnapshotInfo;
  ctx.io.stderr.write(`Restored snapshot ${restored.name} (saved ${restored.createTime}).\n`);
  return 0;
}

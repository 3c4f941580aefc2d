// `pctl serve snapshot delete NAME`: removes DATA_DIR/snapshots/NAME.db (the data is untouched).
import type { Context } from '../../../context.js';
import { confirmDestructive } from '../../../shared/delete.js';
import { checkSnapshotName } from './view.js';

export async function runSnapshotDelete(ctx: Context, name: string): Promise<number> {
  checkSnapshotName(name);
  if (!(await confirmDestructive(ctx, `Delete snapshot ${name}?`, `delete snapshot ${name}`))) {
    ctx.io.stderr.write('Aborted; nothing was deleted.\n');
    return 2;
  }
  const client = await ctx.client();
  await client.request('DELETE', `/_pctl/snapshots/${name}`);
  if (ctx.io.stderrIsTTY) ctx.io.stderr.write(`Deleted snapshot ${name}\n`);
  return 0;
}

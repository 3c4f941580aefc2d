// `pctl serve reset --live`: the running serve back to the data its data dir was created with
// (its seed, or the plain bootstrap), through the control API, without a restart. The owner
// token keeps working. (Without --live, `serve reset` erases a stopped serve's data dir: run.ts.)
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { confirmDestructive } from '../../shared/delete.js';

export async function runLiveReset(ctx: Context, opts: { data?: string }): Promise<number> {
  // The running serve is the one the profile (or --api-url) points at; a data dir names none.
  if (opts.data) throw new UsageError('--live resets the running serve of the current profile (or --api-url), not a data dir: drop --data, or drop --live to erase a stopped serve\'s data dir');
  if (!(await confirmDestructive(ctx, 'Reset the running serve to the data its data dir was created with?', 'reset the running serve'))) {
    ctx.io.stderr.write('Aborted; nothing was reset.\n');
    return 2;
  }
  const client = await ctx.client();
  await client.request('POST', '/_pctl/reset');
  ctx.io.stderr.write('Reset the running serve to the data its data dir was created with.\n');
  return 0;
}

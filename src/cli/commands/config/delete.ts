// pctl config delete NAME: forgets a profile (and that it was current). The current profile,
// whose token every command uses, goes only after a yes (or --yes).
import type { Context } from '../../context.js';
import { NotFoundError } from '../../errors.js';
import { confirmDestructive } from '../../shared/delete.js';

export async function run(ctx: Context, [name]: string[]): Promise<number> {
  const store = await ctx.config();
  if (!store.profile(name!)) throw new NotFoundError(`Profile not found: "${name}" (see: pctl config list)`);
  if (store.currentProfileName() === name && !(await confirmDestructive(ctx, `Delete profile "${name}", the current profile, and its token?`, `delete the current profile "${name}"`))) {
    ctx.io.stderr.write('Aborted; nothing was deleted.\n');
    return 2;
  }
  store.deleteProfile(name!);
  if (ctx.io.stderrIsTTY) ctx.io.stderr.write(`Deleted profile "${name}"\n`);
  return 0;
}

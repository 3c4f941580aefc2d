// pctl config delete NAME: forgets a profile (and that it was current).
import type { Context } from '../../context.js';
import { NotFoundError } from '../../errors.js';

export async function run(ctx: Context, [name]: string[]): Promise<number> {
  const store = await ctx.config();
  if (!store.deleteProfile(name!)) throw new NotFoundError(`Profile not found: "${name}" (see: pctl config list)`);
  if (ctx.io.stderrIsTTY) ctx.io.stderr.write(`Deleted profile "${name}"\n`);
  return 0;
}

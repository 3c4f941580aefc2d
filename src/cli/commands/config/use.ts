// pctl config use NAME: later commands talk to this profile's API.
import type { Context } from '../../context.js';
import { NotFoundError } from '../../errors.js';

export async function run(ctx: Context, [name]: string[]): Promise<number> {
  const store = await ctx.config();
  if (!store.profile(name!)) throw new NotFoundError(`Profile not found: "${name}" (see: pctl config list)`);
  store.useProfile(name!);
  if (ctx.io.stderrIsTTY) ctx.io.stderr.write(`Using profile "${name}"\n`);
  return 0;
}

// What every `<resource> delete` does: confirm (asking on a TTY, refusing without one
// unless --yes), delete, and print nothing on stdout.
import type { ResourceDescriptor } from '../../api/resources.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { resolver } from './resolve.js';

/** Resolves true when the user agreed (or --yes); throws a UsageError when it cannot ask. */
export async function confirmDestructive(ctx: Context, question: string, what: string): Promise<boolean> {
  if (ctx.globals.yes) return true;
  if (!ctx.io.stdinIsTTY) {
    throw new UsageError(`refusing to ${what} without confirmation: stdin is not a terminal; pass --yes`);
  }
  return ctx.prompter.confirm(question);
}

export async function runDelete(ctx: Context, descriptor: ResourceDescriptor, ref: string): Promise<number> {
  const noun = descriptor.nouns.one;
  // Refuse before any lookup when we cannot ask; then resolve a name or uid suffix first, so
  // that the question names the uid that will go.
  if (!ctx.globals.yes && !ctx.io.stdinIsTTY) await confirmDestructive(ctx, '', `delete ${noun} ${ref}`);
  const resolved = await resolver(ctx).resolve(descriptor, ref);
  const uid = resolved.uid;
  const client = await ctx.client();
  if (!ctx.globals.yes) {
    // The question names what goes: `Delete group "platform" (…/224f8a90880b00ec)?`. A missing
    // resource fails here (exit 3), before anyone is asked about it.
    const item = (resolved.item ?? (await client.get(descriptor, uid))) as { name?: string };
    const short = uid.includes('/') ? `…/${uid.slice(uid.lastIndexOf('/') + 1)}` : uid;
    const label = item.name ? `"${item.name}" (${short})` : uid;
    if (!(await confirmDestructive(ctx, `Delete ${noun} ${label}?`, `delete ${noun} ${uid}`))) {
      ctx.io.stderr.write('Aborted; nothing was deleted.\n');
      return 2;
    }
  }
  await client.delete(descriptor, uid);
  if (ctx.io.stderrIsTTY) ctx.io.stderr.write(`Deleted ${noun} ${uid}\n`);
  return 0;
}

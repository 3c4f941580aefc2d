// What every `<resource> get` does: resolve the reference, fetch by uid (uids with `/` are path elements) and print.
import type { ResourceDescriptor } from '../../api/resources.js';
import type { View } from '../../output/columns.js';
import { createPrinter } from '../../output/print.js';
import type { Context } from '../context.js';
import { resolver } from './resolve.js';

/** `ref` is a uid, or for groups and repos also a name or uid suffix (groups: a name path too); a resource a name lookup listed is not fetched again. */
export async function runGet(ctx: Context, descriptor: ResourceDescriptor, ref: string, view: View<never> = descriptor.view as View<never>): Promise<number> {
  const resolved = await resolver(ctx).resolve(descriptor, ref);
  const client = await ctx.client();
  const item = resolved.item ?? (await client.get(descriptor, resolved.uid));
  await createPrinter(ctx).item(view as View<unknown>, item);
  return 0;
}

/** Prints a resource just created or updated. */
export async function printResource(ctx: Context, view: View<never>, item: unknown): Promise<number> {
  await createPrinter(ctx).item(view as View<unknown>, item);
  return 0;
}

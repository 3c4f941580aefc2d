// What every `<resource> get` does: fetch by uid (uids with `/` are path elements) and print.
import type { ResourceDescriptor } from '../../api/resources.js';
import type { View } from '../../output/columns.js';
import { createPrinter } from '../../output/print.js';
import type { Context } from '../context.js';

export async function runGet(ctx: Context, descriptor: ResourceDescriptor, view: View<never>, uid: string): Promise<number> {
  const client = await ctx.client();
  const item = await client.get(descriptor, uid);
  await createPrinter(ctx).item(view as View<unknown>, item);
  return 0;
}

/** Prints a resource just created or updated. */
export async function printResource(ctx: Context, view: View<never>, item: unknown): Promise<number> {
  await createPrinter(ctx).item(view as View<unknown>, item);
  return 0;
}

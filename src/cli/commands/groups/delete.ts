// pctl groups delete UID [--yes]
import { groups } from '../../../api/resources.js';
import type { Context } from '../../context.js';
import { runDelete } from '../../shared/delete.js';

export async function run(ctx: Context, [uid]: string[]): Promise<number> {
  return runDelete(ctx, groups, uid!);
}

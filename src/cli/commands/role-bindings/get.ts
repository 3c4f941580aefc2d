// pctl role-bindings get UID
import { roleBindings } from '../../../api/resources.js';
import { views } from '../../../output/columns.js';
import type { Context } from '../../context.js';
import { runGet } from '../../shared/get.js';

export async function run(ctx: Context, [uid]: string[]): Promise<number> {
  return runGet(ctx, roleBindings, views.roleBindings, uid!);
}

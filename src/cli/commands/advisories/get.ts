// pctl advisories get UID
import { advisories } from '../../../api/resources.js';
import { views } from '../../../output/columns.js';
import type { Context } from '../../context.js';
import { runGet } from '../../shared/get.js';

export async function run(ctx: Context, [uid]: string[]): Promise<number> {
  return runGet(ctx, advisories, views.advisories, uid!);
}

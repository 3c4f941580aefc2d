// pctl apply -f FILE [--prune] [--dry-run] [--yes]: the plan, then the changes. On a terminal
// any change is asked about first (as Terraform does) unless --yes; without one nothing is
// asked: creates and updates go ahead, deletes are refused unless --yes (as delete does). A failure stops new
// changes; the report says what was applied, what failed and what was not tried (exit 1).
import { ApiError } from '../../../api/errors.js';
import type { Context } from '../../context.js';
import { colorEnabled } from '../../context.js';
import { UsageError } from '../../errors.js';
import { execute } from '../../manifest/execute.js';
import type { Change } from '../../manifest/plan.js';
import { KIND_LABEL } from '../../manifest/plan.js';
import { changeLine, plainPaint, renderPlan, summaryLine, terminalPaint } from '../../manifest/render.js';
import { planFile, writeNotes } from '../../manifest/session.js';
import type { FlagValues } from '../../command.js';
import type { applyFlags } from './index.js';

const DONE = { create: 'created', update: 'updated', delete: 'deleted' } as const;
const label = (c: Change) => `${KIND_LABEL[c.kind]} ${c.kind === 'group' ? c.where : c.kind === 'roleBinding' ? `${c.name} in ${c.where}` : `${c.where}/${c.name}`}`;

export async function run(ctx: Context, _args: string[], opts: FlagValues<typeof applyFlags>): Promise<number> {
  ctx.globals = { ...ctx.globals, output: undefined }; // plans are built from checked resources
  const { plan, client } = await planFile(ctx, opts.file, Boolean(opts.prune));
  const paint = colorEnabled(ctx) ? await terminalPaint() : plainPaint;
  const out = ctx.io.stdout;
  writeNotes(ctx, plan.notes);
  if (!plan.changes.length) {
    out.write(`Nothing to do: the server matches ${opts.file}.\n`);
    return 0;
  }
  out.write(renderPlan(plan, paint));
  out.write(`Plan: ${summaryLine(plan.changes)}.\n`);
  if (opts.dryRun) {
    out.write('Dry run: nothing was changed.\n');
    return 0;
  }
  const deletes = plan.changes.filter((c) => c.action === 'delete').length;
  if (!ctx.globals.yes && (deletes || ctx.io.stdinIsTTY)) {
    if (!ctx.io.stdinIsTTY) throw new UsageError(`refusing to delete ${deletes} resource${deletes === 1 ? '' : 's'} without confirmation: stdin is not a terminal; pass --yes (nothing was changed)`);
    const question = deletes ? `Apply this plan, deleting ${deletes} resource${deletes === 1 ? '' : 's'}?` : 'Apply this plan?';
    if (!(await ctx.prompter.confirm(question))) {
      ctx.io.stderr.write('Aborted; nothing was changed.\n');
      return 2;
    }
  }
  const outcome = await execute(plan.changes, client, (c) => out.write(`${DONE[c.action]} ${label(c)}\n`));
  if (!outcome.failed.length) {
    out.write(`Applied ${outcome.applied.length} change${outcome.applied.length === 1 ? '' : 's'}.\n`);
    return 0;
  }
  const err = ctx.io.stderr;
  err.write(`error: apply stopped at a failure: ${outcome.applied.length} applied, ${outcome.failed.length} failed, ${outcome.notTried.length} not tried; run it again once the cause is fixed\n`);
  for (const { change, error } of outcome.failed) {
    err.write(`failed: ${changeLine(change)} in ${change.where}: ${error instanceof Error ? error.message : String(error)}\n`);
    if (error instanceof ApiError) for (const v of error.fieldViolations) err.write(`  ${v.field}: ${v.description}\n`);
  }
  for (const change of outcome.notTried) err.write(`not tried: ${changeLine(change)} in ${change.where}\n`);
  return 1;
}

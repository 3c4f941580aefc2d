// pctl diff -f FILE [--prune] [-o json]: the plan, and exit 1 when there is one (as diff(1)
// and kubectl diff). Errors exit 2 and up: a failed request is 5 here, not 1.
import type { Context } from '../../context.js';
import { colorEnabled } from '../../context.js';
import { exitCodeFor, ExitCode, renderError } from '../../errors.js';
import { planJson, plainPaint, renderPlan, terminalPaint } from '../../manifest/render.js';
import { planFile, writeNotes } from '../../manifest/session.js';
import type { FlagValues } from '../../command.js';
import type { diffFlags } from './index.js';

/** diff's exit status for a failure that would otherwise be 1 ("differs"). */
export const DIFF_FAILED = 5;

export async function run(ctx: Context, _args: string[], opts: FlagValues<typeof diffFlags>): Promise<number> {
  const json = ctx.globals.output === 'json';
  ctx.globals = { ...ctx.globals, output: undefined };
  try {
    const { plan } = await planFile(ctx, opts.file, Boolean(opts.prune));
    if (json) ctx.io.stdout.write(`${JSON.stringify(planJson(plan), null, 2)}\n`);
    else ctx.io.stdout.write(renderPlan(plan, colorEnabled(ctx) ? await terminalPaint() : plainPaint));
    writeNotes(ctx, plan.notes);
    return plan.changes.length ? 1 : 0;
  } catch (err) {
    renderError(ctx.io, err, ctx.globals.debug);
    const code = exitCodeFor(err);
    return code === ExitCode.FAILED ? DIFF_FAILED : code;
  }
}

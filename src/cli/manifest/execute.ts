// Carrying out a plan: each change starts once the changes it waits for are done, at most
// CONCURRENCY at a time, through the one client (retries, rate-limit backoff). After the
// first failure nothing new starts; what is under way finishes, so the report is exact:
// applied, failed (with the API's error), not tried. Running the same manifest again
// plans only what is still missing.
import type { ApiClient } from '../../client/index.js';
import { KIND_ORDER, type Change } from './plan.js';

/** Requests in flight at once: enough to hide latency, few enough not to crowd a server. */
const CONCURRENCY = 8;

export interface Outcome {
  applied: Change[];
  failed: { change: Change; error: unknown }[];
  notTried: Change[];
}

/** Groups before what lives in them, shallow before deep; deletes last (their own order is in their deps). */
function priority(c: Change): number {
  if (c.action === 'delete') return 100;
  return c.kind === 'group' ? c.where.split('/').length : 50 + KIND_ORDER.indexOf(c.kind);
}

export async function execute(changes: readonly Change[], client: ApiClient, onApplied: (c: Change) => void = () => {}): Promise<Outcome> {
  const waiting = [...changes].sort((a, b) => priority(a) - priority(b));
  const done = new Set<Change>();
  const outcome: Outcome = { applied: [], failed: [], notTried: [] };
  const running = new Set<Promise<void>>();
  const start = (c: Change) => {
    const p: Promise<void> = c.run(client).then(
      (uid) => {
        if (uid) c.uid = uid;
        done.add(c);
        outcome.applied.push(c);
        onApplied(c);
      },
      (error: unknown) => void outcome.failed.push({ change: c, error }),
    ).finally(() => running.delete(p));
    running.add(p);
  };
  for (;;) {
    if (!outcome.failed.length) {
      for (let i = 0; i < waiting.length && running.size < CONCURRENCY;) {
        const c = waiting[i]!;
        if (c.deps.every((d) => done.has(d))) {
          waiting.splice(i, 1);
          start(c);
        } else {
          i++;
        }
      }
    }
    if (!running.size) break;
    await Promise.race(running);
  }
  outcome.notTried = waiting;
  return outcome;
}

// The change feed: every committed write of a resource row, as a typed record, in commit
// order, whichever door the write came in by. The store makes the records (it sees every row
// a write touches); who wrote and when come with the write (WriteOrigin). Subscribers are
// of two sorts: a hook that runs inside the write's transaction (to add rows of its own in
// the same commit: an outbox), and a listener told after the commit.
import type { Kind, Record_ } from './record.js';

type ChangeVerb = 'created' | 'updated' | 'deleted';

/** Who made a write, when, and by which operation: given to Store.write, carried by its changes. */
export interface WriteOrigin {
  /** The acting identity's uid; null for serve itself (bootstrap, seeds, lastSeenTime). */
  actor: string | null;
  /** RFC 3339, by serve's clock. */
  time: string;
  /** The domain operation ("roleBindings.create", "groupInvites.redeem"); null when none. */
  operation: string | null;
  /**
   * The validated claims of the actor's token, as text (events' actor.act). Only the writing
   * process has them: the log of a shared database does not keep them.
   */
  claims?: Readonly<Record<string, string>>;
}

/** One committed change of one resource row. */
export interface ResourceChange {
  /** Monotonic across the data dir (or the shared database): commit order. */
  seq: number;
  kind: Kind;
  uid: string;
  verb: ChangeVerb;
  /** The record after the write; for `deleted`, as it was before. */
  record: Record_;
  actor: string | null;
  time: string;
  operation: string | null;
  /** See WriteOrigin.claims. */
  claims?: Readonly<Record<string, string>>;
}

/**
 * Runs inside the write's transaction, after the operation's own writes, with the changes they
 * made (seq already assigned). What it writes through the store (Store.putEntry: an outbox)
 * commits with them; a hook that throws fails the write, and nothing of it is kept.
 */
export type ChangeHook = (changes: readonly ResourceChange[]) => void;

/** Told after the commit, in commit order; a listener that throws is logged, never fails a write. */
export type ChangeListener = (changes: readonly ResourceChange[]) => void;

/**
 * The subscribers. A store with none does no work for the feed (no row is read back), so a
 * serve without events or watchers pays nothing for it.
 */
export class ChangeFeed {
  private readonly hooks = new Set<ChangeHook>();
  private readonly listeners = new Set<ChangeListener>();
  private readonly resetListeners = new Set<() => void>();

  /** Adds rows of your own in the write's transaction (see ChangeHook); returns the unsubscribe. */
  inTransaction(hook: ChangeHook): () => void {
    this.hooks.add(hook);
    return () => this.hooks.delete(hook);
  }

  /** Told of every committed change, in commit order (see ChangeListener); returns the unsubscribe. */
  subscribe(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Told when every row may have changed at once (a snapshot restore, a live reset, a replica
   * reloading after falling behind the log): no per-row changes are reported for that.
   */
  onReset(listener: () => void): () => void {
    this.resetListeners.add(listener);
    return () => this.resetListeners.delete(listener);
  }

  /** Whether anyone listens: the store reads rows back for the feed only then. */
  get active(): boolean {
    return this.hooks.size > 0 || this.listeners.size > 0;
  }

  /** Runs the in-transaction hooks (the store calls this inside the write). */
  runHooks(changes: readonly ResourceChange[]): void {
    if (!changes.length) return;
    for (const hook of this.hooks) hook(changes);
  }

  /** Tells the listeners (the store calls this after the commit). */
  publish(changes: readonly ResourceChange[], log: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): void {
    if (!changes.length) return;
    for (const listener of this.listeners) {
      try {
        listener(changes);
      } catch (err) {
        log(`change listener failed: ${(err as Error)?.stack ?? String(err)}`);
      }
    }
  }

  publishReset(): void {
    for (const listener of this.resetListeners) listener();
  }
}

/** The change a write made to one row: from the row before it (undefined: none) and after it. */
export function changeOf(
  seq: number, before: Record_ | undefined, after: Record_ | undefined, origin: WriteOrigin,
): ResourceChange | undefined {
  const record = after ?? before;
  if (!record) return undefined;
  const verb: ChangeVerb = !before ? 'created' : after ? 'updated' : 'deleted';
  const change: ResourceChange = { seq, kind: record.kind, uid: record.uid, verb, record, actor: origin.actor, time: origin.time, operation: origin.operation };
  if (origin.claims) change.claims = origin.claims;
  return change;
}

// The outbox: the change events that writes commit, in the same transaction as the write, and
// a delivery row for each subscription an event goes to. The feed (`pctl events watch`) reads
// the events in commit order; the deliverer (src/server/surfaces/events/deliverer.ts) claims due
// deliveries, one at a time per subscription, and settles them. SQLite keeps both tables in
// the data dir's database (this file); PostgreSQL in the shared database (postgres.ts).
import type { Database as DB } from 'better-sqlite3';

/** An event as the outbox keeps it: the CloudEvent attributes and the exact body sent. */
interface OutboxEvent {
  /** Ce-Id: the same on every attempt and for every subscription. */
  id: string;
  type: string;
  source: string;
  /** Ce-Subject: the resource's uid. */
  subject: string;
  /** Ce-Group: '' for a resource outside the group hierarchy. */
  group: string;
  /** Ce-Time, RFC 3339. */
  time: string;
  bodyType: string;
  /** The body as sent: the JSON text of {actor, body}. */
  data: string;
}

/** What one change adds: its event, and the subscriptions it is delivered to. */
export interface OutboxEntry {
  event: OutboxEvent;
  subscriptions: { uid: string; sink: string }[];
}

/** An event of the feed: numbered in commit order (gaps allowed). */
export interface FeedEvent extends OutboxEvent {
  seq: number;
}

type DeliveryState = 'pending' | 'delivered' | 'failed';

export interface Delivery {
  id: number;
  seq: number;
  subscription: string;
  sink: string;
  state: DeliveryState;
  attempts: number;
  /** Epoch ms of the next attempt (pending deliveries). */
  nextAttempt: number;
  lastStatus: number | null;
  lastError: string | null;
  updateTime: string;
  type: string | null;
  subject: string | null;
  eventId: string | null;
}

/** The outcome of an attempt, as the deliverer settles it. */
export interface Settlement {
  state: DeliveryState;
  attempts: number;
  nextAttempt: number;
  lastStatus: number | null;
  lastError: string | null;
  updateTime: string;
}

export interface DeliveryFilter {
  id?: number | undefined;
  subscription?: string | undefined;
  state?: DeliveryState | undefined;
  limit: number;
}

export interface Outbox {
  /** Events after `seq`, oldest first, at most `limit`. */
  eventsSince(seq: number, limit: number): Promise<FeedEvent[]>;
  /** The seq of the newest event (0: none yet). */
  lastSeq(): Promise<number>;
  /**
   * Leases up to `limit` due deliveries until `now + leaseMs`: of each subscription only the
   * oldest pending one (deliveries go in commit order), and none another replica holds.
   */
  claim(now: number, limit: number, leaseMs: number): Promise<{ delivery: Delivery; event: FeedEvent }[]>;
  settle(id: number, outcome: Settlement): Promise<void>;
  deliveries(filter: DeliveryFilter): Promise<Delivery[]>;
  /** Makes a delivery pending again, due now, attempts from zero; false when there is none. */
  redeliver(id: number, now: number, time: string): Promise<boolean>;
  /** When the earliest delivery that heads its subscription's queue is due (epoch ms), if any. */
  nextDue(): Promise<number | undefined>;
  /** Takes back the leases of a previous run; only where one process delivers (a data dir's SQLite). */
  releaseLeases?(): Promise<void>;
  /** Drops settled deliveries and events beyond the newest `keep` (never what a pending delivery needs). */
  prune(keep: number): Promise<void>;
}

/** The SQLite tables (migration 3 of db.ts). */
export const SQLITE_OUTBOX_SCHEMA = `
  CREATE TABLE events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL, type TEXT NOT NULL, source TEXT NOT NULL,
    subject TEXT NOT NULL, grp TEXT NOT NULL, event_time TEXT NOT NULL, body_type TEXT NOT NULL, data TEXT NOT NULL
  );
  CREATE TABLE deliveries (
    id INTEGER PRIMARY KEY AUTOINCREMENT, event_seq INTEGER NOT NULL, subscription TEXT NOT NULL, sink TEXT NOT NULL,
    state TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, next_attempt INTEGER NOT NULL, lease_until INTEGER NOT NULL DEFAULT 0,
    last_status INTEGER, last_error TEXT, update_time TEXT NOT NULL
  );
  CREATE INDEX deliveries_queue ON deliveries (subscription, state, id);
  CREATE INDEX deliveries_due ON deliveries (state, next_attempt);`;

export interface EventRow { seq: number; id: string; type: string; source: string; subject: string; grp: string; event_time: string; body_type: string; data: string }
export interface DeliveryRow {
  id: number; event_seq: number; subscription: string; sink: string; state: DeliveryState; attempts: number; next_attempt: number;
  last_status: number | null; last_error: string | null; update_time: string; type: string | null; subject: string | null; event_id: string | null;
}

export function feedEvent(r: EventRow): FeedEvent {
  return { seq: Number(r.seq), id: r.id, type: r.type, source: r.source, subject: r.subject, group: r.grp, time: r.event_time, bodyType: r.body_type, data: r.data };
}

export function delivery(r: DeliveryRow): Delivery {
  return {
    id: Number(r.id), seq: Number(r.event_seq), subscription: r.subscription, sink: r.sink, state: r.state, attempts: Number(r.attempts),
    nextAttempt: Number(r.next_attempt), lastStatus: r.last_status === null ? null : Number(r.last_status), lastError: r.last_error,
    updateTime: r.update_time, type: r.type, subject: r.subject, eventId: r.event_id,
  };
}

/** A pending delivery `d` that heads its subscription's queue: deliveries go in commit order. */
export const HEAD = "d.state = 'pending' AND NOT EXISTS (SELECT 1 FROM deliveries q WHERE q.subscription = d.subscription AND q.state = 'pending' AND q.id < d.id)";

/** The deliveries with their event's type and subject, newest first (SQL shared by both stores). */
export const DELIVERY_SELECT =
  'SELECT d.id, d.event_seq, d.subscription, d.sink, d.state, d.attempts, d.next_attempt, d.last_status, d.last_error, d.update_time, ' +
  'e.type, e.subject, e.id AS event_id FROM deliveries d LEFT JOIN events e ON e.seq = d.event_seq';

/** The outbox of a data dir's SQLite database: one process, so a lease only keeps a delivery from being claimed twice. */
export class SqliteOutbox implements Outbox {
  private readonly insertEvent;
  private readonly insertDelivery;

  constructor(private readonly db: DB) {
    this.insertEvent = db.prepare('INSERT INTO events (id, type, source, subject, grp, event_time, body_type, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
    this.insertDelivery = db.prepare("INSERT INTO deliveries (event_seq, subscription, sink, state, next_attempt, update_time) VALUES (?, ?, ?, 'pending', ?, ?)");
  }

  /** Inside the write's transaction (a change feed hook): the events in order, each with its deliveries, due now. */
  write(entries: readonly OutboxEntry[], now: number): void {
    for (const { event: e, subscriptions } of entries) {
      const seq = this.insertEvent.run(e.id, e.type, e.source, e.subject, e.group, e.time, e.bodyType, e.data).lastInsertRowid;
      for (const s of subscriptions) this.insertDelivery.run(seq, s.uid, s.sink, now, e.time);
    }
  }

  /** Everything the tables hold, as entries: on a mirror, what the writes of the batch running now added. */
  takeAll(): OutboxEntry[] {
    const events = this.db.prepare('SELECT * FROM events ORDER BY seq').all() as EventRow[];
    if (!events.length) return [];
    const bySeq = new Map(events.map((r) => [r.seq, { event: feedEvent(r), subscriptions: [] as OutboxEntry['subscriptions'] }]));
    for (const d of this.db.prepare('SELECT event_seq, subscription, sink FROM deliveries ORDER BY id').all() as { event_seq: number; subscription: string; sink: string }[]) {
      bySeq.get(d.event_seq)?.subscriptions.push({ uid: d.subscription, sink: d.sink });
    }
    return [...bySeq.values()].map(({ event: { seq: _seq, ...event }, subscriptions }) => ({ event, subscriptions }));
  }

  async eventsSince(seq: number, limit: number): Promise<FeedEvent[]> {
    return (this.db.prepare('SELECT * FROM events WHERE seq > ? ORDER BY seq LIMIT ?').all(seq, limit) as EventRow[]).map(feedEvent);
  }

  async lastSeq(): Promise<number> {
    return (this.db.prepare('SELECT max(seq) AS seq FROM events').get() as { seq: number | null }).seq ?? 0;
  }

  async claim(now: number, limit: number, leaseMs: number): Promise<{ delivery: Delivery; event: FeedEvent }[]> {
    const heads = this.db.prepare(
      `${DELIVERY_SELECT} WHERE ${HEAD} AND d.next_attempt <= ? AND d.lease_until <= ? ORDER BY d.id LIMIT ?`,
    ).all(now, now, limit) as DeliveryRow[];
    const lease = this.db.prepare('UPDATE deliveries SET lease_until = ? WHERE id = ?');
    const event = this.db.prepare('SELECT * FROM events WHERE seq = ?');
    const out: { delivery: Delivery; event: FeedEvent }[] = [];
    this.db.transaction(() => {
      for (const row of heads) {
        const ev = event.get(row.event_seq) as EventRow | undefined;
        if (!ev) continue;
        lease.run(now + leaseMs, row.id);
        out.push({ delivery: delivery(row), event: feedEvent(ev) });
      }
    })();
    return out;
  }

  async settle(id: number, o: Settlement): Promise<void> {
    this.db
      .prepare('UPDATE deliveries SET state = ?, attempts = ?, next_attempt = ?, lease_until = 0, last_status = ?, last_error = ?, update_time = ? WHERE id = ?')
      .run(o.state, o.attempts, o.nextAttempt, o.lastStatus, o.lastError, o.updateTime, id);
  }

  async deliveries(f: DeliveryFilter): Promise<Delivery[]> {
    const where: string[] = [];
    const args: unknown[] = [];
    if (f.id !== undefined) { where.push('d.id = ?'); args.push(f.id); }
    if (f.subscription) { where.push('d.subscription = ?'); args.push(f.subscription); }
    if (f.state) { where.push('d.state = ?'); args.push(f.state); }
    const sql = `${DELIVERY_SELECT}${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY d.id DESC LIMIT ?`;
    return (this.db.prepare(sql).all(...args, f.limit) as DeliveryRow[]).map(delivery);
  }

  async redeliver(id: number, now: number, time: string): Promise<boolean> {
    return this.db
      .prepare("UPDATE deliveries SET state = 'pending', attempts = 0, next_attempt = ?, lease_until = 0, update_time = ? WHERE id = ?")
      .run(now, time, id).changes > 0;
  }

  async nextDue(): Promise<number | undefined> {
    const row = this.db.prepare(`SELECT min(max(next_attempt, lease_until)) AS t FROM deliveries d WHERE ${HEAD}`).get() as { t: number | null };
    return row.t ?? undefined;
  }

  async releaseLeases(): Promise<void> {
    this.db.prepare("UPDATE deliveries SET lease_until = 0 WHERE state = 'pending' AND lease_until > 0").run();
  }

  async prune(keep: number): Promise<void> {
    this.db.transaction(() => {
      this.db.prepare("DELETE FROM deliveries WHERE state <> 'pending' AND id <= (SELECT max(id) FROM deliveries) - ?").run(keep);
      this.db.prepare('DELETE FROM events WHERE seq <= (SELECT max(seq) FROM events) - ? AND seq NOT IN (SELECT event_seq FROM deliveries)').run(keep);
    })();
  }
}

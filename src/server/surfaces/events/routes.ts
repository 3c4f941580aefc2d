// serve's event extensions under /_pctl/ (the owner's, like the rest of the control API):
//
//   GET  /_pctl/events        the change feed, in commit order: ?after=SEQ (default: the newest,
//                             so only what comes next), ?limit=N (default and most 500),
//                             ?wait=SECONDS (up to 60: hold the answer until a match commits),
//                             ?descendants_of=GROUP_UID (events of that group and below),
//                             ?type=GLOB (`*` any run: dev.chainguard.api.iam.group.*);
//                             {events, last}: resume with after=last
//   GET  /_pctl/deliveries    the delivery log, newest first: ?subscription=UID, ?state=
//                             pending|delivered|failed, ?limit=N (default 100, most 1000)
//   POST /_pctl/deliveries/{id}:redeliver   pending again, due now, attempts from zero
import { ApiError, Code, invalidField } from '../../../api/errors.js';
import { DELIVERY_STATES, type DeliveryInfo, type EventData, type FeedEvent } from '../../../api/events.js';
import type { ControlHandler } from '../control/routes.js';
import type { Request } from '../../pipeline/handler.js';
import { timestamp } from '../../domain/records.js';
import type { Delivery, FeedEvent as StoredEvent } from '../../store/outbox.js';
import type { Store } from '../../store/store.js';

const FEED_LIMIT = 500;
const MAX_WAIT_S = 60;
/** How often a waiting feed looks at the shared database (other replicas' events). */
const SHARED_POLL_MS = 250;

export function eventControlRoutes(store: Store, wakeDeliverer: () => void): Record<string, ControlHandler> {
  const outbox = store.outbox;
  return {
    'GET /_pctl/events': async (req) => {
      const limit = whole(req, 'limit', FEED_LIMIT) ?? FEED_LIMIT;
      const wait = whole(req, 'wait', MAX_WAIT_S) ?? 0;
      const after = whole(req, 'after', Number.MAX_SAFE_INTEGER) ?? (await outbox.lastSeq());
      const group = req.query.get('descendants_of') ?? undefined;
      const type = req.query.get('type');
      const typeRe = type ? new RegExp(`^${type.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`) : undefined;
      const matches = (e: StoredEvent) => (!group || e.group === group || e.group.startsWith(`${group}/`)) && (!typeRe || typeRe.test(e.type));
      // limit=0: no events, only where the feed stands (`pctl events watch` starts from there).
      if (limit === 0) return { body: { events: [], last: after } };
      const deadline = Date.now() + wait * 1000;
      let last = after;
      for (;;) {
        const batch = await outbox.eventsSince(last, FEED_LIMIT);
        const found = batch.filter(matches).slice(0, limit);
        // Resume after the last one sent, or (none matched) after all that were looked at.
        last = found.length === limit ? found[found.length - 1]!.seq : (batch[batch.length - 1]?.seq ?? last);
        if (found.length || batch.length === FEED_LIMIT || Date.now() >= deadline) return { body: { events: found.map(feedWire), last } };
        await nextCommit(store, deadline);
      }
    },
    'GET /_pctl/deliveries': async (req) => {
      const state = req.query.get('state') ?? undefined;
      if (state !== undefined && !(DELIVERY_STATES as readonly string[]).includes(state)) throw invalidField('state', `must be one of ${DELIVERY_STATES.join(', ')}`);
      const list = await outbox.deliveries({
        subscription: req.query.get('subscription') ?? undefined,
        state: state as Delivery['state'] | undefined,
        limit: whole(req, 'limit', 1000) ?? 100,
      });
      return { body: { deliveries: list.map(deliveryWire) } };
    },
    'POST /_pctl/deliveries/{id}:redeliver': async (_req, { id }) => {
      if (!/^\d{1,15}$/.test(id!)) throw invalidField('id', 'must be a delivery id (a whole number)');
      const now = Date.now();
      if (!(await outbox.redeliver(Number(id), now, timestamp(now)))) {
        throw new ApiError(Code.NOT_FOUND, `Delivery not found: ${id}`, { reason: 'NOT_FOUND' });
      }
      wakeDeliverer();
      const [d] = await outbox.deliveries({ id: Number(id), limit: 1 });
      return { body: d ? deliveryWire(d) : {} };
    },
  };
}

/** Resolves at the next commit (on a shared database: soon, to look), or at the deadline. */
function nextCommit(store: Store, deadline: number): Promise<void> {
  return new Promise((resolve) => {
    const wait = Math.max(0, Math.min(deadline - Date.now(), store.shared ? SHARED_POLL_MS : Infinity));
    // unref: a held request does not keep a closed serve's process alive for the rest of its wait.
    const timer = setTimeout(done, wait).unref();
    const unsubscribe = store.changes.subscribe(done);
    function done() {
      clearTimeout(timer);
      unsubscribe();
      resolve();
    }
  });
}

function whole(req: Request, name: string, max: number): number | undefined {
  const raw = req.query.get(name);
  if (raw === null) return undefined;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n > max) throw invalidField(name, `must be a whole number from 0 to ${max}`);
  return n;
}

function feedWire(e: StoredEvent): FeedEvent {
  return { seq: e.seq, id: e.id, type: e.type, source: e.source, subject: e.subject, group: e.group, time: e.time, data: JSON.parse(e.data) as EventData };
}

function deliveryWire(d: Delivery): DeliveryInfo {
  return {
    id: d.id, eventId: d.eventId ?? '', seq: d.seq, type: d.type ?? '', subject: d.subject ?? '', subscription: d.subscription, sink: d.sink,
    state: d.state, attempts: d.attempts,
    ...(d.lastStatus !== null ? { lastStatus: d.lastStatus } : {}),
    ...(d.lastError ? { lastError: d.lastError } : {}),
    ...(d.state === 'pending' ? { nextAttemptTime: timestamp(d.nextAttempt) } : {}),
    updateTime: d.updateTime,
  };
}

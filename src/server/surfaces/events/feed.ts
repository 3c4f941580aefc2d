// Change events: each change a caller commits (the store's change feed, store/changes.ts)
// becomes one CloudEvent in the outbox, in the same transaction, with a delivery for every
// subscription of its group or of an ancestor. Serve's own writes (bootstrap, seeds, restores:
// no actor) make none. What an event says is pinned by shared/spec/events.md; docs/events.md
// tells users.
import { byStoreKind, type Resource } from '../../../api/registry/index.js';
import { eventType, type EventData } from '../../../api/events.js';
import { timestamp } from '../../domain/records.js';
import { wireFormOf } from '../wire.js';
import type { Random } from '../../base/random.js';
import type { ResourceChange } from '../../store/changes.js';
import type { OutboxEntry } from '../../store/outbox.js';
import type { Record_, Store } from '../../store/store.js';

export interface FeedOptions {
  random: Random;
  /** Ce-Time. */
  clock: () => number;
  /** serve's public URL (the issuer): Ce-Source is it plus the resource's collection path. */
  baseUrl: () => string;
  /** Told after a commit that queued deliveries (most commits queue none: no subscription). */
  onDeliveries?: () => void;
}

/** Writes the events of every change with an actor into the outbox, in the write's transaction. */
export function recordEvents(store: Store, opts: FeedOptions): () => void {
  const toEntry = eventOf(store, opts);
  // Set in the transaction, told after its commit (a rolled-back one at worst costs a look for nothing).
  let queued = false;
  const stopHook = store.changes.inTransaction((changes) => {
    const entries = batches(changes).flatMap((b) => toEntry(b) ?? []);
    if (!entries.length) return;
    store.sqliteOutbox.write(entries, Date.now());
    if (entries.some((e) => e.subscriptions.length)) queued = true;
  });
  const stopListener = store.changes.subscribe(() => {
    if (!queued) return;
    queued = false;
    opts.onDeliveries?.();
  });
  return () => {
    stopHook();
    stopListener();
  };
}

/** The changes of one write as events: one each, but a batch method's (BatchCreateRoleBindings), which is one event. */
function batches(changes: readonly ResourceChange[]): ResourceChange[][] {
  const out: ResourceChange[][] = [];
  for (const change of changes) {
    const last = out.at(-1);
    if (last && isBatch(change) && last[0]!.operation === change.operation && last[0]!.kind === change.kind) last.push(change);
    else out.push([change]);
  }
  return out;
}

/** A change made by a method whose published event is a batch's (`…created.batch.v1`). */
function isBatch(change: ResourceChange): boolean {
  const d = byStoreKind(change.kind);
  return Boolean(d && change.operation && eventType(d, change.verb, change.operation).endsWith('.batch.v1'));
}

function eventOf(store: Store, opts: FeedOptions): (changes: readonly ResourceChange[]) => OutboxEntry | undefined {
  const subscriptions = subscriptionIndex(store);
  return (changes) => {
    const change = changes[0]!;
    const d = byStoreKind(change.record.kind);
    if (!d || !change.actor) return undefined;
    const batch = isBatch(change);
    const domain = d.path.split('/')[1];
    // A batch's subject and group are the group of its first item; its body, the method's response.
    const subject = batch ? change.record.parent ?? '' : wireUid(change.record);
    const group = batch ? subject : eventGroup(change.record, subject, change.verb);
    const data: EventData = {};
    data.actor = actorOf(change.actor, change.claims);
    const body = batch ? { [d.plural]: changes.map((c) => bodyOf(store, d, c, wireUid(c.record))) } : bodyOf(store, d, change, subject);
    if (body) data.body = body;
    const entry: OutboxEntry = {
      event: {
        id: uuid(opts.random),
        type: eventType(d, change.verb, change.operation),
        source: `${opts.baseUrl()}${d.path}`,
        subject,
        group,
        time: change.time || timestamp(opts.clock()),
        bodyType: `chainguard.platform.${domain}.v2.${batch ? `${change.operation!.split('.')[1]}Response` : change.verb === 'deleted' ? `Delete${d.kind}Request` : d.kind}`,
        data: JSON.stringify(data),
      },
      subscriptions: group ? subscriptions(group) : [],
    };
    return entry;
  };
}

/** The uid the API shows (an account association's is its group's). */
function wireUid(rec: Record_): string {
  return rec.kind === 'accountAssociation' ? rec.parent ?? rec.uid : rec.uid;
}

/**
 * Ce-Group, as the vendor sets it: a group's own uid for its create and update; the
 * organization for tags; otherwise the parent of the uid (a group's delete included). An
 * organization's own delete has no parent: the organization itself.
 */
function eventGroup(rec: Record_, uid: string, verb: ResourceChange['verb']): string {
  const parentOf = (u: string) => (u.includes('/') ? u.slice(0, u.lastIndexOf('/')) : '');
  if (rec.kind === 'group') return verb === 'deleted' ? parentOf(uid) || uid : uid;
  if (rec.kind === 'tag') return uid.split('/')[0]!;
  return parentOf(uid);
}

/** actor.subject: the caller's identity; actor.act: every validated claim of the token it called with, as text. */
function actorOf(identityUid: string, claims: ResourceChange['claims']): EventData['actor'] {
  return claims && Object.keys(claims).length ? { subject: identityUid, act: { ...claims } } : { subject: identityUid };
}

/** The resource after a create or update, as the API renders it, redacted; the delete request for a delete. */
function bodyOf(store: Store, d: Resource, change: ResourceChange, uid: string): Record<string, unknown> | undefined {
  if (change.verb === 'deleted') return d.kind === 'AccountAssociation' ? undefined : { uid };
  const wire = wireFormOf(d.kind).toWire(change.record, store) as Record<string, unknown>;
  // An invite's event keeps its uid and expiry only (never the code, nor the key id that names it).
  if (d.kind === 'GroupInvite') return { uid: wire.uid, expirationTime: wire.expirationTime };
  return wire;
}

/** The subscriptions of a group and its ancestors: read once per change of any subscription. */
function subscriptionIndex(store: Store): (group: string) => { uid: string; sink: string }[] {
  let version: string | undefined;
  let byGroup = new Map<string, { uid: string; sink: string }[]>();
  return (group) => {
    const now = store.versionOf(['subscription']);
    if (now !== version) {
      byGroup = new Map();
      for (const s of store.allByAltKey('subscription')) {
        const list = byGroup.get(s.parent!) ?? [];
        list.push({ uid: s.uid, sink: s.name });
        byGroup.set(s.parent!, list);
      }
      version = now;
    }
    if (!byGroup.size) return [];
    const out: { uid: string; sink: string }[] = [];
    for (let g = group; g; g = g.includes('/') ? g.slice(0, g.lastIndexOf('/')) : '') out.push(...(byGroup.get(g) ?? []));
    return out;
  };
}

/** A version 4 UUID from serve's random source (a deterministic serve makes the same ones). */
function uuid(random: Random): string {
  const b = random.bytes(16);
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

// Change events (docs/events.md; the pinned facts: shared/spec/events.md): the CloudEvent type
// of each resource's create, update and delete, and the shapes of serve's event extensions
// (the live feed and the delivery log under /_pctl/), shared by the server and the CLI.
import { publishedRule, type Resource } from './registry/index.js';

export type ChangeVerb = 'created' | 'updated' | 'deleted';

const VERB_OPERATION = { created: 'create', updated: 'update', deleted: 'delete' } as const;

/**
 * The CloudEvent type of a change: the `chainguard.annotations.events` type of the published
 * method the write ran as (`operation`: `roleBindings.update` is UpdateRoleBinding,
 * `repos.UpdateRepoReadme` that method), else of the resource's method for the change's verb
 * (a binding an identity's delete removes: DeleteRoleBinding's), else the create's type with
 * the verb put in (an invite's redemption: `…group_invite.updated.v1`), else
 * `dev.chainguard.api.<path domain>.<kind in snake case>.<verb>.v1`.
 */
export function eventType(d: Resource, verb: ChangeVerb, operation: string | null = null): string {
  const [resource, op] = operation?.split('.') ?? [];
  const own = resource === d.plural && op ? publishedRule(d, op)?.event : undefined;
  if (own) return own;
  const byVerb = d.operations.includes(VERB_OPERATION[verb]) ? publishedRule(d, VERB_OPERATION[verb])?.event : undefined;
  if (byVerb) return byVerb;
  const created = d.operations.includes('create') ? publishedRule(d, 'create')?.event : undefined;
  if (created?.includes('.created.')) return created.replace('.created.', `.${verb}.`);
  return `dev.chainguard.api.${d.path.split('/')[1]}.${d.storeKind.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}.${verb}.v1`;
}

/** The body every delivery carries, and every event of the feed (the vendor's Occurrence). */
export interface EventData {
  /** Who made the change: their identity's uid, and the claims of the token they used. */
  actor?: { subject: string; act?: Record<string, string> };
  /** The resource as the API renders it after a create or update (secrets redacted); `{uid}` for a delete. */
  body?: Record<string, unknown>;
}

/** An event of `GET /_pctl/events` (`pctl events watch`): the CloudEvent attributes and its data. */
export interface FeedEvent {
  /** Increasing in commit order (not necessarily by one): `?after=SEQ` resumes after it. */
  seq: number;
  id: string;
  type: string;
  source: string;
  subject: string;
  /** Ce-Group: the group the change belongs to ('' for resources outside the hierarchy). */
  group: string;
  time: string;
  data: EventData;
}

export const DELIVERY_STATES = ['pending', 'delivered', 'failed'] as const;

/** A delivery of `GET /_pctl/deliveries` (`pctl events deliveries`): one event to one subscription. */
export interface DeliveryInfo {
  id: number;
  /** Ce-Id of the event. */
  eventId: string;
  seq: number;
  type: string;
  subject: string;
  subscription: string;
  sink: string;
  state: (typeof DELIVERY_STATES)[number];
  attempts: number;
  /** The HTTP status of the last attempt (0: no answer: refused, timed out, dropped by a fault). */
  lastStatus?: number;
  lastError?: string;
  /** When the next attempt is due (pending deliveries). */
  nextAttemptTime?: string;
  updateTime: string;
}

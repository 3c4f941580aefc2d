// Change events (docs/events.md; the pinned facts: shared/spec/events.md): the CloudEvent type
// of each resource's create, update and delete, and the shapes of serve's event extensions
// (the live feed and the delivery log under /_pctl/), shared by the server and the CLI.

/** The resource part of the type strings the vendor's protos declare, by store kind (copied exactly: they are not uniform). */
const PINNED_RESOURCES: Readonly<Record<string, string>> = {
  group: 'iam.group',
  identity: 'iam.identity',
  role: 'iam.roles',
  roleBinding: 'iam.rolebindings',
  identityProvider: 'iam.identity_providers',
  accountAssociation: 'iam.account_associations',
  groupInvite: 'iam.group_invite',
  repo: 'platform.registry.repo',
  tag: 'platform.registry.tag',
  subscription: 'events.subscription',
};

export type ChangeVerb = 'created' | 'updated' | 'deleted';

/**
 * `dev.chainguard.api.<domain>.<resource>.<verb>.v1`: the vendor's string where it declares one,
 * else the same pattern with the domain of the resource's path and its kind in snake case
 * (`dev.chainguard.api.libraries.artifact.created.v1`).
 */
export function eventType(d: { storeKind: string; path: string }, verb: ChangeVerb): string {
  const resource = PINNED_RESOURCES[d.storeKind] ?? `${d.path.split('/')[1]}.${d.storeKind.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}`;
  return `dev.chainguard.api.${resource}.${verb}.v1`;
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

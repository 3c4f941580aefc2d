// Subscriptions (events domain): a webhook `sink` under a group. Every change of a resource
// in that group or below it is POSTed to the sink as a signed CloudEvent (docs/events.md).
// No update, as the vendor's v2 API. The sink is stored as the name: what order_by=name sorts by.
import { defineResource, timeCol, uidCol, col } from './define.js';
import type { Subscription } from '../schemas.js';

export const subscriptions = defineResource({
  kind: 'Subscription',
  plural: 'subscriptions',
  path: '/events/v2/subscriptions',
  nouns: { one: 'subscription', many: 'subscriptions', cli: 'subscriptions' },
  storeKind: 'subscription',
  capability: 'subscriptions',
  published: { service: 'chainguard.platform.events.v2.SubscriptionsService' },
  operations: ['list', 'get', 'create', 'delete'],
  visibility: 'hierarchy',
  parent: { kind: 'group', field: 'parent' },
  filters: {},
  updatable: [],
  outputOnly: ['uid', 'createTime', 'updateTime'],
  references: false,
  seedKey: 'subscriptions',
  commandGroup: 'events',
  view: {
    noun: 'subscriptions',
    id: (s) => s.uid,
    columns: [
      col<Subscription>('SINK', (s) => s.sink, { keep: true }),
      uidCol<Subscription>(),
      timeCol<Subscription>('CREATED', (s) => s.createTime),
    ],
  },
  completion: { orderBy: 'name', candidates: (s) => [[s.uid, s.sink]] },
  cli: {
    help: {
      summary: 'webhook subscriptions: change events of a group and below, POSTed to a URL',
      description:
        'A subscription sends every create, update and delete in its group (and the groups below) to its sink as a CloudEvent, ' +
        'signed with a token of serve\'s issuer. The sink must be https; serve also accepts http to a loopback host. ' +
        'The parent group may be given by uid, name or unique uid suffix.',
      examples: [
        ['send the changes below acme to a local receiver', 'pctl events subscriptions create --parent acme --sink http://127.0.0.1:9000/events'],
        ['the subscriptions of a group', 'pctl events subscriptions list --group acme'],
      ],
    },
    list: {
      scope: 'group',
      summary: 'list subscriptions',
      description: 'List subscriptions, every page. --group lists those of one group, --descendants-of those anywhere below one.',
      examples: [['every subscription below acme, as uids', 'pctl events subscriptions list --descendants-of acme -o id']],
    },
    get: {
      argument: 'subscription uid',
      summary: 'show a subscription',
      description: 'Show one subscription: its sink and when it was created.',
      examples: [['as YAML', 'pctl events subscriptions get "$SUBSCRIPTION_UID" -o yaml']],
    },
    delete: {
      argument: 'subscription uid',
      summary: 'delete a subscription (its pending deliveries stop)',
      description: 'Delete a subscription: no further events are sent to its sink. On a terminal pctl asks for confirmation unless --yes is given.',
      examples: [['delete without asking', 'pctl events subscriptions delete "$SUBSCRIPTION_UID" --yes']],
    },
  },
});

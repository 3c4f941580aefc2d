// pctl events: webhook subscriptions (a registry resource: list, get, create, delete), and
// serve's event extensions: the delivery log, redelivery, and the live feed (watch).
import type { AnyResource } from '../../../api/registry/index.js';
import { defineCommand, defineGroup, flag, type AnyCommand } from '../../command.js';
import { resourceCommand } from '../../resource-commands.js';

export const createFlags = {
  parent: flag.required('--parent <group>', 'the group whose changes (and those below it) are sent (uid, name, name path or uid suffix)', { complete: { live: 'groups' } }),
  sink: flag.required('--sink <url>', 'where events are POSTed: an https URL (serve also accepts http to 127.0.0.1, ::1 or localhost)'),
};

export const deliveriesFlags = {
  subscription: flag.string('--subscription <uid>', 'only the deliveries to this subscription', { complete: { live: 'subscriptions' } }),
  failed: flag.bool('--failed', 'only deliveries that ran out of attempts'),
  limit: flag.string('--limit <n>', 'at most N deliveries, newest first (default 100, at most 1000)'),
};

export const watchFlags = {
  descendantsOf: flag.string('--descendants-of <group>', 'only changes in this group or below it (uid, name, name path or uid suffix)', { complete: { live: 'groups' } }),
  type: flag.string('--type <glob>', 'only events whose type matches, `*` any run: dev.chainguard.api.iam.group.*'),
  after: flag.string('--after <seq>', 'start after this sequence number (0: every event serve still keeps); default: only what comes next'),
  count: flag.string('--count <n>', 'stop after N events (default: until interrupted)'),
};

const subscriptionVerbs = [
  defineCommand({
    name: 'create',
    flags: createFlags,
    help: {
      summary: 'subscribe a webhook sink to the changes of a group',
      description:
        'Create a subscription: every create, update and delete in the group and below is POSTed to the sink as a CloudEvent ' +
        '(binary mode), with a bearer token of serve\'s issuer that the receiver verifies against its JWKS. See docs/events.md.',
      examples: [
        ['a local receiver for everything below acme', 'pctl events subscriptions create --parent acme --sink http://127.0.0.1:9000/events'],
        ['just the uid, for a script', 'pctl events subscriptions create --parent acme --sink https://hooks.example.com/pctl -o id'],
      ],
    },
    load: () => import('./create.js'),
  }),
];

/** The `events` group: the subscriptions resource, then serve's extensions. */
export function eventsCommand(subscriptions: AnyResource): AnyCommand {
  return defineGroup(
    'events',
    {
      summary: 'change events: webhook subscriptions, deliveries, and a live feed',
      description:
        'Every change committed through the API is a CloudEvent. Subscriptions send those of a group (and below) to a webhook; ' +
        'deliveries, redeliver and watch are extensions of pctl serve (its owner\'s). See docs/events.md.',
      examples: [
        ['watch changes below acme as they commit', 'pctl events watch --descendants-of acme'],
        ['deliveries that ran out of attempts', 'pctl events deliveries --failed'],
      ],
    },
    [
      resourceCommand(subscriptions, subscriptionVerbs),
      defineCommand({
        name: 'deliveries',
        flags: deliveriesFlags,
        help: {
          summary: 'list webhook deliveries: state, attempts, last status, next retry (pctl serve)',
          description:
            'List the deliveries of events to subscriptions, newest first: pending (with the time of the next attempt), delivered, ' +
            'or failed (every attempt used). An extension of pctl serve, for its owner.',
          examples: [
            ['what went wrong with one subscription', 'pctl events deliveries --subscription "$SUBSCRIPTION_UID" --failed'],
            ['as JSON', 'pctl events deliveries -o json'],
          ],
        },
        load: () => import('./deliveries.js'),
      }),
      defineCommand({
        name: 'redeliver',
        args: [{ name: '<id>', description: 'the delivery id (pctl events deliveries shows it)' }],
        help: {
          summary: 'send a delivery again: pending, due now, attempts from zero (pctl serve)',
          description: 'Make a delivery pending again: it is sent at once (after the earlier pending deliveries of its subscription), with the same Ce-Id.',
          examples: [['retry a failed delivery', 'pctl events redeliver 42']],
        },
        load: () => import('./redeliver.js'),
      }),
      defineCommand({
        name: 'watch',
        flags: watchFlags,
        help: {
          summary: 'print change events as they commit (pctl serve)',
          description:
            'Follow the change feed: one line per event (time, type, subject, actor), or with -o json / -o ndjson one JSON event per line. ' +
            'Each event has a sequence number; --after resumes from one. An extension of pctl serve, for its owner; Ctrl-C ends it.',
          examples: [
            ['the groups created below acme', "pctl events watch --descendants-of acme --type 'dev.chainguard.api.iam.group.created.*'"],
            ['wait for the next event in a script', 'pctl events watch --count 1 -o json'],
          ],
        },
        load: () => import('./watch.js'),
      }),
    ],
  );
}

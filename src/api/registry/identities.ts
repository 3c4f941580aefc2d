// Identities: who may get tokens, matched on the issuer and subject claims of an OIDC token.
import { col, defineResource, nameCol, timeCol, uidCol } from './define.js';
import type { Identity } from '../schemas.js';

export const identities = defineResource({
  kind: 'Identity',
  plural: 'identities',
  path: '/iam/v2/identities',
  nouns: { one: 'identity', many: 'identities', cli: 'identities' },
  storeKind: 'identity',
  capability: 'identity',
  published: { service: 'chainguard.platform.iam.v2.IdentitiesService', more: ['LookupIdentity'] },
  operations: ['list', 'get', 'create', 'update', 'delete'],
  visibility: 'hierarchy',
  parent: { kind: 'group', field: 'parent' },
  filters: {},
  // claimMatch as a whole (the published mask path claim_match) or any of its fields.
  updatable: [
    'name', 'description', 'email', 'claimMatch', 'claimMatch.issuer', 'claimMatch.issuerPattern', 'claimMatch.subject', 'claimMatch.subjectPattern',
    'claimMatch.audience', 'claimMatch.audiencePattern', 'claimMatch.claims', 'claimMatch.claimPatterns',
  ],
  outputOnly: ['uid', 'createTime', 'updateTime', 'lastSeenTime'],
  references: true,
  view: {
    noun: 'identities',
    id: (i) => i.uid,
    columns: [
      nameCol<Identity>(),
      uidCol<Identity>(),
      col<Identity>('ISSUER', (i) => i.claimMatch.issuer, { shrink: true }),
      col<Identity>('SUBJECT', (i) => i.claimMatch.subject, { shrink: true }),
      col<Identity>('DESCRIPTION', (i) => i.description, { shrink: true, wide: true }),
      timeCol<Identity>('LAST SEEN', (i) => i.lastSeenTime, { wide: true }),
      timeCol<Identity>('CREATED', (i) => i.createTime, { wide: true }),
      timeCol<Identity>('UPDATED', (i) => i.updateTime, { wide: true }),
    ],
  },
  completion: { orderBy: 'name', candidates: (i) => [[i.uid, i.name]] },
  cli: {
    help: {
      summary: 'manage identities (who may get tokens, matched on OIDC claims)',
      description:
        'An identity is who may get tokens: it lives in a group and matches the issuer and subject claims of an OIDC token ' +
        '(for example a CI workflow). Role bindings grant it roles.',
      examples: [
        ['the identities of a group', 'pctl identities list --group platform'],
        [
          'an identity for a GitHub Actions workflow',
          "pctl identities create deployer --parent platform --issuer https://token.actions.githubusercontent.com --subject 'repo:acme/app:ref:refs/heads/main'",
        ],
      ],
    },
    list: {
      scope: 'group',
      summary: 'list identities',
      description: 'List identities, every page. --group (or --children-of) lists those of one group, --descendants-of those of a subtree.',
      examples: [
        ['the identities directly in a group', 'pctl identities list --group platform'],
        ['everything below the organization, as JSON', 'pctl identities list --descendants-of acme -o json'],
      ],
    },
    get: {
      argument: 'identity uid',
      summary: 'show an identity',
      description: 'Show one identity, with the claims it matches.',
      examples: [['show an identity as YAML', 'pctl identities get "$IDENTITY_UID" -o yaml']],
    },
    delete: {
      argument: 'identity uid',
      summary: 'delete an identity',
      description: 'Delete an identity. On a terminal pctl asks for confirmation unless --yes is given.',
      examples: [['delete without asking', 'pctl identities delete "$IDENTITY_UID" --yes']],
    },
  },
});

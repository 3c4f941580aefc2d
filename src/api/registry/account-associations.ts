// Account associations: the cloud accounts a group is tied to. At most one per group, and
// its uid is the group's uid. Check (POST {uid}:check) says whether a provider's block is
// ready, as far as a local server can tell (presence and format).
import { col, defineResource, nameCol, timeCol, uidCol } from './define.js';
import type { AccountAssociation } from '../schemas.js';

/** The providers a block may be given for, as `pctl account-associations list` shows them. */
const providers = (a: AccountAssociation) =>
  (['amazon', 'google', 'azure', 'github', 'chainguard'] as const).filter((p) => a[p] !== undefined).join(',');

export const accountAssociations = defineResource({
  kind: 'AccountAssociation',
  plural: 'accountAssociations',
  path: '/iam/v2/accountAssociations',
  nouns: { one: 'account association', many: 'account associations', cli: 'account-associations' },
  storeKind: 'accountAssociation',
  capability: 'account_associations',
  published: { service: 'chainguard.platform.iam.v2.AccountAssociationsService', more: ['CheckAccountAssociation'] },
  operations: ['list', 'get', 'create', 'update', 'delete'],
  visibility: 'hierarchy',
  parent: { kind: 'group', field: 'parent' },
  filters: {},
  updatable: [
    'name', 'description', 'amazon', 'amazon.account', 'google', 'google.projectId', 'google.projectNumber',
    'azure', 'azure.tenantId', 'azure.clientIds', 'github', 'github.appInstallations', 'chainguard', 'chainguard.serviceBindings',
  ],
  outputOnly: ['uid', 'createTime', 'updateTime'],
  editor: ['update'],
  references: true,
  view: {
    noun: 'account associations',
    id: (a) => a.uid,
    columns: [
      nameCol<AccountAssociation>(),
      uidCol<AccountAssociation>(),
      col<AccountAssociation>('PROVIDERS', providers),
      col<AccountAssociation>('AWS ACCOUNT', (a) => a.amazon?.account, { wide: true }),
      col<AccountAssociation>('GCP PROJECT', (a) => a.google?.projectId, { wide: true }),
      col<AccountAssociation>('AZURE TENANT', (a) => a.azure?.tenantId, { wide: true }),
      col<AccountAssociation>('DESCRIPTION', (a) => a.description, { shrink: true, wide: true }),
      timeCol<AccountAssociation>('UPDATED', (a) => a.updateTime, { wide: true }),
    ],
  },
  completion: { orderBy: 'name', candidates: (a) => [[a.name, a.uid], [a.uid, a.name]] },
  cli: {
    help: {
      summary: 'the cloud accounts a group is tied to (one association per group)',
      description:
        'An account association ties a group to its cloud accounts (AWS, Google Cloud, Azure, GitHub app installations). ' +
        'A group has at most one, and its uid is the group\'s uid; `check` says whether a provider is ready.',
      examples: [
        ['tie a group to an AWS account', 'pctl account-associations create prod-accounts --parent platform --aws-account 123456789012'],
        ['is the Google Cloud side ready?', 'pctl account-associations check platform --provider gcp'],
      ],
    },
    list: {
      scope: 'subtree',
      summary: 'list account associations',
      description: 'List account associations, every page, optionally below a group, directly in one, or by exact name.',
      examples: [['every association below the organization, all columns', 'pctl account-associations list --descendants-of acme -o wide']],
    },
    get: {
      argument: 'account association (its group\'s uid) or name',
      summary: 'show an account association',
      description: 'Show one account association, by uid (its group\'s uid), name or unique uid suffix.',
      examples: [['as YAML', 'pctl account-associations get prod-accounts -o yaml']],
    },
    delete: {
      argument: 'account association (its group\'s uid) or name',
      summary: 'delete an account association',
      description: 'Delete an account association. On a terminal pctl asks for confirmation unless --yes is given.',
      examples: [['delete without asking', 'pctl account-associations delete prod-accounts --yes']],
    },
  },
});

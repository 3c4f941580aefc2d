// pctl account-associations create | update | check (list, get and delete are the registry's
// generic verbs). The provider flags are the same for create and update.
import { defineCommand, flag } from '../../command.js';

const association = { live: 'accountAssociations' } as const;

const providerFlags = {
  awsAccount: flag.string('--aws-account <id>', 'AWS account id (12 digits)'),
  gcpProjectId: flag.string('--gcp-project-id <id>', 'Google Cloud project id (with --gcp-project-number)'),
  gcpProjectNumber: flag.string('--gcp-project-number <n>', 'Google Cloud project number (with --gcp-project-id)'),
  azureTenant: flag.string('--azure-tenant <uuid>', 'Azure tenant id'),
  azureClient: flag.list('--azure-client <name=id>', 'an Azure client id by name (repeatable; on update, replaces the set)'),
};

export const createFlags = {
  parent: flag.required('--parent <group>', 'the group (uid, name, name path or uid suffix; its uid becomes the association\'s uid)', { complete: { live: 'groups' } }),
  description: flag.string('--description <text>', 'description'),
  ...providerFlags,
};

export const updateFlags = {
  name: flag.string('--name <name>', 'new name'),
  description: flag.string('--description <text>', 'new description ("" clears it)'),
  ...providerFlags,
};

export const checkFlags = {
  provider: { ...flag.required('--provider <provider>', 'the provider to check'), choices: ['aws', 'gcp', 'azure'] },
};

export const accountAssociationCommands = [
  defineCommand({
    name: 'create',
    args: [{ name: '<name>', description: 'association name' }],
    flags: createFlags,
    help: {
      summary: 'tie a group to its cloud accounts',
      description: 'Create the account association of a group (a group has at most one) with the provider blocks the flags give.',
      examples: [
        ['AWS and Google Cloud', 'pctl account-associations create prod --parent platform --aws-account 123456789012 --gcp-project-id acme-prod --gcp-project-number 1234567890'],
      ],
    },
    load: () => import('./create.js'),
  }),
  defineCommand({
    name: 'update',
    args: [{ name: '<association>', description: 'association uid (its group\'s uid) or name', complete: association }],
    flags: updateFlags,
    help: {
      summary: 'change an account association: only the fields given are sent',
      description: 'Change the name, description or provider details of an account association. Only the flags given are sent (as the update mask).',
      examples: [['move to another AWS account', 'pctl account-associations update prod --aws-account 210987654321']],
    },
    load: () => import('./update.js'),
  }),
  defineCommand({
    name: 'check',
    args: [{ name: '<association>', description: 'association uid (its group\'s uid) or name', complete: association }],
    flags: checkFlags,
    help: {
      summary: 'is a provider ready? (READY or NOT_READY, with the reason)',
      description:
        'Ask whether one provider of an account association is ready. pctl serve checks the presence and format of the ' +
        'provider\'s block only (it cannot reach the cloud). Exits 0 either way; the status is in the output.',
      examples: [['check the AWS side', 'pctl account-associations check prod --provider aws']],
    },
    load: () => import('./check.js'),
  }),
];

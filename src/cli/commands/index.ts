// Every command of pctl, in the order `pctl --help` lists them: a group per registry
// resource (its generic verbs derived, its own verbs declared beside their handlers), then
// the commands that are not resources. Declarations only: handlers load on use.
import { registry, type AnyResource } from '../../api/registry/index.js';
import type { AnyCommand } from '../command.js';
import { resourceCommand } from '../resource-commands.js';
import { accountAssociationCommands } from './account-associations/index.js';
import { advisoryCommands } from './advisory/index.js';
import { apiCommand } from './api/index.js';
import { authCommand } from './auth/index.js';
import { completionCommand } from './completion/index.js';
import { configCommand } from './config/index.js';
import { eventsCommand } from './events/index.js';
import { groupCommands } from './groups/index.js';
import { identityCommands } from './identities/index.js';
import { identityProviderCommands } from './identity-providers/index.js';
import { inviteCommands } from './invites/index.js';
import { libraryCommands } from './libraries/index.js';
import { manifestCommands } from './manifest/index.js';
import { mcpCommand } from './mcp/index.js';
import { repoCommands } from './repos/index.js';
import { roleBindingCommands } from './role-bindings/index.js';
import { roleCommands } from './roles/index.js';
import { serveCommand } from './serve/index.js';
import { tagCommands } from './tags/index.js';
import { versionCommand } from './version/index.js';

/** A resource's own verbs, by its registry key (plural); the rest are generic. */
const OWN_VERBS: Readonly<Record<string, readonly AnyCommand[]>> = {
  groups: groupCommands,
  identities: identityCommands,
  roles: roleCommands,
  roleBindings: roleBindingCommands,
  identityProviders: identityProviderCommands,
  groupInvites: inviteCommands,
  accountAssociations: accountAssociationCommands,
  artifacts: libraryCommands,
  repos: repoCommands,
  tags: tagCommands,
  advisories: advisoryCommands,
};

/** Names a command group had before, kept as aliases. */
const OLD_NAMES: Readonly<Record<string, readonly string[]>> = {
  // documents and metadata (the Integrations domain) were `pctl advisory …`, beside `pctl advisories`.
  advisories: ['advisory'],
};

export function commandTree(resources: readonly AnyResource[] = registry): AnyCommand[] {
  const subscriptions = resources.find((d) => d.commandGroup === 'events');
  return [
    // A resource with a command group is listed in it (pctl events subscriptions), not at the top.
    ...resources.filter((d) => !d.commandGroup).map((d) => ({ ...resourceCommand(d, OWN_VERBS[d.plural]), aliases: OLD_NAMES[d.plural] ?? [] })),
    apiCommand,
    ...manifestCommands,
    authCommand,
    configCommand,
    ...(subscriptions ? [eventsCommand(subscriptions)] : []),
    serveCommand,
    mcpCommand,
    completionCommand,
    versionCommand,
  ];
}

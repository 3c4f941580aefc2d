// The domain core: every resource's operations, by the registry's resource names (a resource
// missing here does not compile), and the change feed their writes make. Every surface (REST,
// gRPC, v1, MCP, the console) and every bulk writer (bootstrap, seeds, demo data) calls these.
import type { ResourceName } from '../../api/registry/index.js';
import type { ChangeFeed } from '../store/changes.js';
import { accountAssociationOperations } from './account-associations.js';
import { advisoryDocumentOperations, advisoryOperations, artifactOperations, vulnerabilityMetadataOperations } from './catalogue.js';
import type { DomainContext } from './context.js';
import { groupInviteOperations } from './group-invites.js';
import { groupOperations } from './groups.js';
import { identityOperations } from './identities.js';
import { identityProviderOperations } from './identity-providers.js';
import { repoOperations, tagOperations } from './registry.js';
import { roleBindingOperations } from './role-bindings.js';
import { roleOperations } from './roles.js';
import { subscriptionOperations } from './subscriptions.js';

/** Each registry resource's operations. */
interface ResourceOperations {
  groups: ReturnType<typeof groupOperations>;
  identities: ReturnType<typeof identityOperations>;
  roles: ReturnType<typeof roleOperations>;
  roleBindings: ReturnType<typeof roleBindingOperations>;
  identityProviders: ReturnType<typeof identityProviderOperations>;
  groupInvites: ReturnType<typeof groupInviteOperations>;
  accountAssociations: ReturnType<typeof accountAssociationOperations>;
  repos: ReturnType<typeof repoOperations>;
  tags: ReturnType<typeof tagOperations>;
  advisories: ReturnType<typeof advisoryOperations>;
  artifacts: ReturnType<typeof artifactOperations>;
  subscriptions: ReturnType<typeof subscriptionOperations>;
}

/** Exactly the registry's resources: one more or one less is a compile error. */
type Exact<T, K extends PropertyKey> = T & Record<Exclude<keyof T, K>, never>;

export type Domain = Exact<{ [R in ResourceName]: ResourceOperations[R] }, ResourceName> & {
  /** Served outside the registry (Integrations): read-only. */
  advisoryDocuments: ReturnType<typeof advisoryDocumentOperations>;
  vulnerabilityMetadata: ReturnType<typeof vulnerabilityMetadataOperations>;
  /** Every committed write of a resource, in commit order (subscribe; add outbox rows in the write's transaction). */
  changes: ChangeFeed;
  /** What the operations work with (for bulk writers running steps inside one write). */
  context: DomainContext;
};

const OPERATIONS: { [R in ResourceName]: (ctx: DomainContext) => ResourceOperations[R] } = {
  groups: groupOperations,
  identities: identityOperations,
  roles: roleOperations,
  roleBindings: roleBindingOperations,
  identityProviders: identityProviderOperations,
  groupInvites: groupInviteOperations,
  accountAssociations: accountAssociationOperations,
  repos: repoOperations,
  tags: tagOperations,
  advisories: advisoryOperations,
  artifacts: artifactOperations,
  subscriptions: subscriptionOperations,
};

export function createDomain(ctx: DomainContext): Domain {
  const resources = Object.fromEntries(Object.entries(OPERATIONS).map(([name, make]) => [name, make(ctx)])) as unknown as ResourceOperations;
  return {
    ...resources,
    advisoryDocuments: advisoryDocumentOperations(ctx),
    vulnerabilityMetadata: vulnerabilityMetadataOperations(ctx),
    changes: ctx.store.changes,
    context: ctx,
  };
}

export type { DomainContext } from './context.js';

// Each kind of stored record, one module a kind: the type of its `data`, its builder (the one
// place its stored form is made: every write path goes through the domain operations, which
// use these), and its wire forms. The store keeps `data` as JSON; the types below are what it
// hands out (store/record.ts's KindData), so no reader checks a field's type again.
import type { Kind, Record_ } from '../../store/record.js';
import { accountAssociation, type AccountAssociationData } from './account-association.js';
import { advisory, advisoryDocument, vulnerabilityMetadata, type AdvisoryData, type AdvisoryDocumentData, type VulnerabilityMetadataData } from './advisory.js';
import { artifact, artifactVersion, type ArtifactData, type ArtifactVersionData } from './artifact.js';
import { group, type GroupData } from './group.js';
import { groupInvite, type GroupInviteData } from './group-invite.js';
import { identity, type IdentityData } from './identity.js';
import { identityProvider, type IdentityProviderData } from './identity-provider.js';
import { repo, type RepoData } from './repo.js';
import { role, type RoleData } from './role.js';
import { roleBinding, type RoleBindingData } from './role-binding.js';
import { subscription, type SubscriptionData } from './subscription.js';
import { tag, type TagData } from './tag.js';

declare module '../../store/record.js' {
  interface KindData {
    group: GroupData;
    identity: IdentityData;
    role: RoleData;
    roleBinding: RoleBindingData;
    identityProvider: IdentityProviderData;
    groupInvite: GroupInviteData;
    accountAssociation: AccountAssociationData;
    repo: RepoData;
    tag: TagData;
    subscription: SubscriptionData;
    artifact: ArtifactData;
    artifactVersion: ArtifactVersionData;
    advisory: AdvisoryData;
    advisoryDocument: AdvisoryDocumentData;
    vulnerabilityMetadata: VulnerabilityMetadataData;
  }
}

/** Every kind's builder: a kind without one (or without its data type above) does not compile. */
export const records = {
  group, identity, role, roleBinding, identityProvider, groupInvite, accountAssociation, repo, tag, subscription,
  artifact, artifactVersion, advisory, advisoryDocument, vulnerabilityMetadata,
} satisfies { [K in Kind]: (b: never) => Record_<K> };

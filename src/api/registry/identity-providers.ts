// Identity providers: an external OIDC sign-in source for the members of a group (single
// sign-on), nested under the group's uid. oidc.clientSecret is write-only.
import { col, defineResource, nameCol, timeCol, uidCol } from './define.js';
import type { IdentityProvider } from '../schemas.js';

export const identityProviders = defineResource({
  kind: 'IdentityProvider',
  plural: 'identityProviders',
  path: '/iam/v2/identityProviders',
  nouns: { one: 'identity provider', many: 'identity providers', cli: 'identity-providers' },
  storeKind: 'identityProvider',
  capability: 'identity_providers',
  published: { service: 'chainguard.platform.iam.v2.IdentityProvidersService' },
  operations: ['list', 'get', 'create', 'update', 'delete'],
  visibility: 'hierarchy',
  parent: { kind: 'group', field: 'parent' },
  filters: {},
  updatable: [
    'name', 'description', 'defaultRole', 'oidc', 'oidc.issuer', 'oidc.clientId', 'oidc.clientSecret', 'oidc.additionalScopes',
    'oidc.groupsClaim', 'oidc.correlationRule', 'oidc.pkceEnabled',
  ],
  outputOnly: ['uid', 'createTime', 'updateTime'],
  writeOnly: ['oidc.clientSecret'],
  editor: ['update'],
  references: true,
  view: {
    noun: 'identity providers',
    id: (p) => p.uid,
    columns: [
      nameCol<IdentityProvider>(),
      uidCol<IdentityProvider>(),
      col<IdentityProvider>('ISSUER', (p) => p.oidc.issuer, { shrink: true }),
      col<IdentityProvider>('CLIENT ID', (p) => p.oidc.clientId, { shrink: true }),
      col<IdentityProvider>('DEFAULT ROLE', (p) => p.defaultRole, { kind: 'uid', wide: true, keep: true }),
      col<IdentityProvider>('DESCRIPTION', (p) => p.description, { shrink: true, wide: true }),
      timeCol<IdentityProvider>('CREATED', (p) => p.createTime, { wide: true }),
      timeCol<IdentityProvider>('UPDATED', (p) => p.updateTime, { wide: true }),
    ],
  },
  completion: { orderBy: 'name', candidates: (p) => [[p.uid, p.name]] },
  cli: {
    help: {
      summary: 'single sign-on: the OIDC identity providers of groups',
      description:
        'An identity provider is an external OIDC sign-in source for the members of a group: users who first sign in through ' +
        'it get its default role. The client secret is write-only: no command or response ever shows it.',
      examples: [['the identity providers of a group', 'pctl identity-providers list --group platform']],
    },
    list: {
      scope: 'group',
      summary: 'list identity providers',
      description: 'List identity providers, every page. --group (or --children-of) lists those of one group, --descendants-of those of a subtree.',
      examples: [['every identity provider below the organization', 'pctl identity-providers list --descendants-of acme -o wide']],
    },
    get: {
      argument: 'identity provider uid',
      summary: 'show an identity provider',
      description: 'Show one identity provider, with its OIDC settings (never the client secret).',
      examples: [['as YAML', 'pctl identity-providers get "$IDP_UID" -o yaml']],
    },
    delete: {
      argument: 'identity provider uid',
      summary: 'delete an identity provider',
      description: 'Delete an identity provider. On a terminal pctl asks for confirmation unless --yes is given.',
      examples: [['delete without asking', 'pctl identity-providers delete "$IDP_UID" --yes']],
    },
  },
});

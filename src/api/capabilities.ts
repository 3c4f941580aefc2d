// Capabilities a role can hold (the vendor's naming), and the built-in roles. A Get
// needs the matching `.list` capability.

export const CAPABILITIES = [
  'groups.list', 'groups.create', 'groups.update', 'groups.delete',
  'identity.list', 'identity.create', 'identity.update', 'identity.delete',
  'role_bindings.list', 'role_bindings.create', 'role_bindings.delete',
  'roles.list', 'roles.create', 'roles.update', 'roles.delete',
  'repo.list', 'repo.update',
  'tag.list',
  'advisories.list',
] as const;
export type Capability = (typeof CAPABILITIES)[number];

const listing = CAPABILITIES.filter((c) => c.endsWith('.list'));

export const BUILTIN_ROLES: readonly { name: string; description: string; capabilities: readonly Capability[] }[] = [
  { name: 'owner', description: 'Full control of the group and everything below it', capabilities: CAPABILITIES },
  { name: 'editor', description: 'Viewer, plus updating groups and repos', capabilities: [...listing, 'groups.update', 'repo.update'] },
  { name: 'viewer', description: 'Read-only access to the group and everything below it', capabilities: listing },
];

// Capabilities a role can hold, derived from the registry (`<prefix>.<operation>` for every
// operation but get: a Get needs the matching `.list`), and the built-in roles.
import { capability, registry } from './registry/index.js';

export const CAPABILITIES: readonly string[] = registry.flatMap((d) =>
  d.operations.filter((op) => op !== 'get').map((op) => `${d.capability}.${op}`),
);
export type Capability = string;

const listing = CAPABILITIES.filter((c) => c.endsWith('.list'));

export const BUILTIN_ROLES: readonly { name: string; description: string; capabilities: readonly Capability[] }[] = [
  { name: 'owner', description: 'Full control of the group and everything below it', capabilities: CAPABILITIES },
  {
    name: 'editor',
    description: 'Viewer, plus updating groups and repos',
    capabilities: [...listing, ...registry.flatMap((d) => (d.editor ?? []).map((op) => capability(d, op)))],
  },
  { name: 'viewer', description: 'Read-only access to the group and everything below it', capabilities: listing },
];

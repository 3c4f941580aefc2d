// Capabilities a role can hold: every one serve's operations need (their published methods'
// chainguard.annotations.iam, else serve's `<prefix>.<operation>`) but those the vendor marks
// internal_only, which no customer's role may hold; and the built-in roles.
import { INTERNAL_ONLY_CAPABILITIES } from './registry/published-rules.js';
import { capabilities, capability, registry } from './registry/index.js';

export const CAPABILITIES: readonly string[] = [...new Set(registry.flatMap((d) =>
  [...d.operations, ...(d.published.more ?? [])].flatMap((op) => capabilities(d, op)),
))].filter((c) => !INTERNAL_ONLY_CAPABILITIES.includes(c));
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

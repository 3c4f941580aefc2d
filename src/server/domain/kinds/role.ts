// A role: capabilities by name. Custom roles live on a group; built-in ones have no parent.
import type { Record_ } from '../../store/record.js';
import { record, type Base, type WireOut } from './build.js';

export interface RoleData {
  description: string;
  capabilities: string[];
  builtin?: true;
}

export const role = (b: Base & { parent: string | null; name: string; description?: string | undefined; capabilities: readonly string[]; builtin?: boolean }) =>
  record('role', b.parent, b.name, null, b, {
    description: b.description ?? '',
    capabilities: [...new Set(b.capabilities)],
    ...(b.builtin ? { builtin: true as const } : {}),
  });

export function roleToWire(r: Record_<'role'>): WireOut<'Role'> {
  return { uid: r.uid, name: r.name, description: r.data.description, capabilities: r.data.capabilities, createTime: r.createTime, updateTime: r.updateTime };
}

// The vendor's published services serve answers, by domain module: the one list every
// domain's module adds its services to (rpc/index.ts serves them).
import type { DescService } from '@bufbuild/protobuf';
import type { VendorCall, VendorService } from './call.js';
import { CATALOGUE_SERVICES } from './catalogue.js';
import { EVENTS_SERVICES } from './events.js';
import { REGISTRY_SERVICES } from './registry.js';

const VENDOR: readonly VendorService[] = [
  ...REGISTRY_SERVICES,
  ...CATALOGUE_SERVICES,
  ...EVENTS_SERVICES,
];

/** Every published service serve answers (both versions). */
export const VENDOR_SERVICES: readonly DescService[] = VENDOR.flatMap((v) => v.services);

/** Each method's call, by `package.Service/Method`; a method left out of its table is a bug caught here, at load. */
export const VENDOR_CALLS: ReadonlyMap<string, VendorCall> = new Map(VENDOR.flatMap((v) => v.services.flatMap((s) => s.methods.map((m) => {
  const call = v.calls[m.name];
  if (!call) throw new Error(`${s.typeName}/${m.name} has no call in its vendor table`);
  return [`${s.typeName}/${m.name}`, call] as const;
}))));

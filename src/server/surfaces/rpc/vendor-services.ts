// The vendor's published services serve answers (vendor.ts): one list, each domain's file adds its own.
import { CATALOGUE_SERVICES } from './catalogue.js';
import { EVENTS_SERVICES } from './events.js';
import { IAM_SERVICES } from './iam.js';
import { REGISTRY_SERVICES } from './registry.js';
import { AUTH_SERVICE } from './sign-in.js';
import type { VendorService } from './vendor.js';

export const VENDOR_SERVICES: readonly VendorService[] = [...IAM_SERVICES, ...REGISTRY_SERVICES, ...CATALOGUE_SERVICES, ...EVENTS_SERVICES, AUTH_SERVICE];

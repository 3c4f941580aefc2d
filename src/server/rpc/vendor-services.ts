// The vendor's published services serve answers (vendor.ts): one list, each domain's file adds its own.
import { IAM_SERVICES } from './iam.js';
import type { VendorService } from './vendor.js';

export const VENDOR_SERVICES: readonly VendorService[] = [...IAM_SERVICES];

// The vendor's sign-in services on serve's port: SecurityTokenService (Exchange,
// ExchangeRefreshToken) and Auth (Validate). Their google.api.http rules name serve's REST
// routes (routes/sts.ts), which the RPC layer calls as it does the API's: one operation each.
import type { DescService } from '@bufbuild/protobuf';
import { Auth } from '../../gen/platform/auth/v1/auth.platform_pb.js';
import { SecurityTokenService } from '../../gen/platform/oidc/v1/oidc.platform_pb.js';

export const SIGN_IN_SERVICES: readonly DescService[] = [SecurityTokenService, Auth];

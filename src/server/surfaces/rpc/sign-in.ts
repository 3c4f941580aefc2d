// The vendor's sign-in services on serve's port: SecurityTokenService (Exchange,
// ExchangeRefreshToken) and Auth (Validate). Their google.api.http rules name serve's REST
// routes (routes/sts.ts), which the RPC layer calls as it does the API's: one operation each.
// Auth's other methods have no source in serve: UNIMPLEMENTED naming the closest call.
import type { DescService } from '@bufbuild/protobuf';
import { Auth } from '../../../gen/platform/auth/v1/auth.platform_pb.js';
import { SecurityTokenService } from '../../../gen/platform/oidc/v1/oidc.platform_pb.js';
import { transcoderOf, type Transcoder } from './transcode.js';
import { unimplemented, type VendorService } from './vendor.js';

export const SIGN_IN_SERVICES: readonly DescService[] = [SecurityTokenService];

const UNAVAILABLE: Record<string, Transcoder> = {
  Register: unimplemented('Register', 'registering a user has no source in serve (a token maps to an identity by its claim_match); the closest is CreateIdentity, and for an invite code POST /iam/v2/groupInvites:redeem'),
  GetHeadlessSession: unimplemented('GetHeadlessSession', 'headless (ECDH) sessions have no source in serve; the closest is the device flow at /oauth/device (pctl auth login --device)'),
  Delete: unimplemented('Delete', 'deleting the caller\'s own account has no source in serve; the closest is DeleteIdentity'),
};

/** Auth: Validate by its REST route (GET /auth/v1/ok), the others UNIMPLEMENTED rather than REST's 404 for their paths. */
export const AUTH_SERVICE: VendorService = {
  service: Auth,
  transcoders: new Map(Auth.methods.map((m) => [m, UNAVAILABLE[m.name] ?? transcoderOf(m)])),
};

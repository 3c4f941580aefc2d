// serve's OAuth 2.0 endpoints: the authorization code grant (authorization-code.ts), the
// device grant (device.ts), the token endpoint both share and the userinfo endpoint. Sign-ins
// in progress live in memory (state.ts); the pages' HTML is in templates/.
import { unauthenticated } from '../../../api/errors.js';
import type { PublicRoutes, Request, Response } from '../../pipeline/handler.js';
import { authorizationCodeGrant } from './authorization-code.js';
import { deviceGrant } from './device.js';
import {
  AUTHORIZE_PATH, DEVICE_AUTHORIZATION_PATH, DEVICE_GRANT_TYPE, DEVICE_VERIFICATION_PATH, NO_STORE, oauthError, TOKEN_PATH, USERINFO_PATH,
} from './protocol.js';
import { signIn, type OAuthOptions } from './signin.js';
import { VENDOR_SIGN_IN_PATH, vendorRedirectSignIn, type VendorSignIn } from './vendor-redirect.js';

/** The routes, and forget(): every sign-in in progress dropped, as at a start (after a restore or reset of the data). */
/** `tokens`: what the vendor's browser sign-in (/oauth?exit=redirect) hands out (the token exchange's). */
export function oauthRoutes(opts: OAuthOptions, tokens: VendorSignIn): { routes: PublicRoutes; forget(): void } {
  const s = signIn(opts);
  const vendor = vendorRedirectSignIn(s, tokens);
  const code = authorizationCodeGrant(s);
  const device = deviceGrant(s);

  const token = async (req: Request): Promise<Response> => {
    const form = await req.form();
    const grantType = form.get('grant_type');
    if (grantType === DEVICE_GRANT_TYPE) return device.deviceToken(form);
    if (grantType !== 'authorization_code') {
      return oauthError('unsupported_grant_type', `grant_type must be authorization_code or ${DEVICE_GRANT_TYPE}`);
    }
    return code.codeToken(form);
  };

  const userinfo = async (req: Request): Promise<Response> => {
    const principal = await opts.authenticate(req.headers.authorization);
    const identity = opts.store.get(principal.identityUid, 'identity');
    if (!identity) throw unauthenticated('The identity of this token no longer exists');
    const claim = identity.data.claimMatch;
    return {
      body: { sub: claim.subject, iss: claim.issuer, identity: { uid: identity.uid, name: identity.name } },
      headers: NO_STORE,
    };
  };

  const routes: PublicRoutes = {
    [`GET ${AUTHORIZE_PATH}`]: code.authorizeGet,
    [`POST ${AUTHORIZE_PATH}`]: code.authorizePost,
    [`POST ${TOKEN_PATH}`]: token,
    [`GET ${USERINFO_PATH}`]: userinfo,
    [`POST ${DEVICE_AUTHORIZATION_PATH}`]: device.deviceAuthorization,
    [`GET ${DEVICE_VERIFICATION_PATH}`]: device.verifyGet,
    [`POST ${DEVICE_VERIFICATION_PATH}`]: device.verifyPost,
    [`GET ${VENDOR_SIGN_IN_PATH}`]: vendor.get,
    [`POST ${VENDOR_SIGN_IN_PATH}`]: vendor.post,
  };
  return { routes, forget: () => (s.forget(), vendor.forget()) };
}

// OIDC discovery for serve's own token issuer (also as RFC 8414 OAuth metadata): public, unauthenticated routes.
import type { PublicRoutes } from '../../pipeline/handler.js';
import { ALGORITHM, type SigningKey } from '../../auth/tokens.js';
import { AUTHORIZE_PATH, DEVICE_AUTHORIZATION_PATH, DEVICE_GRANT_TYPE, TOKEN_PATH, USERINFO_PATH } from './protocol.js';

const JWKS_PATH = '/.well-known/jwks.json';

export function oidcRoutes(issuer: () => string, key: SigningKey): PublicRoutes {
  const configuration = () => ({
    body: {
      issuer: issuer(),
      jwks_uri: `${issuer()}${JWKS_PATH}`,
      authorization_endpoint: `${issuer()}${AUTHORIZE_PATH}`,
      token_endpoint: `${issuer()}${TOKEN_PATH}`,
      userinfo_endpoint: `${issuer()}${USERINFO_PATH}`,
      device_authorization_endpoint: `${issuer()}${DEVICE_AUTHORIZATION_PATH}`,
      id_token_signing_alg_values_supported: [ALGORITHM],
      subject_types_supported: ['public'],
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', DEVICE_GRANT_TYPE],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
    },
    headers: { 'cache-control': 'public, max-age=300' },
  });
  return {
    'GET /.well-known/openid-configuration': configuration,
    // RFC 8414: the same document where OAuth clients (MCP's among them) look first.
    'GET /.well-known/oauth-authorization-server': configuration,
    [`GET ${JWKS_PATH}`]: () => ({
      body: { keys: [key.publicJwk] },
      headers: { 'cache-control': 'public, max-age=300' },
    }),
  };
}

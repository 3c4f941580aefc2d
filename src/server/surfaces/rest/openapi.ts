// GET /openapi.json: the OpenAPI document of the routes serve answers, without a token (a
// client generator or an API tool reads it before it has one).
import { openApiDocument } from '../../../api/openapi.js';
import type { PublicRoutes } from '../../pipeline/handler.js';

const OPENAPI_PATH = '/openapi.json';

export function openApiRoutes(): PublicRoutes {
  return {
    [`GET ${OPENAPI_PATH}`]: () => ({ raw: openApiDocument(), headers: { 'content-type': 'application/json', 'cache-control': 'no-cache' } }),
  };
}

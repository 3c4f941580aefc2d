// /iam/v2/identityProviders: create, update and delete (list and get are the generic ones).
// oidc.clientSecret is write-only: never in a response (see identityProviderToWire).
import { identityProviders as IDP } from '../../api/registry/index.js';
import * as S from '../../api/schemas.js';
import type { ResourceRoutes } from '../handler.js';
import { identityProviderToWire } from '../models.js';
import { changesOf, parseBody } from './parse.js';
import { resourceRoutes, type RestContext } from './resource.js';

export function identityProviderRoutes(rest: RestContext): ResourceRoutes {
  const { domain } = rest;
  return resourceRoutes(rest, IDP, domain.identityProviders, {
    create: async (req) => {
      const body = parseBody(S.CreateIdentityProviderBody, await req.json());
      return { body: identityProviderToWire(await domain.identityProviders.create(req.principal, { parent: body.parent, ...body.identityProvider })) };
    },
    update: async (req) => ({ body: identityProviderToWire(await domain.identityProviders.update(req.principal, req.uid, changesOf(req, IDP))) }),
    remove: async (req) => (await domain.identityProviders.delete(req.principal, req.uid), {}),
  });
}

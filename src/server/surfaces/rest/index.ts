// The REST surface's routes: every registry resource generically from its operations, with a
// route module's custom methods and paths where it has some, and the Integrations' reads.
import { resources, type ResourceName } from '../../../api/registry/index.js';
import type { ResourceRoutes } from '../../pipeline/handler.js';
import { accountAssociationRoutes } from './account-associations.js';
import { advisoryDocumentRoutes } from './advisory-documents.js';
import { groupInviteRoutes } from './group-invites.js';
import { libraryRoutes } from './libraries.js';
import { resourceRoutes, type RestContext } from './resource.js';

export function restRoutes(rest: RestContext): ResourceRoutes[] {
  const own = new Map([groupInviteRoutes(rest), accountAssociationRoutes(rest), libraryRoutes(rest)].map((r) => [r.path, r]));
  return [
    ...(Object.keys(resources) as ResourceName[]).map((name) => own.get(resources[name].path) ?? resourceRoutes(rest, rest.operations[name])),
    ...advisoryDocumentRoutes(rest),
  ];
}

export type { RestContext } from './resource.js';

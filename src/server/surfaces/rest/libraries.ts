// /libraries/v2/artifacts: the catalogue (list), `…/artifacts/count` and
// `…/artifacts/{uid}/versions` (the spec has no Get of one artifact).
import { ApiError, Code } from '../../../api/errors.js';
import { artifacts } from '../../../api/registry/index.js';
import type { ResourceRoutes } from '../../pipeline/handler.js';
import { artifactToWire, artifactVersionToWire } from '../../domain/kinds/artifact.js';
import { forKind } from '../../domain/kinds/build.js';
import { WireJson } from '../wire.js';
import { ARTIFACT_LIST, ARTIFACT_VERSION_LIST, parseListQuery, repeatedValues } from '../list-query.js';
import { listResponse, type RestContext } from './resource.js';

export function libraryRoutes(rest: RestContext): ResourceRoutes {
  const ops = rest.domain.artifacts;
  const artifactJson = new WireJson(rest.store, forKind('artifact', artifactToWire));
  const versionJson = new WireJson(rest.store, forKind('artifactVersion', artifactVersionToWire));
  return {
    path: artifacts.path,
    list: async (req) => listResponse(artifacts.plural, await ops.list(req.principal, () => parseListQuery(req.query, ARTIFACT_LIST)), artifactJson),
    // The item paths: `count` and `{uid}/versions`.
    get: async (req) => {
      if (req.uid === 'count') {
        const counts = await ops.count(req.principal, repeatedValues(req.query, 'ecosystems'));
        return { body: { counts: counts.map(({ ecosystem, totalCount }) => ({ ecosystem, totalCount: String(totalCount) })) } };
      }
      const m = /^(.+)\/versions$/.exec(req.uid);
      if (!m) {
        await ops.access(req.principal);
        throw new ApiError(Code.NOT_FOUND, `No such API route: GET ${req.path}`, { reason: 'ROUTE_NOT_FOUND' });
      }
      return listResponse('artifactVersions', await ops.versions(req.principal, m[1]!, () => parseListQuery(req.query, ARTIFACT_VERSION_LIST)), versionJson);
    },
  };
}

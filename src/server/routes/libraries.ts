// /libraries/v2/artifacts: the catalogue (list, with the required `ecosystems` and a `query`
// substring of the name), `…/artifacts/count` and `…/artifacts/{uid}/versions`. Read-only,
// from seeds; libraries.list held on any group reads it all.
import { ApiError, Code, invalidField, notFound } from '../../api/errors.js';
import { artifacts, capability } from '../../api/registry/index.js';
import { ECOSYSTEMS, ecosystemOf, ecosystemRule } from '../../api/schemas.js';
import { permissionDenied } from '../auth/authorize.js';
import { listResponse, type ServerContext } from '../context.js';
import type { Principal, ResourceRoutes } from '../http.js';
import { artifactToWire, artifactVersionToWire, WireJson } from '../models.js';
import { singleParam } from '../params.js';

/** `ecosystems`: required, repeatable and comma-separated, JAVA or PYTHON in any case. */
function ecosystemsOf(query: URLSearchParams): string[] {
  const values = query.getAll('ecosystems').flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
  if (!values.length) throw invalidField('ecosystems', `is required: ${ECOSYSTEMS.join(', ')} (repeatable)`);
  const out = new Set<string>();
  for (const v of values) {
    const ecosystem = ecosystemOf(v);
    if (!ecosystem) throw invalidField('ecosystems', ecosystemRule(v));
    out.add(ecosystem);
  }
  return [...out];
}

/** A catalogue reads best sorted: artifacts by name, versions oldest first, unless order_by says otherwise. */
function withDefaultOrder(query: URLSearchParams, order: string): URLSearchParams {
  const out = new URLSearchParams(query);
  if (!out.has('order_by') && !out.has('orderBy')) out.set('order_by', order);
  return out;
}

export function libraryRoutes(ctx: ServerContext): ResourceRoutes {
  const { store, authz } = ctx;
  const cap = capability(artifacts, 'list');
  const requireCap = (principal: Principal) => {
    if (!authz.canAnywhere(principal, cap)) throw permissionDenied(cap, 'any group');
  };
  const artifactJson = new WireJson(store, artifactToWire);
  const versionJson = new WireJson(store, artifactVersionToWire);

  return {
    path: artifacts.path,
    list: (req) => {
      requireCap(req.principal);
      const ecosystems = ecosystemsOf(req.query);
      const search = singleParam(req.query, 'query', ['query']);
      const query = withDefaultOrder(req.query, 'name');
      query.delete('query');
      query.set('ecosystems', ecosystems.join(','));
      return listResponse(
        ctx, artifacts.plural, query,
        { kind: artifacts.storeKind, filterColumns: { ecosystems: 'alt_key' }, ...(search ? { nameContains: search } : {}) },
        artifactJson,
      );
    },
    // The item paths: `count` and `{uid}/versions` (the spec has no Get of one artifact).
    get: (req) => {
      requireCap(req.principal);
      if (req.uid === 'count') {
        const counts = ecosystemsOf(req.query).map((ecosystem) => ({ ecosystem, totalCount: String(store.countByAltKey(artifacts.storeKind, ecosystem)) }));
        return { body: { counts } };
      }
      const m = /^(.+)\/versions$/.exec(req.uid);
      if (!m) throw new ApiError(Code.NOT_FOUND, `No such API route: GET ${req.path}`, { reason: 'ROUTE_NOT_FOUND' });
      const artifact = store.get(m[1]!, artifacts.storeKind);
      if (!artifact) throw notFound(artifacts.kind, m[1]!);
      const query = withDefaultOrder(req.query, 'createTime');
      for (const scope of ['uidp.children_of', 'uidp.childrenOf', 'uidp.descendants_of', 'uidp.descendantsOf']) {
        if (query.has(scope)) throw invalidField(scope, 'is not a parameter of this list (the artifact is in the path)');
      }
      query.set('uidp.children_of', artifact.uid);
      return listResponse(ctx, 'artifactVersions', query, { kind: 'artifactVersion' }, versionJson);
    },
  };
}

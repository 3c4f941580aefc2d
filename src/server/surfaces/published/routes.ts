// The published REST rules serve answers beyond the spec's routes (index.ts says which), each
// read into its request message by the rule (v1/routes.ts: path variables, query parameters,
// the body) and run as the RPC is: the vendor method's operation, or its transcoder's REST
// call of the spec's route and the answer mapped back to the published response.
import { toJson } from '@bufbuild/protobuf';
import { ApiError, Code } from '../../../api/errors.js';
import type { Principal } from '../../auth/principal.js';
import type { Handler, Response } from '../../pipeline/handler.js';
import type { InProcessCall } from '../../pipeline/dispatch.js';
import { AdvisoryService } from '../../../gen/platform/advisory/v2/advisory_pb.js';
import { EventsService } from '../../../gen/platform/events/v2/events_pb.js';
import { IamService } from '../../../gen/platform/iam/v2/iam_pb.js';
import { LibrariesService } from '../../../gen/platform/libraries/v2/libraries_pb.js';
import { RegistryService } from '../../../gen/platform/registry/v2/registry_pb.js';
import { VulnerabilitiesService } from '../../../gen/platform/vulnerabilities/v2/vulnerabilities_pb.js';
import type { ReadContext } from '../rpc/reads.js';
import { hasHttpRule } from '../rpc/transcode.js';
import { VENDOR_SERVICES } from '../rpc/vendor-services.js';
import { answerMessage } from '../rpc/vendor.js';
import { matchRoute, requestOf, routeOf, sortRoutes, type V1Route } from '../v1/routes.js';

const EMIT_ALL = { alwaysEmitImplicit: true } as const;

/** `/iam/v2/groups/{uid=**}` → `/iam/v2/groups/{}`: rules of one shape are one REST route. */
const shapeOf = (verb: string, template: string) => `${verb} ${template.replace(/\{[^}]+\}/g, '{}')}`;

/** The spec's REST shapes: the rules of proto/platform/<domain>/v2 (the spec's REST description, no gRPC service), and the published create rule on each collection the spec creates in (pipeline/dispatch.ts). */
function specShapes(): Set<string> {
  const shapes = new Set<string>();
  for (const service of [IamService, RegistryService, VulnerabilitiesService, LibrariesService, AdvisoryService, EventsService]) {
    for (const route of service.methods.filter(hasHttpRule).map(routeOf)) {
      shapes.add(shapeOf(route.verb, route.template));
      if (route.verb === 'POST' && !route.template.includes('{') && !route.template.includes(':')) shapes.add(shapeOf('POST', `${route.template}/{parent}`));
    }
  }
  return shapes;
}

/** Every published rule of the services serve answers, with the spec's shapes left out: the spec's routes answer those. */
export function publishedOnlyRoutes(): V1Route[] {
  const spec = specShapes();
  return sortRoutes(VENDOR_SERVICES.flatMap((v) => v.service.methods.filter(hasHttpRule).map(routeOf)).filter((r) => !spec.has(shapeOf(r.verb, r.template))));
}

export function publishedRoutes(run: (principal: Principal, call: InProcessCall) => Promise<Response>, reads: ReadContext): (method: string, path: string) => Handler | undefined {
  const routes = publishedOnlyRoutes();
  const transcoders = new Map(VENDOR_SERVICES.flatMap((v) => [...v.transcoders]));
  const operations = new Map(VENDOR_SERVICES.flatMap((v) => [...(v.operations ?? [])]));
  return (method, path) => {
    // A path of a published rule with another method: the spec's answer (its 404 or 405) stands.
    if (!routes.some((r) => r.verb === method && r.pattern.test(path))) return undefined;
    return async (req) => {
      const { route, values } = matchRoute(routes, method, path);
      const { method: rpc } = route;
      const request = requestOf(route, values, req.query, route.body === '' ? undefined : await req.json(), true);
      const operation = operations.get(rpc);
      const transcoder = transcoders.get(rpc);
      // Every field, as the vendor's gateway sends them (grpc-gateway's EmitUnpopulated).
      if (operation && transcoder) return { body: toJson(rpc.output, answerMessage(rpc.output, await operation(reads, req.principal, request, transcoder.toRest(request))), EMIT_ALL) };
      if (!transcoder) {
        throw new ApiError(Code.UNIMPLEMENTED, `${rpc.parent.typeName}/${rpc.name} is not served`, { reason: 'METHOD_NOT_EMULATED' });
      }
      const answer = await run(req.principal, transcoder.toRest(request));
      return { body: toJson(rpc.output, transcoder.fromRest(answer.bodyJson ? JSON.parse(answer.bodyJson.text) : answer.body), EMIT_ALL) };
    };
  };
}

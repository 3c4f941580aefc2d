// The v1 surface itself (index.ts loads it on the first v1 call): the vendor's v1 services
// (proto/platform/*/v1/) as descriptors, their REST routes by the google.api.http rules, and
// the deprecation marks of every answer.
import { fromJson, toJson, type DescService, type JsonValue } from '@bufbuild/protobuf';
import { ApiError, Code } from '../../../api/errors.js';
import { Subscriptions } from '../../../gen/platform/events/v1/subscriptions.platform_pb.js';
import { GroupAccountAssociations } from '../../../gen/platform/iam/v1/account_associations.platform_pb.js';
import { GroupInvites } from '../../../gen/platform/iam/v1/group_invites.platform_pb.js';
import { Groups } from '../../../gen/platform/iam/v1/group.platform_pb.js';
import { Identities } from '../../../gen/platform/iam/v1/identity.platform_pb.js';
import { IdentityProviders } from '../../../gen/platform/iam/v1/identity_providers.platform_pb.js';
import { RoleBindings } from '../../../gen/platform/iam/v1/role_binding.platform_pb.js';
import { Roles } from '../../../gen/platform/iam/v1/role.platform_pb.js';
import { Registry } from '../../../gen/platform/registry/v1/registry.platform_pb.js';
import { Vulnerabilities } from '../../../gen/platform/registry/v1/vulnerabilities.platform_pb.js';
import { Advisories } from '../../../gen/platform/vulnerabilities/v1/advisory.vulnerabilities_pb.js';
import type { Handler, Response } from '../../pipeline/handler.js';
import type { Marked } from '../../pipeline/dispatch.js';
import { V1_CALLS, type V1Call } from './calls.js';
import type { Operations } from './operations.js';
import { hasHttpRule } from '../rpc/transcode.js';
import { matchRoute, requestOf, routeOf, sortRoutes, type V1Route } from './routes.js';

/** The v1 services, as the vendor names them (`chainguard.platform.iam.Groups`). */
export const V1_SERVICES: readonly DescService[] = [Groups, Identities, Roles, RoleBindings, IdentityProviders, GroupInvites, GroupAccountAssociations, Registry, Vulnerabilities, Advisories, Subscriptions];

export interface V1Options {
  /** false (`serve --v1 off`): every v1 call answers 410 Gone, a rehearsal of the end of the transition. */
  enabled: boolean;
  /** `serve --v1-sunset DATE`: sent as the Sunset header; none by default. */
  sunset?: Date;
}

/**
 * Since when v1 is deprecated (the Deprecation header): the spec gives no date, so serve uses
 * the date of the vendor definitions it pins (v1-transition.md), by which v2 had replaced v1.
 */
const V1_DEPRECATED_SINCE = Date.parse('2026-08-21T00:00:00Z');

/** The v1 surface of `ops` (index.ts's v1Surface owns the paths and loads this on the first call). */
export function describedV1Surface(ops: Operations, opts: V1Options): { route(method: string, path: string): Handler; mark(method: string, path: string, out: Response): Marked } {
  const routes = sortRoutes(V1_SERVICES.flatMap((s) => s.methods.filter(hasHttpRule).map(routeOf)));
  for (const r of routes) if (!V1_CALLS[rpcName(r)]) throw new Error(`v1: ${rpcName(r)} has no entry in V1_CALLS`);
  const deprecation = `@${Math.floor(V1_DEPRECATED_SINCE / 1000)}`;
  const sunset = opts.sunset?.toUTCString();

  /** The call a v1 method and path are, if any, with its successor's path made concrete. */
  function described(method: string, path: string): { call: string; successor: string; link: string } {
    try {
      const { route, values } = matchRoute(routes, method, path);
      const successor = V1_CALLS[rpcName(route)]!.successor;
      const [, v2path = ''] = successor.split(' ');
      const link = values[0] !== undefined && v2path.includes('{uid}') ? v2path.replace('{uid}', values[0]) : v2path.replace(/\/\{uid\}.*$/, '');
      return { call: rpcName(route), successor, link };
    } catch {
      // Not a v1 call serve knows: its domain's v2 (the path's first segment) is the successor.
      return { call: `${method} ${path}`, successor: '', link: `/${path.split('/')[1]}/v2/` };
    }
  }

  return {
    route(method, path): Handler {
      if (!opts.enabled) {
        return () => {
          throw new ApiError(Code.UNIMPLEMENTED, `The v1 API is retired on this server (pctl serve --v1 off): use v2 instead (${described(method, path).successor || 'see docs/v1.md'})`, {
            reason: 'API_VERSION_RETIRED', httpStatus: 410,
          });
        };
      }
      const { route, values } = matchRoute(routes, method, path);
      const call: V1Call = V1_CALLS[rpcName(route)]!;
      return async (req): Promise<Response> => {
        if (!call.run) {
          throw new ApiError(Code.UNIMPLEMENTED, `${rpcName(route)} is not available: ${call.missing}`, { reason: 'V1_CALL_UNAVAILABLE', metadata: { successor: call.successor } });
        }
        const body = route.body === '' ? undefined : await req.json();
        const input = toJson(route.method.input, requestOf(route, values, req.query, body)) as Record<string, unknown>;
        const output = await call.run(input, { principal: req.principal, ops });
        return { body: toJson(route.method.output, fromJson(route.method.output, output as JsonValue), { alwaysEmitImplicit: true }) };
      };
    },
    mark(method, path, out) {
      const { call, successor, link } = described(method, path);
      const headers: Record<string, string> = { ...out.headers, deprecation, link: `<${encodeURI(link)}>; rel="successor-version"` };
      if (sunset) headers.sunset = sunset;
      return { out: { ...out, headers }, journal: { call, successor } };
    },
  };
}

const rpcName = (r: V1Route) => `${r.method.parent.typeName}/${r.method.name}`;

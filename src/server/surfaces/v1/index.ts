// The v1 surface: the vendor's v1 calls (proto/platform/*/v1/) beside v2 on serve's port and data.
// REST calls are routed by the v1 google.api.http rules; gRPC calls reach the same routes
// through rpc/ (transcoded by the same rules), so both run the same dispatcher: bearer auth,
// rate limits, faults and the journal apply as to v2. Every answer to a v1 path, an error
// too, is marked deprecated (RFC 9745 Deprecation, RFC 8594 Sunset when one is set, and a
// Link to the v2 successor); `enabled: false` answers every v1 call 410 Gone. The surface
// (surface.ts: the v1 descriptors and protobuf) is loaded on the first v1 call.
import type { Surface } from '../../pipeline/dispatch.js';
import { onFirstUse } from '../../pipeline/lazy.js';
import type { Operations } from './operations.js';
import type { V1Options } from './surface.js';

export type { V1Options } from './surface.js';

const V1_PATH = /^\/(iam|registry|vulnerabilities|events)\/v1\//;

export function v1Surface(ops: Operations, opts: V1Options, log?: (line: string) => void): Surface {
  const surface = onFirstUse('The v1 API', async () => (await import('./surface.js')).describedV1Surface(ops, opts), log);
  return {
    owns: (path) => V1_PATH.test(path),
    route(method, path) {
      const loaded = surface();
      return loaded instanceof Promise ? loaded.then((s) => s.route(method, path)) : loaded.route(method, path);
    },
    mark(method, path, out) {
      const loaded = surface();
      // Unloaded, the answer is the 503 that says so, with nothing to mark it by.
      return loaded instanceof Promise ? loaded.then((s) => s.mark(method, path, out), () => ({ out, journal: undefined })) : loaded.mark(method, path, out);
    },
  };
}

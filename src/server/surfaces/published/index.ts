// The vendor's published REST rules (proto/chainguard/platform/…: v2 and v2beta1) that no
// route of the spec's has: `GET /iam/v2beta1/groups`, `GET /iam/v2/groups:lookupGroup`,
// `PATCH /iam/v2/roleBindings/{uid}` … Where a published rule has the spec's shape, the spec's
// route answers it (its JSON is the spec's); these answer the proto3 JSON of the published
// messages, as the vendor's gateway does, running the published method the way gRPC runs it
// (surfaces/rpc/vendor.ts: the same transcoder or operation). The descriptors load on the first such call.
import type { Principal } from '../../auth/principal.js';
import type { Response } from '../../pipeline/handler.js';
import type { InProcessCall, PublishedRest } from '../../pipeline/dispatch.js';
import { onFirstUse } from '../../pipeline/lazy.js';
import type { ReadContext } from '../rpc/reads.js';

export function publishedRest(run: (principal: Principal, call: InProcessCall) => Promise<Response>, reads: ReadContext, log?: (line: string) => void): PublishedRest {
  const rules = onFirstUse('The published REST rules', async () => (await import('./routes.js')).publishedRoutes(run, reads), log);
  return (method, path) => {
    const loaded = rules();
    return loaded instanceof Promise ? loaded.then((find) => find(method, path)) : loaded(method, path);
  };
}

// What an RPC's operation is given and answers: the domain, the operations and the store
// (surfaces/rpc/vendor.ts), and its answer as the dispatcher takes it.
import type { Message } from '@bufbuild/protobuf';
import type { Principal } from '../../auth/principal.js';
import type { Domain } from '../../domain/index.js';
import type { Response } from '../../pipeline/handler.js';
import type { Operations } from '../../pipeline/operations.js';
import type { Store } from '../../store/store.js';
import type { RestCall } from './transcode.js';

/** An RPC answered by its operation: the caller, the request message, and the REST-equivalent call the rule names it by. */
export type DirectRead = (principal: Principal, request: Message, call: RestCall) => Promise<Response>;

export interface ReadContext {
  domain: Domain;
  operations: Operations;
  store: Store;
}

// Who a write is made for: the dispatcher runs each API handler inside `writeActor.run()`, and
// Store.write() picks the caller up, so that every change a request commits names its actor
// in the change feed. Writes made outside a request (bootstrap, seeds, a restore, the
// lastSeenTime of a token's identity) have none, and leave nothing in the feed.
import { AsyncLocalStorage } from 'node:async_hooks';

export interface Actor {
  identityUid: string;
  /** The email claim of the caller's token, when it had one. */
  email?: string;
}

export const writeActor = new AsyncLocalStorage<Actor>();

// Who a request's writes are for, when the code that writes does not say (Store.write's
// `origin`): the dispatcher runs each API handler inside `requestOrigin.run()`, and Store.write
// takes the origin from there, so that every change a request commits names its actor in the
// change feed. Writes outside a request (bootstrap, seeds, a restore, the lastSeenTime of a
// token's identity) have none: serve's own.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { WriteOrigin } from './changes.js';

export const requestOrigin = new AsyncLocalStorage<WriteOrigin>();

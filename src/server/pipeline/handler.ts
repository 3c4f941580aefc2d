// What a handler of an API call gets and answers, whichever surface it serves (REST routes,
// the control API, OAuth pages): the request as routing made it, and the response to send.
import type http from 'node:http';
import type { Principal } from '../auth/principal.js';

export interface Request {
  method: string;
  /** The path of the URL, still percent-encoded. */
  path: string;
  query: URLSearchParams;
  /** The uid of an item route (`/iam/v2/groups/{uid}`), decoded; slashes raw or as %2F. */
  uid: string;
  principal: Principal;
  headers: http.IncomingHttpHeaders;
  /** The parsed JSON body; a code-3 error when it is missing, too large or not JSON. */
  json(): Promise<unknown>;
  /** The body as `application/x-www-form-urlencoded` fields (HTML forms, OAuth token requests); bounded like json(). */
  form(): Promise<URLSearchParams>;
}

export interface Response {
  status?: number;
  /** An injected fault that answers with no HTTP response: the connection is cut, or never answered. */
  fault?: 'reset' | 'stall';
  /** JSON-serialized; undefined sends an empty body (DELETE). */
  body?: unknown;
  /**
   * The body already encoded as JSON, instead of `body` (a list page spliced from cached items),
   * with its length in UTF-8 bytes; `utf8`, those bytes when at hand (REST sends them as they
   * are: a page's text would be flattened and encoded again for every request).
   */
  bodyJson?: { text: string; bytes: number; utf8?: Uint8Array };
  /**
   * What the journal keeps in place of a long body that is made anew for each request (a
   * list page): kept, such a text would live as long as its journal entry, and copying it
   * between the collector's generations cost lists ~20% of their rate.
   */
  journalText?: () => string;
  /**
   * An RPC's answer already encoded as its protobuf response message (rpc/vendor.ts, encoded.ts), instead
   * of `body`: its bytes in parts, in order (protobuf messages concatenate), so that a page is
   * its own fields followed by each item's cached bytes, copied once, into the answer.
   */
  proto?: readonly Uint8Array[];
  /** The proto3 JSON of `proto`'s message (Connect's JSON answer), when made without decoding it. */
  protoJson?: () => string;
  /** Sent as is instead of `body` (an HTML page); the handler sets content-type in `headers`. */
  raw?: string;
  /**
   * The secrets `raw` holds (a sign-in page's CSRF handle, an authorization code), each in
   * every encoding the page uses: a page has no fields to mask by name, so the journal masks these.
   */
  secrets?: string[];
  headers?: Record<string, string>;
}

export type Handler = (req: Request) => Response | Promise<Response>;

/** The handlers of one resource: its collection (`list`, `create`) and its items (`get`, `update`, `remove`). */
export interface ResourceRoutes {
  path: string;
  list?: Handler;
  create?: Handler;
  get?: Handler;
  update?: Handler;
  remove?: Handler;
  /** Custom methods (AIP-136), POST only: `<collection>:verb` (uid '') and `<collection>/<uid>:verb`. */
  actions?: Record<string, Handler>;
}

/** Unauthenticated routes (OIDC discovery and the like), matched exactly by method + path. */
export type PublicRoutes = Record<string, Handler>;

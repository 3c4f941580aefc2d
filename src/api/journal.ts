// An entry of serve's request journal as `GET /_pctl/requests` answers it (a serve-only
// extension; see src/server/pipeline/journal.ts), shared by the server and `pctl serve requests`.
export interface JournalEntry {
  /** Increasing from 1: `?after=SEQ` asks for what came since. */
  seq: number;
  /** RFC 3339, on serve's clock. */
  time: string;
  method: string;
  /** With the query, credentials masked. */
  path: string;
  /** `chainguard.platform.iam.v2.GroupsService/GetGroup` for a gRPC or Connect call. */
  rpc?: string;
  status: number;
  durationMs: number;
  /** The caller's identity uid, when its token was valid. */
  identity?: string;
  /** False when no route matched (a 404 "No such API route", a 405). */
  matched: boolean;
  /** The id and effect of the injected fault that answered or delayed the call. */
  fault?: { id: string; effect: string };
  /** A call of a deprecated API (v1): its method, and the v2 call that replaces it. */
  deprecated?: { call: string; successor: string };
  requestBody?: string;
  responseBody?: string;
}

/** Who still calls v1, as `GET /_pctl/v1-callers` answers it (`pctl serve v1-callers`). */
export interface V1Callers {
  /** One row per caller and v1 call, the most frequent first. */
  callers: V1Caller[];
  /** The journal the counts come from: how many requests it holds, and since when. */
  window: { requests: number; since?: string };
}

export interface V1Caller {
  /** The caller's identity uid ('' when its token was missing or invalid). */
  identity: string;
  /** Its name, when the identity still exists. */
  name: string;
  /** The v1 call: `chainguard.platform.iam.Groups/Create` (method and path when no such call exists). */
  call: string;
  count: number;
  lastTime: string;
  /** The v2 call to use instead ('' when none is known). */
  successor: string;
}

// gRPC, gRPC-Web and the Connect protocol beside REST on serve's one port. Every unary call
// of the API's services is served by unary.ts (the request message names its REST call by
// the method's google.api.http rule and runs through the same dispatcher: auth, rate limit,
// faults, journal, errors; reads answered by the domain in protobuf). Connect for Node serves
// what that does not: server reflection, compressed messages, gRPC-Web text, Connect GETs —
// its handlers transcode to the REST call the same way. The AIP-193 answer of a failure is
// the gRPC status with the same details either way.
import type http from 'node:http';
import type http2 from 'node:http2';
import { createContextValues, createContextKey, Code, ConnectError, type ConnectRouter, type HandlerContext } from '@connectrpc/connect';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import { fromJson, type DescMessage, type DescMethodUnary, type DescService, type JsonObject, type JsonValue, type Message } from '@bufbuild/protobuf';
import { BAD_REQUEST_TYPE, ERROR_INFO_TYPE, PRECONDITION_FAILURE_TYPE, type Status } from '../../api/errors.js';
import { BadRequestSchema, ErrorInfoSchema, PreconditionFailureSchema } from '../../gen/google/rpc/error_details_pb.js';
import { AdvisoryService } from '../../gen/platform/advisory/v2/advisory_pb.js';
import { EventsService } from '../../gen/platform/events/v2/events_pb.js';
import { IamService } from '../../gen/platform/iam/v2/iam_pb.js';
import { LibrariesService } from '../../gen/platform/libraries/v2/libraries_pb.js';
import { RegistryService } from '../../gen/platform/registry/v2/registry_pb.js';
import { VulnerabilitiesService } from '../../gen/platform/vulnerabilities/v2/vulnerabilities_pb.js';
import { http1Exchange, http2Exchange, type Exchange } from '../exchange.js';
import { addressKey, MAX_BODY_BYTES, toErrorResponse, type Dispatch } from '../http.js';
import type { Response } from '../handler.js';
import type { Listeners } from './gate.js';
import { directReadOf, type ReadContext } from './reads.js';
import { registerReflection } from './reflection.js';
import { transcoderOf, type RestCall } from './transcode.js';
import { grpcPercentEncode, protocolOf, serveUnary, type UnaryMethod } from './unary.js';

/** The API's services, as proto/ defines them. */
export const API_SERVICES: readonly DescService[] = [IamService, RegistryService, VulnerabilitiesService, LibrariesService, AdvisoryService, EventsService];

const DETAIL_SCHEMAS: Record<string, DescMessage> = {
  [ERROR_INFO_TYPE]: ErrorInfoSchema,
  [BAD_REQUEST_TYPE]: BadRequestSchema,
  [PRECONDITION_FAILURE_TYPE]: PreconditionFailureSchema,
};

/** Headers of the REST answer that are HTTP's own, not metadata for an RPC caller. */
const NOT_METADATA = new Set(['content-type', 'content-length', 'connection', 'allow']);

const callerAddress = createContextKey('');

type NodeRequest = http.IncomingMessage | http2.Http2ServerRequest;
type NodeResponse = http.ServerResponse | http2.Http2ServerResponse;
type NodeListener = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/**
 * The listeners of the RPC paths (`/package.Service/Method`; gate.ts sends them nothing else):
 * unary calls of `services` by unary.ts, the rest (reflection, compressed messages, gRPC-Web
 * text, Connect GETs) by Connect. What is no RPC after all (a path of that shape that names no
 * service, without an RPC content type) goes to REST by `restNode`, node's listener. `reads`
 * lets the domain answer List and Get. Over HTTP/2 unary calls are answered on the stream
 * itself; node's compatibility objects are made only for what Connect answers.
 */
export function rpcListeners(
  dispatch: Dispatch,
  restNode: NodeListener,
  log: ((line: string) => void) | undefined,
  services: readonly DescService[],
  reads: ReadContext,
): Listeners {
  const unary = new Map<string, UnaryMethod>();
  for (const service of services) {
    for (const method of service.methods) {
      if (method.methodKind !== 'unary') continue;
      const transcoder = transcoderOf(method);
      unary.set(`/${service.typeName}/${method.name}`, { name: `${service.typeName}/${method.name}`, method, transcoder, read: directReadOf(reads, method.output, transcoder) });
    }
  }
  const adapter = connectNodeAdapter({
    routes: (router) => {
      for (const service of services) registerService(router, service, dispatch, log);
      registerReflection(router, services);
    },
    contextValues: (req) => createContextValues().set(callerAddress, addressKey(req.socket)),
    requestGate: reclassifyParseErrors,
    // REST's bound on a body, for a request message too (Connect's default is 4 GiB).
    readMaxBytes: MAX_BODY_BYTES,
    fallback: (req, res) => (isRpcContentType(req.headers['content-type']) ? unimplemented(req, res as NodeResponse) : restNode(req as http.IncomingMessage, res as never)),
  }) as NodeListener;
  const viaConnect: NodeListener = (req, res) => {
    if (req.headers['content-type']?.startsWith('application/grpc')) encodeGrpcMessageMinimally(res);
    adapter(req, res);
  };
  /** Serves the call when unary.ts does; false leaves it to the caller. */
  const served = (x: Exchange) => {
    const m = x.method === 'POST' ? unary.get(x.url) : undefined;
    const protocol = m && protocolOf(x);
    if (protocol) void serveUnary(x, m, protocol, dispatch, log);
    return Boolean(protocol);
  };
  return {
    request: (req, res) => {
      if (req.method === 'POST' && unary.has(req.url ?? '') && served(http1Exchange(req, res))) return;
      viaConnect(req, res);
    },
    stream: (stream, headers, _flags, rawHeaders) => {
      const x = http2Exchange(stream, headers, rawHeaders);
      if (served(x)) return;
      const [req, res] = x.node();
      viaConnect(req as unknown as http.IncomingMessage, res as unknown as http.ServerResponse);
    },
  };
}

/**
 * Connect percent-encodes grpc-message with encodeURIComponent (`:` as %3A); gRPC's spec asks
 * only bytes outside printable ASCII, and `%`, to be encoded, and grpc-js decodes with
 * decodeURI, which leaves %3A as is: "Group not found%3A x". Re-encoded the spec's way.
 */
function encodeGrpcMessageMinimally(res: http.ServerResponse): void {
  const fix = (headers: unknown) => {
    const h = headers as Record<string, string> | undefined;
    if (h && typeof h['grpc-message'] === 'string') h['grpc-message'] = grpcPercentEncode(decodeURIComponent(h['grpc-message']));
    return headers;
  };
  const addTrailers = res.addTrailers.bind(res);
  const writeHead = res.writeHead.bind(res);
  res.addTrailers = (headers) => addTrailers(fix(headers) as never);
  res.writeHead = ((status: number, ...rest: unknown[]) => writeHead(status, ...(rest.map(fix) as [])));
}

function registerService(router: ConnectRouter, service: DescService, dispatch: Dispatch, log?: (line: string) => void): void {
  // A failure outside the dispatcher (a path field left empty; an answer proto/ cannot hold,
  // which is our bug) is reported the way the dispatcher reports one.
  const failure = (err: unknown) => {
    const answer = toErrorResponse(err, log);
    return toConnectError(answer.body as Status, metadataOf(answer));
  };
  for (const method of service.methods) {
    const transcoder = transcoderOf(method);
    // Every API method is unary (lists are paged, not streamed).
    router.rpc(method as DescMethodUnary, async (request: Message, ctx: HandlerContext) => {
      let call: RestCall;
      try {
        call = transcoder.toRest(request);
      } catch (err) {
        throw failure(err);
      }
      const headers: http.IncomingHttpHeaders = {};
      ctx.requestHeader.forEach((value, key) => { headers[key] = value; });
      const answer = await dispatch({
        method: call.method,
        path: call.path,
        query: call.query,
        headers,
        address: ctx.values.get(callerAddress),
        // No depth check as for REST: protobuf's decoder refuses more than 100 levels (50 of a Struct), so no RPC body nests as deep as MAX_JSON_DEPTH.
        json: () => Promise.resolve(call.body()),
        form: () => Promise.resolve(new URLSearchParams()),
        rpc: `${service.typeName}/${method.name}`,
      });
      // Injected faults: a reset reaches a gRPC client as UNAVAILABLE (what grpc-js reports
      // for a connection cut); a stall waits until the client gives up or serve closes.
      if (answer.fault === 'reset') throw new ConnectError('connection reset (injected fault)', Code.Unavailable);
      if (answer.fault === 'stall') {
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
        throw new ConnectError('stalled (injected fault)', Code.Canceled);
      }
      const metadata = metadataOf(answer);
      if ((answer.status ?? 200) >= 400) throw toConnectError(answer.body as Status, metadata);
      metadata.forEach((value, key) => ctx.responseHeader.set(key, value));
      try {
        return transcoder.fromRest(answer.bodyJson === undefined ? answer.body : JSON.parse(answer.bodyJson.text));
      } catch (err) {
        throw failure(err);
      }
    });
  }
}

function metadataOf(answer: Response): Headers {
  const out = new Headers();
  for (const [key, value] of Object.entries(answer.headers ?? {})) if (!NOT_METADATA.has(key.toLowerCase())) out.set(key, value);
  return out;
}

/** An AIP-193 Status as a ConnectError: the same code (gRPC's codes are google.rpc.Code), message and details. */
function toConnectError(status: Status, metadata?: Headers): ConnectError {
  const details = status.details.flatMap((detail) => {
    const { '@type': type, ...fields } = detail as { '@type': string } & JsonObject;
    const desc = DETAIL_SCHEMAS[type];
    return desc ? [{ desc, value: fromJson(desc, fields as JsonValue) }] : [];
  });
  return new ConnectError(status.message, status.code, metadata, details);
}

/**
 * Connect answers a request message that is not valid protobuf with INTERNAL ("parse
 * binary: …"), a server fault, where the mistake is the client's: INVALID_ARGUMENT, as REST
 * answers bad JSON. The gate sees each call's context before the body is parsed; the abort
 * that carries the parse error fires before the status is written.
 */
function reclassifyParseErrors(ctx: HandlerContext): void {
  ctx.signal.addEventListener('abort', () => {
    const err: unknown = ctx.signal.reason;
    if (err instanceof ConnectError && err.code === Code.Internal && /^parse (binary|json)/.test(err.rawMessage)) {
      (err as { code: Code }).code = Code.InvalidArgument;
    }
  }, { once: true });
}

const isRpcContentType = (type: string | undefined) => /^application\/(grpc|connect\+|proto|json)/.test(type ?? '');

/** An RPC no service here has: UNIMPLEMENTED, in the caller's protocol. */
function unimplemented(req: NodeRequest, res: NodeResponse): void {
  const path = (req.url ?? '').split('?')[0]!;
  const message = `${path.slice(1)} is not a method of this server (see its services with gRPC reflection)`;
  const type = req.headers['content-type'] ?? '';
  req.resume();
  if (type.startsWith('application/grpc')) {
    // A trailers-only response: the status in the one HEADERS frame that ends the stream
    // (gRPC over HTTP/2), or in the headers of an empty answer (gRPC-Web).
    const headers = { 'content-type': type.split(';')[0]!, 'grpc-status': String(Code.Unimplemented), 'grpc-message': grpcPercentEncode(message) };
    if ('stream' in res) res.stream.respond({ ':status': 200, ...headers }, { endStream: true });
    else res.writeHead(200, headers).end();
    return;
  }
  const body = JSON.stringify({ code: 'unimplemented', message });
  res.writeHead(404, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

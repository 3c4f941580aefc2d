// gRPC, gRPC-Web and the Connect protocol beside REST on serve's one port, for the vendor's
// published services only (v2, v2beta1, v1, sign-in). Every unary call is served by unary.ts
// (the request message names its REST-equivalent call, and runs through the same dispatcher:
// auth, rate limit, faults, journal, errors; a published method is its operation, vendor.ts). Connect for Node serves
// what that does not: server reflection, compressed messages, gRPC-Web text, Connect GETs —
// its handlers transcode to the REST call the same way. The AIP-193 answer of a failure is
// the gRPC status with the same details either way.
import type http from 'node:http';
import { createConnectRouter, createContextValues, createContextKey, Code, ConnectError, type ConnectRouter, type ContextValues, type HandlerContext } from '@connectrpc/connect';
import type { UniversalHandler, UniversalServerRequest, UniversalServerResponse } from '@connectrpc/connect/protocol';
import { compressionBrotli, compressionGzip, universalRequestFromNodeRequest, universalResponseToNodeResponse } from '@connectrpc/connect-node';
import { fromJson, toBinary, toJson, type DescMessage, type DescMethod, type DescMethodUnary, type DescService, type JsonObject, type JsonValue, type Message } from '@bufbuild/protobuf';
import { BAD_REQUEST_TYPE, ERROR_INFO_TYPE, PRECONDITION_FAILURE_TYPE, type Status } from '../../../api/errors.js';
import { BadRequestSchema, ErrorInfoSchema, PreconditionFailureSchema } from '../../../gen/google/rpc/error_details_pb.js';
import { http1Exchange, webHeaders, type Exchange, type Http2Exchange } from '../../transport/exchange.js';
import { StreamGone } from '../../transport/h2/connection.js';
import { addressKey, MAX_BODY_BYTES, toErrorResponse, type Dispatch } from '../../pipeline/dispatch.js';
import type { Response } from '../../pipeline/handler.js';
import type { Listeners } from './gate.js';
import type { DirectRead, ReadContext } from './reads.js';
import { registerReflection } from './reflection.js';
import { hasHttpRule, transcoderOf, type RestCall, type Transcoder } from './transcode.js';
import { answerMessage, type VendorOperation, type VendorService } from './vendor.js';
import { callOf, grpcPercentEncode, messageOf, NOT_METADATA, protocolOf, serveUnary, type UnaryMethod } from './unary.js';

const DETAIL_SCHEMAS: Record<string, DescMessage> = {
  [ERROR_INFO_TYPE]: ErrorInfoSchema,
  [BAD_REQUEST_TYPE]: BadRequestSchema,
  [PRECONDITION_FAILURE_TYPE]: PreconditionFailureSchema,
};

const callerAddress = createContextKey('');

type NodeListener = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/**
 * The listeners of the RPC paths (`/package.Service/Method`; gate.ts sends them nothing else):
 * unary calls of `services` by unary.ts, the rest (reflection, compressed messages, gRPC-Web
 * text, Connect GETs) by Connect's handlers. What is no RPC after all (a path of that shape
 * that names no service, without an RPC content type) goes to REST. `routeServices` (v1's,
 * sign-in's) run the REST route their google.api.http rule names; `vendor`'s methods are
 * operations, given `reads`.
 */
export function rpcListeners(
  dispatch: Dispatch,
  rest: { node: NodeListener; http2: (x: Http2Exchange) => void },
  log: ((line: string) => void) | undefined,
  routeServices: readonly DescService[],
  reads: ReadContext,
  vendor: readonly VendorService[] = [],
): Listeners {
  const services = [...routeServices, ...vendor.map((v) => v.service)];
  const transcoders = transcodersOf(routeServices, vendor);
  const operations = new Map(vendor.flatMap((v) => [...(v.operations ?? [])]));
  const unary = new Map<string, UnaryMethod>();
  for (const service of services) {
    for (const method of service.methods) {
      const transcoder = transcoders.get(method);
      if (method.methodKind !== 'unary' || !transcoder) continue;
      // The vendor's methods are each an operation answering its message; v1's and sign-in's
      // run their REST route (transcode.ts), the answer reshaped into their message.
      const operation = operations.get(method);
      const answer = operation ? messageAnswer(reads, method, operation) : undefined;
      unary.set(`/${service.typeName}/${method.name}`, {
        name: `${service.typeName}/${method.name}`, method, transcoder, operation: answer,
        ...(answer ? { answersJson: true } : {}),
        ...(routeServices.includes(service) ? {} : { reshaped: true }),
        ...(transcoder.verb === 'GET' ? { seen: new Map() } : {}),
      });
    }
  }
  const router = createConnectRouter({
    requestGate: reclassifyParseErrors,
    // REST's bound on a body, for a request message too (Connect's default is 4 GiB).
    readMaxBytes: MAX_BODY_BYTES,
    acceptCompression: [compressionGzip, compressionBrotli],
  });
  for (const service of services) registerService(router, service, unary, dispatch, log);
  registerReflection(router, services);
  const connectHandlers = new Map(router.handlers.map((h) => [h.requestPath, h]));
  const contextOf = (address: string) => createContextValues().set(callerAddress, address);
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
      const handler = connectHandlers.get((req.url ?? '').split('?')[0]!);
      if (!handler) {
        if (isRpcContentType(req.headers['content-type'])) unimplemented(http1Exchange(req, res));
        else rest.node(req, res);
        return;
      }
      const uReq = universalRequestFromNodeRequest(req, res, undefined, contextOf(addressKey(req.socket)));
      void answerViaConnect(handler, uReq, (uRes) => universalResponseToNodeResponse(uRes, res), log);
    },
    stream: (x) => {
      if (served(x)) return;
      const handler = connectHandlers.get(x.url.split('?')[0]!);
      if (!handler) {
        if (isRpcContentType(x.headers['content-type'])) unimplemented(x);
        else rest.http2(x);
        return;
      }
      void answerViaConnect(handler, universalRequestOf(x, contextOf(x.address)), (uRes) => writeUniversal(x, uRes), log);
    },
  };
}

/** Runs one of Connect's handlers, its answer's grpc-message re-encoded (below) before it is written. */
async function answerViaConnect(handler: UniversalHandler, uReq: UniversalServerRequest, write: (uRes: UniversalServerResponse) => Promise<void>, log: ((line: string) => void) | undefined): Promise<void> {
  try {
    const uRes = await handler(uReq);
    encodeGrpcMessageMinimally(uRes.header);
    encodeGrpcMessageMinimally(uRes.trailer);
    await write(uRes);
  } catch (err) {
    // The caller went away mid-answer: nothing left to tell it.
    if (err instanceof StreamGone || ConnectError.from(err).code === Code.Aborted) return;
    (log ?? ((line: string) => process.stderr.write(`${line}\n`)))(`internal error: rpc ${handler.service.typeName}/${handler.method.name}: ${(err as Error)?.stack ?? String(err)}`);
  }
}

/** A request over serve's HTTP/2 as Connect's handlers take it: the body as it arrives, aborted when the stream ends early. */
function universalRequestOf(x: Http2Exchange, contextValues: ContextValues): UniversalServerRequest {
  const abort = new AbortController();
  x.onClose(() => {
    if (!x.stream.headersSent) abort.abort(new ConnectError('the stream was reset', Code.Aborted));
  });
  return {
    httpVersion: '2.0',
    method: x.method,
    header: webHeaders(x.headers),
    url: `http://${(x.headers[':authority'] as string | undefined) ?? x.headers.host ?? 'localhost'}${x.url}`,
    body: x.stream.read(),
    signal: abort.signal,
    contextValues,
  };
}

/** Writes one of Connect's answers on the stream: headers, the body as it comes, trailers. */
async function writeUniversal(x: Http2Exchange, uRes: UniversalServerResponse): Promise<void> {
  const headers: http.OutgoingHttpHeaders = {};
  uRes.header?.forEach((value, key) => { headers[key] = value; });
  const trailers: http.OutgoingHttpHeaders | undefined = uRes.trailer ? {} : undefined;
  uRes.trailer?.forEach((value, key) => { trailers![key] = value; });
  if (!uRes.body) {
    x.stream.respond(uRes.status, headers, undefined, trailers);
    return;
  }
  x.stream.writeHead(uRes.status, headers);
  for await (const chunk of uRes.body) await x.stream.write(chunk);
  x.stream.end(trailers);
}

/**
 * Connect percent-encodes grpc-message with encodeURIComponent (`:` as %3A); gRPC's spec asks
 * only bytes outside printable ASCII, and `%`, to be encoded, and grpc-js decodes with
 * decodeURI, which leaves %3A as is: "Group not found%3A x". Re-encoded the spec's way.
 */
function encodeGrpcMessageMinimally(headers: Headers | undefined): void {
  const message = headers?.get('grpc-message');
  if (message) headers!.set('grpc-message', grpcPercentEncode(decodeURIComponent(message)));
}

/**
 * Each method's transcoder: a route service's by its google.api.http rule (a method without
 * one, the vendor's internal kind, has none: UNIMPLEMENTED), the vendor's by vendor.ts.
 */
function transcodersOf(routeServices: readonly DescService[], vendor: readonly VendorService[]): Map<DescMethod, Transcoder> {
  const out = new Map<DescMethod, Transcoder>();
  for (const service of routeServices) for (const method of service.methods.filter(hasHttpRule)) out.set(method, transcoderOf(method));
  for (const v of vendor) for (const [method, t] of v.transcoders) out.set(method, t);
  return out;
}

/** A vendor operation's answer: its response message in protobuf, and as JSON for the journal when read. */
function messageAnswer(reads: ReadContext, method: DescMethod, operation: VendorOperation): DirectRead {
  return async (principal, request, call) => {
    const answer = await operation(reads, principal, request, call);
    if ('$typeName' in answer) return { proto: [toBinary(method.output, answer)], journalText: () => JSON.stringify(toJson(method.output, answer)) };
    // An encoded answer keeps its parts (the items' cached bytes), not a copy of the page per journal entry.
    const json = answer.json ?? (() => JSON.stringify(toJson(method.output, answerMessage(method.output, answer))));
    return { proto: answer.encoded, protoJson: json, journalText: json };
  };
}

/** Connect's handlers: the same methods, the same call (unary.ts's callOf) through the same pipeline; only the reading and writing of the wire is Connect's. */
function registerService(router: ConnectRouter, service: DescService, unary: ReadonlyMap<string, UnaryMethod>, dispatch: Dispatch, log?: (line: string) => void): void {
  // A failure outside the dispatcher (a path field left empty; an answer proto/ cannot hold,
  // which is our bug) is reported the way the dispatcher reports one.
  const failure = (err: unknown) => {
    const answer = toErrorResponse(err, log);
    return toConnectError(answer.body as Status, metadataOf(answer));
  };
  for (const method of service.methods) {
    const m = unary.get(`/${service.typeName}/${method.name}`);
    if (!m) continue;
    // Every API method is unary (lists are paged, not streamed).
    router.rpc(method as DescMethodUnary, async (request: Message, ctx: HandlerContext) => {
      let call: RestCall;
      try {
        call = m.transcoder.toRest(request);
      } catch (err) {
        throw failure(err);
      }
      const headers: http.IncomingHttpHeaders = {};
      ctx.requestHeader.forEach((value, key) => { headers[key] = value; });
      const json = (ctx.requestHeader.get('content-type') ?? '').includes('json');
      const answer = await dispatch(callOf(m, request, call, headers, ctx.values.get(callerAddress), json));
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
        return messageOf(m, answer);
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
function unimplemented(x: Exchange): void {
  const path = x.url.split('?')[0]!;
  const message = `${path.slice(1)} is not a method of this server (see its services with gRPC reflection)`;
  const type = x.headers['content-type'] ?? '';
  x.discardBody();
  if (type.startsWith('application/grpc')) {
    // A trailers-only response: the status in the one HEADERS frame that ends the stream
    // (gRPC over HTTP/2), or in the headers of an empty answer (gRPC-Web).
    x.respond(200, { 'content-type': type.split(';')[0]!, 'grpc-status': String(Code.Unimplemented), 'grpc-message': grpcPercentEncode(message) });
    return;
  }
  const body = JSON.stringify({ code: 'unimplemented', message });
  x.respond(404, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }, body);
}

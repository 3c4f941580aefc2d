// Unary RPCs without a framework: gRPC (HTTP/2), gRPC-Web and the Connect protocol (HTTP/1.1
// or 2), binary protobuf, and Connect's JSON. The request message is read from the body,
// names its REST call by the method's google.api.http rule (for the rate limit, faults, the
// journal and, for writes, the REST route), and runs through the same dispatcher as REST:
// authentication, rate limit, faults, the journal, errors. The vendor's methods are answered
// by their operation (vendor.ts) as the response message; v1's by its REST route, reshaped.
// Connect for Node answered the same calls at a twentieth of this rate (docs/grpc.md); it
// still serves what this does not: reflection (a stream), compressed messages, gRPC-Web text.
import { fromBinary, fromJson, toBinary, toJson, type DescMessage, type DescMethod, type JsonValue, type Message } from '@bufbuild/protobuf';
import { anyPack } from '@bufbuild/protobuf/wkt';
import { ApiError, BAD_REQUEST_TYPE, Code, codeName, ERROR_INFO_TYPE, httpStatusForCode, invalidArgument, PRECONDITION_FAILURE_TYPE, type Status } from '../../../api/errors.js';
import { BadRequestSchema, ErrorInfoSchema, PreconditionFailureSchema } from '../../../gen/google/rpc/error_details_pb.js';
import { StatusSchema } from '../../../gen/google/rpc/status_pb.js';
import type { IncomingHttpHeaders } from 'node:http';
import type { Principal } from '../../auth/principal.js';
import type { Response } from '../../pipeline/handler.js';
import type { Exchange } from '../../transport/exchange.js';
import { MAX_BODY_BYTES, toErrorResponse, type Call, type Dispatch } from '../../pipeline/dispatch.js';
import { unknownJsonFields } from '../proto-json.js';
import type { DirectRead } from './reads.js';
import type { RestCall, Transcoder } from './transcode.js';

/** One unary method as this module serves it. */
export interface UnaryMethod {
  /** `chainguard.platform.iam.v2.GroupsService/GetGroup`. */
  name: string;
  method: DescMethod;
  /** Names the call by its REST equivalent (the journal, fault rules), and for a method no operation answers, makes that REST call. */
  transcoder: Transcoder;
  /** The operation that answers it, when one does (the vendor's methods). */
  operation?: DirectRead | undefined;
  /** `operation` answers Connect's JSON too (else a read's JSON is REST's own text). */
  answersJson?: true;
  /** The REST answer is not the response's JSON (the vendor's messages): Connect's JSON is made from the message. */
  reshaped?: true;
  /**
   * A read's request and REST call by the request's bytes: a client asks the same Get or page
   * again and again (a poller, a dashboard), and the decode and transcoding of the same bytes
   * give the same call. Reads only: a write's body is made from its message each time.
   */
  seen?: Map<string, { request: Message; call: RestCall }>;
}

/** Requests kept per method in UnaryMethod.seen; past it the map starts again. */
const SEEN_KEPT = 256;

type Wire = 'grpc' | 'grpc-web' | 'connect';

/** How a call came: its wire protocol, and whether its messages are JSON (Connect's) rather than protobuf. */
export interface Protocol {
  wire: Wire;
  json: boolean;
}

const [GRPC, GRPC_WEB, CONNECT_PROTO, CONNECT_JSON]: Protocol[] = [{ wire: 'grpc', json: false }, { wire: 'grpc-web', json: false }, { wire: 'connect', json: false }, { wire: 'connect', json: true }];

/** The protocol of a request this module serves, by content type; undefined leaves it to Connect. */
export function protocolOf(req: Pick<Exchange, 'method' | 'headers' | 'httpVersionMajor'>): Protocol | undefined {
  if (req.method !== 'POST') return undefined;
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  const identity = (h: string | string[] | undefined) => h === undefined || h === 'identity';
  if ((type === 'application/grpc' || type === 'application/grpc+proto') && req.httpVersionMajor === 2 && identity(req.headers['grpc-encoding'])) return GRPC;
  if ((type === 'application/grpc-web' || type === 'application/grpc-web+proto') && identity(req.headers['grpc-encoding'])) return GRPC_WEB;
  if ((type === 'application/proto' || type === 'application/json') && identity(req.headers['content-encoding'])) return type === 'application/json' ? CONNECT_JSON : CONNECT_PROTO;
  return undefined;
}

/** Headers of an answer that are HTTP's own, not metadata for an RPC caller (both bridges: this one and Connect's). */
export const NOT_METADATA = new Set(['content-type', 'content-length', 'connection', 'allow', 'keep-alive', 'transfer-encoding', 'upgrade']);

const DETAIL_SCHEMAS: Record<string, DescMessage> = {
  [ERROR_INFO_TYPE]: ErrorInfoSchema,
  [BAD_REQUEST_TYPE]: BadRequestSchema,
  [PRECONDITION_FAILURE_TYPE]: PreconditionFailureSchema,
};

/** Answers one unary call; never throws. */
export async function serveUnary(x: Exchange, m: UnaryMethod, protocol: Protocol, dispatch: Dispatch, log?: (line: string) => void): Promise<void> {
  const deadlineMs = deadlineOf(x, protocol.wire);
  // A stalled answer waits until the caller goes away or its deadline passes; the listener
  // and the timer exist only when needed (each costs every call).
  let deadlinePassed: (() => void) | undefined;
  const timer = deadlineMs === undefined ? undefined : setTimeout(() => {
    replyError(x, protocol, { code: Code.DEADLINE_EXCEEDED, message: 'the deadline passed before the answer was ready', details: [] }, undefined);
    deadlinePassed?.();
  }, deadlineMs);
  try {
    const { request, call } = decodeCall(m, await x.readBody(MAX_BODY_BYTES + 5, tooLarge, 'The client closed the stream before the request was complete'), protocol);
    const answer = await dispatch(callOf(m, request, call, x.headers, x.address, protocol.json));
    // Injected faults: a reset reaches an RPC caller as UNAVAILABLE (what grpc-js reports for
    // a connection cut); a stall waits until the caller gives up, its deadline passes, or serve closes.
    if (answer.fault === 'reset') return replyError(x, protocol, { code: Code.UNAVAILABLE, message: 'connection reset (injected fault)', details: [] }, undefined);
    if (answer.fault === 'stall') {
      if (!x.gone()) {
        await new Promise<void>((resolve) => {
          deadlinePassed = resolve;
          x.onClose(resolve);
        });
      }
      return replyError(x, protocol, { code: Code.CANCELLED, message: 'stalled (injected fault)', details: [] }, undefined);
    }
    const metadata = metadataOf(answer);
    if ((answer.status ?? 200) >= 400) return replyError(x, protocol, answer.body as Status, metadata);
    if (!protocol.json) return replyMessage(x, protocol, answer.proto ?? [toBinary(m.method.output, messageOf(m, answer))], metadata);
    // Connect's JSON is REST's JSON: the route's text as it is, when it has one (not for the
    // vendor's messages, whose JSON differs from the spec's: made from the response message).
    if (answer.protoJson) return replyMessage(x, protocol, answer.protoJson(), metadata);
    if (answer.proto || m.reshaped) return replyMessage(x, protocol, JSON.stringify(toJson(m.method.output, messageOf(m, answer))), metadata);
    if (answer.bodyJson) return replyMessage(x, protocol, answer.bodyJson.text, metadata, answer.bodyJson.bytes);
    return replyMessage(x, protocol, JSON.stringify(answer.body ?? {}), metadata);
  } catch (err) {
    replyError(x, protocol, toErrorResponse(err, log).body as Status, undefined);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The call the pipeline runs for one RPC, whichever bridge read it (this fast path or Connect's
 * handlers): named by its REST equivalent; answered by the method's operation when it has one
 * (for Connect's JSON only when the operation answers JSON), else by that REST call's route.
 */
export function callOf(m: UnaryMethod, request: Message, call: RestCall, headers: IncomingHttpHeaders, address: string, json: boolean): Call {
  const op = m.operation && (!json || m.answersJson) ? m.operation : undefined;
  return {
    method: call.method,
    path: call.path,
    query: call.query,
    headers,
    address,
    // No depth check as for REST: protobuf's decoder refuses more than 100 levels (50 of a Struct).
    json: () => Promise.resolve(call.body()),
    form: () => Promise.resolve(new URLSearchParams()),
    rpc: m.name,
    ...(op ? {
      operation: (principal: Principal) => op(principal, request, call),
      // What the journal shows of a write's request: the REST-equivalent body, else the request message's JSON.
      ...(call.method === 'GET' ? {} : { journalRequest: () => JSON.stringify(call.body() ?? toJson(m.method.input, request)) }),
    } : {}),
  };
}

/** A successful answer as the method's response message: its protobuf, else the REST answer's JSON transcoded. */
export function messageOf(m: UnaryMethod, answer: Response): Message {
  if (answer.proto) return fromBinary(m.method.output, Buffer.concat(answer.proto));
  return m.transcoder.fromRest(answer.bodyJson ? JSON.parse(answer.bodyJson.text) : answer.body);
}

/** grpc-timeout (`100m`, `5S` …) or connect-timeout-ms, in milliseconds. */
function deadlineOf(req: Pick<Exchange, 'headers'>, wire: Wire): number | undefined {
  if (wire === 'connect') {
    const ms = req.headers['connect-timeout-ms'];
    return typeof ms === 'string' && /^\d{1,10}$/.test(ms) ? Number(ms) : undefined;
  }
  const m = /^(\d{1,8})([HMSmun])$/.exec(String(req.headers['grpc-timeout'] ?? ''));
  if (!m) return undefined;
  const unit = { H: 3_600_000, M: 60_000, S: 1000, m: 1, u: 0.001, n: 0.000001 }[m[2] as 'H'];
  return Number(m[1]) * unit;
}

/** gRPC's code for a message too large, as Connect answered it (REST says 413); the limit allows the 5-byte envelope. */
function tooLarge(): ApiError {
  return new ApiError(Code.RESOURCE_EXHAUSTED, `message larger than ${MAX_BODY_BYTES} bytes`, { reason: 'PAYLOAD_TOO_LARGE' });
}

/** The request message and the REST call it names (a read's, once per method and bytes). */
function decodeCall(m: UnaryMethod, bytes: Buffer, protocol: Protocol): { request: Message; call: RestCall } {
  if (!m.seen || bytes.length > 512) {
    const request = decode(m.method.input, bytes, protocol);
    return { request, call: m.transcoder.toRest(request) };
  }
  // gRPC and gRPC-Web bytes are an envelope, Connect's the message itself: keyed apart.
  const key = `${protocol.wire === 'connect' ? (protocol.json ? 'j' : 'c') : 'g'}${bytes.toString('latin1')}`;
  let hit = m.seen.get(key);
  if (!hit) {
    const request = decode(m.method.input, bytes, protocol);
    hit = { request, call: m.transcoder.toRest(request) };
    if (m.seen.size >= SEEN_KEPT) m.seen.clear();
    m.seen.set(key, hit);
  }
  return hit;
}

/** The request message: one uncompressed envelope (gRPC, gRPC-Web) or the body itself (Connect). */
function decode(input: DescMessage, bytes: Buffer, protocol: Protocol): Message {
  let body = bytes;
  if (protocol.wire !== 'connect') {
    if (bytes.length < 5 || bytes[0] !== 0 || bytes.readUInt32BE(1) !== bytes.length - 5) {
      throw new ApiError(Code.INVALID_ARGUMENT, 'Invalid argument: request: not one uncompressed gRPC message', { reason: 'MALFORMED_REQUEST' });
    }
    body = bytes.subarray(5);
  }
  if (!protocol.json) return readAs(input, () => fromBinary(input, body));
  const json = readAs(input, () => JSON.parse(body.toString('utf8')) as JsonValue);
  // A field the message has not: a field violation each, as REST's published rules answer it.
  const unknown = unknownJsonFields(input, json);
  if (unknown.length) throw invalidArgument(unknown);
  return readAs(input, () => fromJson(input, json));
}

function readAs<T>(input: DescMessage, read: () => T): T {
  try {
    return read();
  } catch (err) {
    throw new ApiError(Code.INVALID_ARGUMENT, `Invalid argument: request: not a ${input.typeName} (${(err as Error).message})`, { reason: 'MALFORMED_REQUEST' });
  }
}

/** The answer's headers that are metadata for the caller (lower-cased); undefined when none. */
function metadataOf(answer: Response): Record<string, string> | undefined {
  if (!answer.headers) return undefined;
  let out: Record<string, string> | undefined;
  for (const [key, value] of Object.entries(answer.headers)) if (!NOT_METADATA.has(key.toLowerCase())) (out ??= {})[key.toLowerCase()] = value;
  return out;
}

/** The trailers of a gRPC-Web answer that succeeded: the body's last frame (flag 0x80), as HTTP/1.1 header text. */
const GRPC_WEB_OK = envelope(0x80, Buffer.from('grpc-status: 0\r\n'));
// Frozen: serve's HTTP/2 encodes a frozen header set once.
const GRPC_OK = Object.freeze({ 'grpc-status': '0' });
const GRPC_HEADERS = Object.freeze({ 'content-type': 'application/grpc' });
const GRPC_WEB_HEADERS = Object.freeze({ 'content-type': 'application/grpc-web+proto' });

/**
 * Writes a response message in the caller's protocol (unless the exchange is over: a deadline
 * answered first): `message` is the protobuf message in parts, or Connect's JSON text with its
 * byte length. The answer's body is one buffer, the parts copied into it once.
 */
function replyMessage(x: Exchange, protocol: Protocol, message: readonly Uint8Array[] | string, metadata: Record<string, string> | undefined, bytes?: number): void {
  if (x.gone()) return;
  const headers: Record<string, string | number> = metadata ? { ...metadata } : {};
  if (typeof message === 'string') {
    headers['content-type'] = 'application/json';
    headers['content-length'] = bytes ?? Buffer.byteLength(message);
    x.respond(200, headers, message);
    return;
  }
  let length = 0;
  for (const part of message) length += part.length;
  if (protocol.wire === 'connect') {
    headers['content-type'] = 'application/proto';
    headers['content-length'] = length;
    x.respond(200, headers, copyInto(Buffer.allocUnsafe(length), 0, message));
    return;
  }
  // gRPC: the message's frame, then the status in trailers; gRPC-Web: the message's frame and
  // the trailers' frame in one body.
  const web = protocol.wire === 'grpc-web';
  const body = Buffer.allocUnsafe(5 + length + (web ? GRPC_WEB_OK.length : 0));
  body[0] = 0;
  body.writeUInt32BE(length, 1);
  copyInto(body, 5, message);
  if (!web) {
    if (!metadata) x.respond(200, GRPC_HEADERS, body, GRPC_OK);
    else x.respond(200, { ...metadata, 'content-type': 'application/grpc' }, body, GRPC_OK);
    return;
  }
  body.set(GRPC_WEB_OK, 5 + length);
  // HTTP/2 ends the body with the stream: no length to send, and the headers are constant.
  if (!metadata && x.httpVersionMajor === 2) {
    x.respond(200, GRPC_WEB_HEADERS, body);
    return;
  }
  headers['content-type'] = 'application/grpc-web+proto';
  headers['content-length'] = body.length;
  x.respond(200, headers, body);
}

function copyInto(target: Buffer, offset: number, parts: readonly Uint8Array[]): Buffer {
  for (const part of parts) {
    target.set(part, offset);
    offset += part.length;
  }
  return target;
}

/** Writes a failure in the caller's protocol, unless the exchange is over. */
function replyError(x: Exchange, protocol: Protocol, status: Status, metadata: Record<string, string> | undefined): void {
  if (x.gone()) return;
  if (protocol.wire === 'connect') {
    const body = Buffer.from(JSON.stringify(connectError(status)));
    x.respond(httpStatusForCode(status.code), { ...metadata, 'content-type': 'application/json', 'content-length': body.length }, body);
    return;
  }
  // gRPC: trailers-only, the status in the one HEADERS frame that ends the stream; gRPC-Web: in the headers of an empty answer.
  const headers = { ...metadata, 'content-type': protocol.wire === 'grpc' ? 'application/grpc' : 'application/grpc-web+proto', ...grpcStatusHeaders(status) };
  x.respond(200, protocol.wire === 'grpc' ? headers : { ...headers, 'content-length': 0 }, undefined);
}

/** A gRPC message frame: flags, length, bytes. */
function envelope(flags: number, bytes: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(5 + bytes.length);
  out[0] = flags;
  out.writeUInt32BE(bytes.length, 1);
  out.set(bytes, 5);
  return out;
}

/** An AIP-193 Status's details as google.protobuf.Any (the kinds proto/ has). */
function detailsOf(status: Status) {
  return (status.details ?? []).flatMap((detail) => {
    const { '@type': type, ...fields } = detail as { '@type': string } & Record<string, JsonValue>;
    const desc = DETAIL_SCHEMAS[type];
    return desc ? [{ desc, message: fromJson(desc, fields) }] : [];
  });
}

/** grpc-status, grpc-message (percent-encoded as gRPC's spec asks) and the Status with its details in grpc-status-details-bin. */
function grpcStatusHeaders(status: Status): Record<string, string> {
  const details = detailsOf(status).map(({ desc, message }) => anyPack(desc, message));
  const bin = toBinary(StatusSchema, { $typeName: 'google.rpc.Status', code: status.code, message: status.message, details });
  return {
    'grpc-status': String(status.code),
    'grpc-message': grpcPercentEncode(status.message),
    'grpc-status-details-bin': Buffer.from(bin).toString('base64').replace(/=+$/, ''),
  };
}

/** Connect's error body: the code's name, the message, each detail's type and bytes. */
function connectError(status: Status): unknown {
  const code = status.code === Code.CANCELLED ? 'canceled' : codeName(status.code).toLowerCase();
  return {
    code,
    message: status.message,
    details: detailsOf(status).map(({ desc, message }) => ({ type: desc.typeName, value: Buffer.from(toBinary(desc, message)).toString('base64').replace(/=+$/, '') })),
  };
}

/** gRPC's percent-encoding of grpc-message: bytes outside printable ASCII, and `%`. */
export function grpcPercentEncode(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) out += byte >= 0x20 && byte <= 0x7e && byte !== 0x25 ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  return out;
}


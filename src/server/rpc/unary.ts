// Unary RPCs without a framework: gRPC (HTTP/2), gRPC-Web and the Connect protocol (HTTP/1.1
// or 2), binary protobuf, and Connect's JSON. The request message is read from the body,
// names its REST call by the method's google.api.http rule (for the rate limit, faults, the
// journal and, for writes, the REST route), and runs through the same dispatcher as REST:
// authentication, rate limit, faults, the journal, errors. A resource's List and Get are
// answered by the domain directly in protobuf (reads.ts); Connect's JSON is REST's own JSON.
// Connect for Node answered the same calls at a twentieth of this rate (docs/grpc.md); it
// still serves what this does not: reflection (a stream), compressed messages, gRPC-Web text.
import type { Readable } from 'node:stream';
import { fromBinary, fromJson, toBinary, toJson, type DescMessage, type DescMethod, type JsonValue, type Message } from '@bufbuild/protobuf';
import { anyPack } from '@bufbuild/protobuf/wkt';
import { ApiError, BAD_REQUEST_TYPE, Code, codeName, ERROR_INFO_TYPE, httpStatusForCode, PRECONDITION_FAILURE_TYPE, type Status } from '../../api/errors.js';
import { BadRequestSchema, ErrorInfoSchema, PreconditionFailureSchema } from '../../gen/google/rpc/error_details_pb.js';
import { StatusSchema } from '../../gen/google/rpc/status_pb.js';
import type { Response } from '../handler.js';
import type { Exchange } from '../exchange.js';
import { MAX_BODY_BYTES, toErrorResponse, type Dispatch } from '../http.js';
import type { DirectRead } from './reads.js';
import type { Transcoder } from './transcode.js';

/** One unary method as this module serves it. */
export interface UnaryMethod {
  /** `platform.iam.v2.IamService/GetGroup`. */
  name: string;
  method: DescMethod;
  transcoder: Transcoder;
  /** Set when the domain answers it directly in protobuf. */
  read?: DirectRead | undefined;
}

type Wire = 'grpc' | 'grpc-web' | 'connect';

/** The protocol of a request this module serves, by content type; undefined leaves it to Connect. */
export function protocolOf(req: Pick<Exchange, 'method' | 'headers' | 'httpVersionMajor'>): { wire: Wire; json: boolean; contentType: string } | undefined {
  if (req.method !== 'POST') return undefined;
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  const identity = (h: string | string[] | undefined) => h === undefined || h === 'identity';
  if ((type === 'application/grpc' || type === 'application/grpc+proto') && req.httpVersionMajor === 2 && identity(req.headers['grpc-encoding'])) return { wire: 'grpc', json: false, contentType: type };
  if ((type === 'application/grpc-web' || type === 'application/grpc-web+proto') && identity(req.headers['grpc-encoding'])) return { wire: 'grpc-web', json: false, contentType: type };
  if ((type === 'application/proto' || type === 'application/json') && identity(req.headers['content-encoding'])) return { wire: 'connect', json: type === 'application/json', contentType: type };
  return undefined;
}

/** Headers of a REST answer that are HTTP's own, not metadata for an RPC caller. */
const NOT_METADATA = new Set(['content-type', 'content-length', 'connection', 'allow', 'keep-alive', 'transfer-encoding', 'upgrade']);

const DETAIL_SCHEMAS: Record<string, DescMessage> = {
  [ERROR_INFO_TYPE]: ErrorInfoSchema,
  [BAD_REQUEST_TYPE]: BadRequestSchema,
  [PRECONDITION_FAILURE_TYPE]: PreconditionFailureSchema,
};

/** Answers one unary call; never throws. */
export function serveUnary(x: Exchange, m: UnaryMethod, protocol: NonNullable<ReturnType<typeof protocolOf>>, dispatch: Dispatch, log?: (line: string) => void): void {
  const reply = replier(x, protocol);
  const failure = (err: unknown) => reply.error(statusOf(toErrorResponse(err, log)), {});
  const deadlineMs = deadlineOf(x, protocol.wire);
  // Over when the caller goes away or its deadline passes: a stalled answer stops waiting.
  // (An AbortController per call cost 4% of a call.)
  let over = false;
  let onOver: (() => void) | undefined;
  const end = () => {
    over = true;
    onOver?.();
  };
  x.onClose(end);
  let timer: NodeJS.Timeout | undefined;
  if (deadlineMs !== undefined) {
    timer = setTimeout(() => {
      reply.error({ code: Code.DEADLINE_EXCEEDED, message: 'the deadline passed before the answer was ready', details: [] }, {});
      end();
    }, deadlineMs);
  }
  readBody(x.body).then(async (bytes) => {
    const request = decode(m.method.input, bytes, protocol);
    const call = m.transcoder.toRest(request);
    const read = m.read && !protocol.json ? m.read : undefined;
    const answer = await dispatch({
      method: call.method,
      path: call.path,
      query: call.query,
      headers: x.headers,
      address: x.address,
      // No depth check as for REST: protobuf's decoder refuses more than 100 levels (50 of a Struct).
      json: () => Promise.resolve(call.body()),
      form: () => Promise.resolve(new URLSearchParams()),
      rpc: m.name,
      ...(read ? { operation: (principal) => read(principal, request, call.query) } : {}),
    });
    // Injected faults: a reset reaches an RPC caller as UNAVAILABLE (what grpc-js reports for
    // a connection cut); a stall waits until the caller gives up, its deadline passes, or serve closes.
    if (answer.fault === 'reset') return reply.error({ code: Code.UNAVAILABLE, message: 'connection reset (injected fault)', details: [] }, {});
    if (answer.fault === 'stall') {
      if (!over) await new Promise<void>((resolve) => (onOver = resolve));
      return reply.error({ code: Code.CANCELLED, message: 'stalled (injected fault)', details: [] }, {});
    }
    const metadata = metadataOf(answer);
    if ((answer.status ?? 200) >= 400) return reply.error(answer.body as Status, metadata);
    if (protocol.json) return reply.message(Buffer.from(answer.proto ? JSON.stringify(toJson(m.method.output, fromBinary(m.method.output, answer.proto))) : answer.bodyJson?.text ?? JSON.stringify(answer.body ?? {})), metadata);
    return reply.message(answer.proto ?? toBinary(m.method.output, m.transcoder.fromRest(answer.bodyJson ? JSON.parse(answer.bodyJson.text) : answer.body)), metadata);
  }).catch(failure).finally(() => clearTimeout(timer));
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

function readBody(req: Readable): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      // gRPC's code for a message too large, as Connect answered it (REST says 413).
      if (size > MAX_BODY_BYTES + 5) {
        failed = true;
        reject(new ApiError(Code.RESOURCE_EXHAUSTED, `message larger than ${MAX_BODY_BYTES} bytes`, { reason: 'PAYLOAD_TOO_LARGE' }));
      } else chunks.push(chunk);
    });
    const gone = () => reject(new ApiError(Code.CANCELLED, 'The client closed the stream before the request was complete', { reason: 'CLIENT_CLOSED_REQUEST' }));
    req.on('error', gone);
    req.once('aborted', gone);
    req.on('end', () => failed || resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
  });
}

/** The request message: one uncompressed envelope (gRPC, gRPC-Web) or the body itself (Connect). */
function decode(input: DescMessage, bytes: Buffer, protocol: { wire: Wire; json: boolean }): Message {
  let body = bytes;
  if (protocol.wire !== 'connect') {
    if (bytes.length < 5 || bytes[0] !== 0 || bytes.readUInt32BE(1) !== bytes.length - 5) {
      throw new ApiError(Code.INVALID_ARGUMENT, 'Invalid argument: request: not one uncompressed gRPC message', { reason: 'MALFORMED_REQUEST' });
    }
    body = bytes.subarray(5);
  }
  try {
    if (protocol.json) return fromJson(input, JSON.parse(body.toString('utf8')) as JsonValue);
    return fromBinary(input, body);
  } catch (err) {
    throw new ApiError(Code.INVALID_ARGUMENT, `Invalid argument: request: not a ${input.typeName} (${(err as Error).message})`, { reason: 'MALFORMED_REQUEST' });
  }
}

function statusOf(answer: Response): Status {
  return answer.body as Status;
}

function metadataOf(answer: Response): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(answer.headers ?? {})) if (!NOT_METADATA.has(key.toLowerCase())) out[key.toLowerCase()] = value;
  return out;
}

interface Replier {
  message(bytes: Uint8Array, metadata: Record<string, string>): void;
  error(status: Status, metadata: Record<string, string>): void;
}

/** Writes the answer in the caller's protocol, once (a deadline may have answered first). */
function replier(x: Exchange, protocol: { wire: Wire; json: boolean; contentType: string }): Replier {
  const send = (status: number, headers: Record<string, string | number>, body: Uint8Array | undefined, trailers?: Record<string, string>) =>
    x.respond(status, body && !trailers ? { ...headers, 'content-length': body.length } : headers, body, trailers);
  const once = (write: () => void) => {
    if (!x.gone()) write();
  };

  if (protocol.wire === 'connect') {
    const type = protocol.json ? 'application/json' : 'application/proto';
    return {
      message: (bytes, metadata) => once(() => send(200, { ...metadata, 'content-type': type }, bytes)),
      error: (status, metadata) => once(() => send(httpStatusForCode(status.code), { ...metadata, 'content-type': 'application/json' }, Buffer.from(JSON.stringify(connectError(status))))),
    };
  }
  const type = protocol.wire === 'grpc' ? 'application/grpc' : 'application/grpc-web+proto';
  if (protocol.wire === 'grpc') {
    return {
      message: (bytes, metadata) => once(() => send(200, { ...metadata, 'content-type': type }, envelope(0, bytes), { 'grpc-status': '0' })),
      // Trailers-only: the status in the one HEADERS frame that ends the stream.
      error: (status, metadata) => once(() => send(200, { ...metadata, 'content-type': type, ...grpcStatusHeaders(status) }, undefined)),
    };
  }
  return {
    // gRPC-Web: the trailers are the body's last frame (flag 0x80), as HTTP/1.1 text.
    message: (bytes, metadata) => once(() => send(200, { ...metadata, 'content-type': type }, Buffer.concat([envelope(0, bytes), envelope(0x80, Buffer.from('grpc-status: 0\r\n'))]))),
    error: (status, metadata) => once(() => send(200, { ...metadata, 'content-type': type, ...grpcStatusHeaders(status) }, Buffer.alloc(0))),
  };
}

function envelope(flags: number, bytes: Uint8Array): Buffer {
  const head = Buffer.alloc(5);
  head[0] = flags;
  head.writeUInt32BE(bytes.length, 1);
  return Buffer.concat([head, bytes]);
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


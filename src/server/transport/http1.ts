// serve's HTTP/1.1 server (node:http): what its parser rejects answered as an AIP-193 error
// rather than node's bare 400.
import http from 'node:http';
import { ApiError, Code } from '../../api/errors.js';
import { addressKey } from './exchange.js';

/** What the limits tell of a caller without counting it (the pipeline's limiter). */
interface RateHeaders { peek(caller: string): Record<string, string> | undefined }

/**
 * The HTTP/1.1 server: `listener` answers requests; what node's parser rejects (unknown method,
 * bad request line or header, headers too large) never reaches it, and without this node
 * answers a bare 400 with no body.
 */
export function createHttp1Server(listener: http.RequestListener, limiter?: RateHeaders): http.Server {
  // requireHostHeader off: an HTTP/1.1 request without Host is served like any other, instead of
  // node answering a bare 400 before the handler (and its AIP-193 errors) ever sees it.
  const server = http.createServer({ requireHostHeader: false }, listener);
  server.on('clientError', (err: NodeJS.ErrnoException, socket: import('node:net').Socket) => {
    const inProgress = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
    if (err.code === 'ECONNRESET' || !socket.writable || inProgress) {
      socket.destroy();
      return;
    }
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    // Code-3 messages start "Invalid argument: <field>: ", as the spec words them.
    const apiError = status === 431
      ? headersTooLarge()
      : new ApiError(status === 408 ? Code.DEADLINE_EXCEEDED : Code.INVALID_ARGUMENT, status === 408 ? 'Request timed out' : `Invalid argument: request: malformed HTTP request (${err.code ?? 'parse error'})`, { reason: 'MALFORMED_REQUEST', httpStatus: status });
    const payload = JSON.stringify(apiError.toStatus());
    // Not counted (it was never a request), but reported like every other answer.
    const rate = Object.entries(limiter?.peek(addressKey(socket)) ?? {}).map(([k, v]) => `${k}: ${v}\r\n`).join('');
    socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(payload)}\r\n${rate}connection: close\r\n\r\n${payload}`);
  });
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 70_000;
  server.requestTimeout = 120_000;
  return server;
}

/** A request whose headers are over the server's bound (HTTP/1.1: node's 16 KiB; HTTP/2: MAX_HEADER_LIST). */
export function headersTooLarge(): ApiError {
  return new ApiError(Code.INVALID_ARGUMENT, 'Invalid argument: headers: the request headers are too large', { reason: 'MALFORMED_REQUEST', httpStatus: 431 });
}

/**
 * An extended CONNECT over HTTP/2 (RFC 8441): serve speaks no protocol over one. What a proxy
 * (haproxy 2.6) makes of an HTTP/1.1 request carrying `Upgrade` (curl --http2 sends one).
 */
export function extendedConnectRefused(): ApiError {
  return new ApiError(
    Code.INVALID_ARGUMENT,
    'Invalid argument: request: serve takes no extended CONNECT (RFC 8441), which a proxy makes of a request carrying Upgrade: remove that header at the proxy (haproxy: http-request del-header upgrade)',
    { reason: 'UPGRADE_NOT_SUPPORTED', httpStatus: 400 },
  );
}

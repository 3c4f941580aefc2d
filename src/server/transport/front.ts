// Serve's one port: a TCP listener that reads the first bytes of each connection and hands
// it to the HTTP/2 server when they are the HTTP/2 connection preface (gRPC clients speak h2c
// with prior knowledge), else to the HTTP/1.1 server (REST, gRPC-Web, Connect). HTTP/2 is
// serve's own (h2/connection.ts): its streams go to `onStream`.
import net from 'node:net';
import type http from 'node:http';
import type http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { addressKey } from './exchange.js';
import { DEFAULT_H2_TIMEOUTS, H2Connection, type H2Timeouts, type RequestStream } from './h2/connection.js';
import { nodeH2Server } from './h2/node-stream.js';
import { extendedConnectRefused } from './http1.js';

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');

export interface Front {
  listen(port: number, host: string): Promise<number>;
  /** Stops accepting; idle connections close now, busy ones after `graceMs`. */
  close(graceMs: number): Promise<void>;
}

/**
 * Connections that have not yet sent enough to tell their protocol: past this many, the oldest
 * is dropped for each new one (each holds at most the preface's 24 bytes and a timer).
 */
const MAX_UNDECIDED = 4096;

export interface FrontOptions {
  /** HTTP/2's deadlines; `prefaceMs` is also how long a new connection may take to send its first bytes. */
  timeouts?: H2Timeouts;
  /** Whose HTTP/2 answers: serve's own (h2/connection.ts, the default) or node:http2 (`serve --http2 node`). */
  http2?: 'own' | 'node';
}

export function createFront(http1: http.Server, onStream: (stream: RequestStream) => void, opts: FrontOptions = {}): Front {
  const sessions = new Set<H2Connection>();
  // An extended CONNECT is answered with the reason it is refused and goes no further.
  const ownStream = (stream: RequestStream) => (stream.extendedConnect === undefined ? onStream(stream) : refuseExtendedConnect(stream));
  const timeouts = opts.timeouts ?? DEFAULT_H2_TIMEOUTS;
  const node = opts.http2 === 'node' ? nodeH2Server(onStream, addressKey, timeouts) : undefined;
  const nodeSessions = new Set<http2.Http2Session>();
  node?.on('session', (session: http2.Http2Session) => {
    nodeSessions.add(session);
    session.once('close', () => nodeSessions.delete(session));
  });

  const undecided = new Set<net.Socket>();
  // noDelay as node's HTTP servers set it: answers are written whole, nothing waits to join them.
  const tcp = net.createServer({ noDelay: true }, (socket) => {
    if (undecided.size >= MAX_UNDECIDED) undecided.values().next().value!.destroy();
    undecided.add(socket);
    // A connection that never says which protocol it speaks is not kept.
    const silent = setTimeout(() => socket.destroy(), timeouts.prefaceMs);
    silent.unref();
    socket.once('close', () => {
      clearTimeout(silent);
      undecided.delete(socket);
    });
    let seen: Buffer = Buffer.alloc(0);
    const decide = (chunk: Buffer) => {
      seen = seen.length ? Buffer.concat([seen, chunk]) : chunk;
      const n = Math.min(seen.length, PREFACE.length);
      const isH2 = seen.subarray(0, n).equals(PREFACE.subarray(0, n));
      if (isH2 && seen.length < PREFACE.length) return; // a prefix of the preface: wait for the rest
      socket.off('data', decide);
      socket.off('error', drop);
      undecided.delete(socket);
      clearTimeout(silent);
      socket.pause();
      socket.unshift(seen);
      if (isH2 && node) {
        // node:http2 takes what was read back with socket.read() and the rest from the handle itself.
        node.emit('connection', socket);
        return;
      }
      if (isH2) {
        const session = new H2Connection(socket, { onStream: ownStream, address: addressKey(socket), timeouts });
        sessions.add(session);
        socket.once('close', () => sessions.delete(session));
      } else http1.emit('connection', socket);
      socket.resume();
    };
    const drop = () => socket.destroy();
    socket.on('data', decide);
    socket.on('error', drop);
  });

  return {
    listen: (port, host) => new Promise((resolve, reject) => {
      tcp.once('error', reject);
      tcp.listen(port, host, () => {
        tcp.off('error', reject);
        // node's HTTP/1.1 server starts tracking connections (timeouts, closeIdleConnections)
        // when it hears it is listening; here the TCP listener listens for it.
        http1.emit('listening');
        resolve((tcp.address() as AddressInfo).port);
      });
    }),
    close: (graceMs) => new Promise((resolve) => {
      tcp.close(() => resolve());
      // Closes idle keep-alive connections and stops the timeout checks.
      http1.close();
      for (const session of sessions) session.shutdown();
      for (const session of nodeSessions) session.close();
      // Connections that never sent a byte belong to neither server yet.
      for (const socket of undecided) socket.destroy();
      setTimeout(() => {
        http1.closeAllConnections();
        for (const session of sessions) session.destroy();
        for (const session of nodeSessions) session.destroy();
      }, graceMs).unref();
    }),
  };
}

function refuseExtendedConnect(stream: RequestStream): void {
  stream.discard();
  const body = JSON.stringify(extendedConnectRefused().toStatus());
  stream.respond(400, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }, body);
}

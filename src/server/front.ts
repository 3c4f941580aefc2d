// Serve's one port: a TCP listener that reads the first bytes of each connection and hands
// it to the HTTP/2 server when they are the HTTP/2 connection preface (gRPC clients speak h2c
// with prior knowledge), else to the HTTP/1.1 server (REST, gRPC-Web, Connect). HTTP/2
// streams go to `onStream` as they are, without node's compatibility layer (exchange.ts).
import net from 'node:net';
import http from 'node:http';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');

export interface Front {
  listen(port: number, host: string): Promise<number>;
  /** Stops accepting; idle connections close now, busy ones after `graceMs`. */
  close(graceMs: number): Promise<void>;
}

export function createFront(http1: http.Server, onStream: (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders, flags: number, rawHeaders: string[]) => void): Front {
  const h2 = http2.createServer({});
  h2.on('stream', onStream);
  const sessions = new Set<http2.ServerHttp2Session>();
  h2.on('session', (session) => {
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
    // A peer that breaks the protocol loses its session, not the server.
    session.on('error', () => session.destroy());
  });
  h2.on('sessionError', () => {});

  const undecided = new Set<net.Socket>();
  // noDelay as node's HTTP servers set it: a gRPC answer is three small writes (headers, data, trailers).
  const tcp = net.createServer({ noDelay: true }, (socket) => {
    undecided.add(socket);
    socket.once('close', () => undecided.delete(socket));
    let seen: Buffer = Buffer.alloc(0);
    const decide = (chunk: Buffer) => {
      seen = seen.length ? Buffer.concat([seen, chunk]) : chunk;
      const n = Math.min(seen.length, PREFACE.length);
      const isH2 = seen.subarray(0, n).equals(PREFACE.subarray(0, n));
      if (isH2 && seen.length < PREFACE.length) return; // a prefix of the preface: wait for the rest
      socket.off('data', decide);
      socket.off('error', drop);
      undecided.delete(socket);
      socket.pause();
      socket.unshift(seen);
      if (isH2) {
        // The HTTP/2 session reads what is buffered itself; resuming the stream would lose it.
        h2.emit('connection', socket);
      } else {
        http1.emit('connection', socket);
        socket.resume();
      }
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
      for (const session of sessions) session.close();
      // Connections that never sent a byte belong to neither server yet.
      for (const socket of undecided) socket.destroy();
      setTimeout(() => {
        http1.closeAllConnections();
        for (const session of sessions) session.destroy();
      }, graceMs).unref();
    }),
  };
}

// The HTTP listener around the express app: serves on the configured port and, on SIGTERM or SIGINT,
// stops accepting connections, lets in-flight requests finish (bounded by a grace period), then closes
// the stores so the event log is left clean.
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { RequestListener } from 'node:http';
import type { Log } from './log.js';
import { pathWithoutSecrets } from '../api/secret-paths.js';

export interface RunningServer {
  server: Server;
  port: number;
  /** Stops accepting, drains in-flight requests (at most graceMs), then runs `onClosed`. */
  shutdown(): Promise<void>;
}

export async function listen(
  app: RequestListener,
  options: {
    port: number;
    host: string;
    graceMs: number;
    /** Whole-request limit (node's requestTimeout): slow or stalled uploads are cut off (0: none). */
    requestTimeoutMs?: number;
    /** Time allowed to send the request headers (node's headersTimeout). */
    headersTimeoutMs?: number;
    log: Log;
    /** Called as the shutdown begins, before in-flight requests are waited for (ends the long-lived event streams). */
    onStopping?: () => void;
    onClosed: () => Promise<void>;
    /** Called once with the server before it listens (e.g. to answer malformed requests). */
    configure?: (server: Server) => void;
  },
): Promise<RunningServer> {
  const requestTimeout = options.requestTimeoutMs ?? 300_000;
  const headersTimeout = Math.min(options.headersTimeoutMs ?? 60_000, requestTimeout);
  // node checks these timeouts every connectionsCheckingInterval (30 s by default): check often enough
  // that a limit is kept to within a quarter of the shorter one.
  const connectionsCheckingInterval = Math.max(50, Math.min(30_000, Math.floor(headersTimeout / 4)));
  const server = createServer({ requestTimeout, headersTimeout, connectionsCheckingInterval }, app);
  options.configure?.(server);
  server.keepAliveTimeout = 5_000;
  // Slow, stalled and abandoned requests are logged once each, at info, without a stack: a timeout
  // here, a client that closed mid-request when its request closes incomplete.
  const timedOut = new WeakSet<Socket>();
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (error.code !== 'ERR_HTTP_REQUEST_TIMEOUT') return;
    timedOut.add(socket);
    options.log.info('request timed out before it was complete; connection closed', { remote: socket.remoteAddress, requestTimeoutMs: requestTimeout, headersTimeoutMs: headersTimeout });
    // Whatever answer was written, the connection ends here: close it once the answer is flushed.
    if (socket.writableFinished || !socket.writable) socket.destroy();
    else socket.once('finish', () => socket.destroy()).end();
  });
  server.on('request', (request) => {
    // A request without a body (most GETs) is complete with its headers: nothing to watch.
    if (request.headers['content-length'] === undefined && request.headers['transfer-encoding'] === undefined) return;
    request.once('close', () => {
      if (request.complete || timedOut.has(request.socket)) return;
      options.log.info('client closed the connection before its request was complete', { method: request.method, path: pathWithoutSecrets(request.url?.split('?')[0] ?? '') });
    });
  });
  const busy = new Map<Socket, number>();
  server.on('connection', (socket) => {
    busy.set(socket, 0);
    socket.on('close', () => busy.delete(socket));
  });
  server.on('request', (request, response) => {
    const socket = request.socket;
    busy.set(socket, (busy.get(socket) ?? 0) + 1);
    response.on('finish', () => {
      const left = (busy.get(socket) ?? 1) - 1;
      busy.set(socket, left);
      if (stopping && left === 0) socket.end();
    });
  });

  let stopping = false;
  let closing: Promise<void> | null = null;
  const shutdown = () => {
    closing ??= (async () => {
      stopping = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      options.onStopping?.();
      for (const [socket, inFlight] of busy) if (inFlight === 0) socket.end();
      const timer = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), options.graceMs).unref());
      if ((await Promise.race([closed, timer])) === 'timeout') {
        options.log.warn('shutdown grace period over; closing remaining connections', { connections: busy.size });
        for (const socket of busy.keys()) socket.destroy();
        await closed;
      }
      await options.onClosed();
    })();
    return closing;
  };

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return { server, port, shutdown };
}

// A TCP proxy in front of the test server whose network can be cut: a browser that opens the board
// through it loses every connection at once (open streams too) and cannot connect again until the
// network comes back, as when a laptop drops off the Wi-Fi, while the server goes on taking writes.
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface CuttableProxy {
  port: number;
  /** Ends every open connection and refuses new ones. */
  cut(): void;
  /** Accepts connections again. */
  restore(): void;
  close(): Promise<void>;
}

export async function cuttableProxy(targetPort: number): Promise<CuttableProxy> {
  const open = new Set<Socket>();
  let online = true;
  const track = (socket: Socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const server: Server = createServer((client) => {
    track(client);
    if (!online) {
      client.destroy();
      return;
    }
    const upstream = connect(targetPort, '127.0.0.1');
    track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the proxy has no port');
  return {
    port: address.port,
    cut() {
      online = false;
      for (const socket of open) socket.destroy();
    },
    restore() {
      online = true;
    },
    close() {
      for (const socket of open) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

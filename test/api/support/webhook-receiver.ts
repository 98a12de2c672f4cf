// A webhook receiver for tests: an HTTP server on loopback recording every POST (headers, exact body)
// and answering what the test says (200 by default; a status, or a hang that never answers).
//
//   const receiver = await startReceiver();
//   ... create a webhook with receiver.url ...
//   const [first] = await receiver.until(1);
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  json: any;
  path: string;
}

/** What the receiver answers a delivery: a status, `hang` (never answer), a redirect, or a status after a delay. */
export type Answer = number | 'hang' | { redirect: string } | { status: number; afterMs: number };

export interface Receiver {
  url: string;
  received: Received[];
  /** How the next deliveries are answered (each call replaces the rule). */
  answer(rule: (delivery: Received, index: number) => Answer): void;
  /** Resolves with the deliveries once there are at least `count`. */
  until(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(path = '/hooks/storyline'): Promise<Receiver> {
  const received: Received[] = [];
  let rule: (delivery: Received, index: number) => Answer = () => 200;
  const waiters: Array<() => void> = [];
  const hung: ServerResponse[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      const delivery: Received = { headers: req.headers, body, json, path: req.url ?? '' };
      received.push(delivery);
      for (const wake of waiters.splice(0)) wake();
      const answer = rule(delivery, received.length - 1);
      if (answer === 'hang') {
        hung.push(res);
        return;
      }
      if (typeof answer === 'object' && 'redirect' in answer) {
        res.writeHead(302, { Location: answer.redirect });
        res.end();
        return;
      }
      if (typeof answer === 'object') {
        setTimeout(() => {
          res.writeHead(answer.status, { 'Content-Type': 'text/plain' });
          res.end('ok');
        }, answer.afterMs);
        return;
      }
      res.writeHead(answer, { 'Content-Type': 'text/plain' });
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    received,
    answer(next) {
      rule = next;
    },
    async until(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`the receiver got ${received.length} deliveries, not ${count}, within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return received.slice(0, count);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hung) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

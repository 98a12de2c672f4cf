// A baseline server for the HTTP benchmark, run in a child process: answers fixed responses (status,
// headers and body bytes captured from Storyline) for their exact request paths, either as a bare
// express 5 app or as a plain node:http server. Nothing else: no auth, no routing beyond the path.
//
//   node dist/bench/http-bench-baseline.js <express|http> <responses.json>   (PORT from the environment)
// Prints `listening <port>` once ready.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';

export interface CapturedResponse {
  /** Path with query, as requested. */
  url: string;
  status: number;
  headers: Record<string, string>;
  bodyBase64: string;
}

const [mode, file] = process.argv.slice(2);
const captured = JSON.parse(readFileSync(file!, 'utf8')) as CapturedResponse[];
const byUrl = new Map(captured.map((response) => [response.url, { ...response, body: Buffer.from(response.bodyBase64, 'base64') }]));

function answer(req: IncomingMessage, res: ServerResponse): void {
  const response = byUrl.get(req.url ?? '');
  if (!response) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(response.status, response.headers);
  res.end(response.body);
}

const port = Number(process.env['PORT'] ?? 0);
let server;
if (mode === 'express') {
  const app = express();
  for (const response of byUrl.values()) {
    const pathname = response.url.split('?')[0]!;
    app.get(pathname, (req, res) => answer(req, res));
  }
  server = createServer(app);
} else {
  server = createServer(answer);
}
server.keepAliveTimeout = 5_000;
// Exit normally on SIGTERM, so that a `--cpu-prof` run writes its profile.
process.once('SIGTERM', () => process.exit(0));
server.listen(port, '127.0.0.1', () => {
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
});

// A small HTTP client for API tests: starts an app on an ephemeral port and sends requests exactly as
// given (paths are not normalized, so double slashes and odd percent-encodings reach the server).
//
//   const server = await startServer(createApp(deps));
//   const res = await server.request('GET', '/services/v5/projects/1', { headers: { 'X-TrackerToken': t } });
//   expect(res.status).to.equal(200); expect(res.json).to.deep.include({ id: 1 });
//   await server.close();

import { request as httpRequest, createServer, type IncomingHttpHeaders, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerClientErrorsWithJson } from '../../../src/api/app.js';

export interface RequestOptions {
  headers?: Record<string, string>;
  /** Serialized as JSON (with `Content-Type: application/json` unless a content type is given). */
  body?: unknown;
  /** Sent as they are, with no content type added. */
  rawBody?: string | Buffer;
  /** Appended to the path (after any query already in it). */
  query?: Record<string, string | number | boolean>;
  /** The client's address (any of 127.0.0.0/8 reaches the server on Linux); 127.0.0.1 by default. */
  localAddress?: string;
}

export interface TestResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The parsed body, or undefined when it is empty or not JSON. */
  json: any;
}

export interface TestServer {
  port: number;
  request(method: string, path: string, options?: RequestOptions): Promise<TestResponse>;
  close(): Promise<void>;
}

export async function startServer(app: RequestListener): Promise<TestServer> {
  const server: Server = createServer(app);
  answerClientErrorsWithJson(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    request: (method, path, options = {}) => send(port, method, path, options),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

function send(port: number, method: string, path: string, options: RequestOptions): Promise<TestResponse> {
  const headers: Record<string, string> = { ...options.headers };
  let payload: Buffer | undefined;
  if (options.rawBody !== undefined) {
    payload = Buffer.from(options.rawBody);
  } else if (options.body !== undefined) {
    payload = Buffer.from(JSON.stringify(options.body));
    if (!Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) headers['Content-Type'] = 'application/json';
  }
  if (payload) headers['Content-Length'] = String(payload.length);
  const fullPath = options.query ? withQuery(path, options.query) : path;
  return new Promise((resolve, reject) => {
    const from = options.localAddress ? { localAddress: options.localAddress } : {};
    const req = httpRequest({ host: '127.0.0.1', port, method, path: fullPath, headers, agent: false, ...from }, (res) => {
      // An event stream never ends by itself: its headers are the answer (read its events with event-stream-client.ts).
      if (String(res.headers['content-type']).startsWith('text/event-stream')) {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: '', json: undefined });
        req.destroy();
        return;
      }
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: parseJson(text) });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

function withQuery(path: string, query: Record<string, string | number | boolean>): string {
  const search = new URLSearchParams(Object.entries(query).map(([name, value]): [string, string] => [name, String(value)])).toString();
  return `${path}${path.includes('?') ? '&' : '?'}${search}`;
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

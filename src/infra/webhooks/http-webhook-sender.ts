// Sends one webhook delivery: a POST of the body to the webhook's URL, connected to the address the
// address policy checked for this very delivery (webhook-addresses.ts; the Host header and TLS server
// name keep the URL's host), over kept-alive connections. Redirects are not followed (a 3xx is a failed
// delivery like any other non-2xx), the whole exchange must end within `timeoutMs`, and an answer's
// body is read and dropped (at most 64 KiB of it). Credentials in the URL (`https://user:pass@host/`)
// are sent as HTTP Basic.
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { WebhookAnswer, WebhookRequest, WebhookSender } from '../../ports/webhook-deliveries.js';
import type { WebhookAddresses } from './webhook-addresses.js';

/** Bytes of an answer read before the connection is let go. */
const MAX_ANSWER_BYTES = 64 * 1024;
/** Parsed webhook URLs kept (all are forgotten at once past it). */
const MAX_PARSED_URLS = 10_000;

export class HttpWebhookSender implements WebhookSender {
  private readonly http: HttpAgent;
  private readonly https: HttpsAgent;
  private readonly parsed = new Map<string, URL | null>();

  /** `socketsPerHost`: connections kept open per receiving host, as many as deliveries may run at once there. */
  constructor(
    private readonly addresses: WebhookAddresses,
    private readonly timeoutMs: number,
    socketsPerHost: number,
  ) {
    this.http = new HttpAgent({ keepAlive: true, scheduling: 'lifo', maxFreeSockets: socketsPerHost });
    this.https = new HttpsAgent({ keepAlive: true, scheduling: 'lifo', maxFreeSockets: socketsPerHost });
  }

  async post(delivery: WebhookRequest): Promise<WebhookAnswer> {
    const url = this.parse(delivery.url);
    if (url === null) return { status: null, error: 'the webhook URL is not a URL' };
    const secure = url.protocol === 'https:';
    if (!secure && url.protocol !== 'http:') return { status: null, error: 'the webhook URL is not http or https' };
    const checked = await this.addresses.resolve(url.hostname);
    if (!checked.ok) return { status: null, error: checked.problem };
    // Written as a string: the request's head and body then go out in one write, not two gathered.
    const body = delivery.body;
    const headers: Record<string, string> = { ...delivery.headers, Host: url.host, 'Content-Length': String(Buffer.byteLength(body)) };
    if (url.username !== '' || url.password !== '') {
      headers['Authorization'] = `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`;
    }
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const options = {
      host: checked.address.address,
      family: checked.address.family,
      port: Number(url.port || (secure ? 443 : 80)),
      method: 'POST',
      path: `${url.pathname}${url.search}`,
      headers,
      agent: secure ? this.https : this.http,
      ...(secure && isIP(host) === 0 ? { servername: host } : {}),
    };
    return new Promise<WebhookAnswer>((resolve) => {
      let settled = false;
      const settle = (answer: WebhookAnswer) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(answer);
      };
      const req: ClientRequest = (secure ? httpsRequest : httpRequest)(options, (res: IncomingMessage) => {
        const status = res.statusCode ?? 0;
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) res.destroy();
        });
        const answered = () => settle({ status, error: status >= 200 && status < 300 ? null : statusProblem(status) });
        res.on('end', answered);
        res.on('close', answered);
        res.on('error', answered);
      });
      const timer = setTimeout(() => {
        req.destroy();
        settle({ status: null, error: `no answer within ${Math.round(this.timeoutMs / 1000)} s` });
      }, this.timeoutMs);
      req.on('error', (error: NodeJS.ErrnoException) => settle({ status: null, error: connectionProblem(error) }));
      req.end(body, 'utf8');
    });
  }

  /** The URL parsed (null: not a URL), kept for the next deliveries to it: each webhook has one URL. */
  private parse(text: string): URL | null {
    if (this.parsed.has(text)) return this.parsed.get(text)!;
    let url: URL | null;
    try {
      url = new URL(text);
    } catch {
      url = null;
    }
    if (this.parsed.size >= MAX_PARSED_URLS) this.parsed.clear();
    this.parsed.set(text, url);
    return url;
  }

  close(): void {
    this.http.destroy();
    this.https.destroy();
  }
}

function statusProblem(status: number): string {
  if (status >= 300 && status < 400) return `the receiver answered ${status} (redirects are not followed)`;
  return `the receiver answered ${status}`;
}

function connectionProblem(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
      return 'connection reset by the receiver';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'the receiver is unreachable';
    default:
      return error.code ? `${error.code}: ${error.message}` : error.message;
  }
}

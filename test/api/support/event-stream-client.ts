// A Server-Sent Events client for tests: opens a stream on a port and hands its events (and comment
// lines) over one at a time, as they arrive. An answer that is not a stream (an error hash) is read
// whole into `json`.
//
//   const stream = await openEventStream(port, '/services/v5/projects/1/activity/stream', { 'X-TrackerToken': t });
//   const event = await stream.next();            // { id: '7', event: 'activity', data: '{...}' }
//   stream.close();
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';

export interface StreamEvent {
  id?: string;
  event?: string;
  data: string;
  retry?: string;
}

export interface OpenedStream {
  status: number;
  headers: IncomingHttpHeaders;
  /** The parsed body of an answer that is not an event stream (an error hash). */
  json: any;
  /** The next event (comments skipped); rejects after `timeoutMs` or when the stream ends first. */
  next(timeoutMs?: number): Promise<StreamEvent>;
  /** Events received and not yet taken by next(). */
  readonly pending: readonly StreamEvent[];
  /** Comment lines received so far (keep-alives). */
  readonly comments: readonly string[];
  /** Resolves when the server ends the stream: 'end' when it ended it cleanly, 'aborted' when the connection broke. */
  readonly ended: Promise<'end' | 'aborted'>;
  /** Waits for a comment line (a keep-alive). */
  nextComment(timeoutMs?: number): Promise<string>;
  close(): void;
}

export function openEventStream(port: number, path: string, headers: Record<string, string> = {}): Promise<OpenedStream> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method: 'GET', path, headers, agent: false }, (res) => {
      if (!String(res.headers['content-type']).startsWith('text/event-stream')) {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve(notAStream(res, text));
        });
        return;
      }
      resolve(streamOf(res, () => req.destroy()));
    });
    req.on('error', reject);
    req.end();
  });
}

function notAStream(res: IncomingMessage, text: string): OpenedStream {
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  const none = () => Promise.reject(new Error(`not an event stream: ${res.statusCode} ${text.slice(0, 200)}`));
  return { status: res.statusCode ?? 0, headers: res.headers, json, next: none, nextComment: none, pending: [], comments: [], ended: Promise.resolve('end'), close() {} };
}

function streamOf(res: IncomingMessage, destroy: () => void): OpenedStream {
  const events: StreamEvent[] = [];
  const comments: string[] = [];
  let waiting: (() => void) | null = null;
  let finished: 'end' | 'aborted' | null = null;
  let buffer = '';
  const wake = () => {
    const resolve = waiting;
    waiting = null;
    resolve?.();
  };
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => {
    buffer += chunk;
    let boundary: number;
    while ((boundary = buffer.indexOf('\n\n')) !== -1) {
      const block = buffer.slice(0, boundary);
      buffer = buffer.slice(boundary + 2);
      const event: StreamEvent = { data: '' };
      let hasField = false;
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) {
          comments.push(line.slice(1).trim());
          continue;
        }
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'data') event.data = event.data === '' ? value : `${event.data}\n${value}`;
        else if (field === 'id' || field === 'event' || field === 'retry') event[field] = value;
        hasField = true;
      }
      if (hasField && event.retry === undefined) events.push(event);
    }
    wake();
  });
  const ended = new Promise<'end' | 'aborted'>((resolve) => {
    res.on('end', () => {
      finished ??= 'end';
      resolve(finished);
      wake();
    });
    res.on('aborted', () => {
      finished = 'aborted';
    });
    res.on('close', () => {
      finished ??= 'aborted';
      resolve(finished);
      wake();
    });
  });
  async function until<T>(take: () => T | undefined, what: string, timeoutMs: number): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const taken = take();
      if (taken !== undefined) return taken;
      if (finished) throw new Error(`the stream ended (${finished}) before ${what}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no ${what} within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        waiting = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }
  let commentsTaken = 0;
  return {
    status: res.statusCode ?? 0,
    headers: res.headers,
    json: undefined,
    pending: events,
    comments,
    ended,
    next: (timeoutMs = 5000) => until(() => events.shift(), 'event', timeoutMs),
    nextComment: (timeoutMs = 5000) => until(() => (comments.length > commentsTaken ? comments[commentsTaken++] : undefined), 'comment', timeoutMs),
    close: destroy,
  };
}

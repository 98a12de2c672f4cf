// Follows a project's activity stream (GET /projects/{id}/activity/stream, Server-Sent Events: `id:` is
// the project version, `event: activity`, `data:` the activity item). Read with fetch rather than
// EventSource so the token travels in a header, never in a URL. Each (re)connection names the last
// version seen (`Last-Event-ID`), so a board that was offline resumes without a gap; reconnections back
// off from 1 s to 30 s and stop when the board closes or the server refuses the credentials.
import { API } from './api';
import type { Activity } from './types';

export interface LiveOptions {
  projectId: number;
  token: string;
  /** The version the board's data reflects: the stream resumes after it. */
  since: number;
  onActivity(activity: Activity, version: number): void;
  /** Connected, waiting to reconnect, or refused for good (no stream, or the credentials no longer work). */
  onStatus(status: 'live' | 'reconnecting' | 'unavailable'): void;
}

const MIN_RETRY_MS = 1000;
const MAX_RETRY_MS = 30_000;

export function followProject(options: LiveOptions): () => void {
  let closed = false;
  let controller: AbortController | null = null;
  let lastVersion = options.since;
  let retry = MIN_RETRY_MS;
  let timer: ReturnType<typeof setTimeout> | null = null;

  const connect = async () => {
    if (closed) return;
    controller = new AbortController();
    try {
      const response = await fetch(`${API}/projects/${options.projectId}/activity/stream`, {
        headers: { Accept: 'text/event-stream', 'X-TrackerToken': options.token, 'Last-Event-ID': String(lastVersion) },
        signal: controller.signal,
        cache: 'no-store',
        credentials: 'omit',
      });
      if (response.status === 401 || response.status === 403 || response.status === 404) {
        closed = true;
        options.onStatus('unavailable');
        return;
      }
      if (!response.ok || !response.body) throw new Error(`stream answered ${response.status}`);
      options.onStatus('live');
      retry = MIN_RETRY_MS;
      await readEvents(response.body, (event) => {
        if (event.type !== 'activity' || event.id === null) return;
        const version = Number(event.id);
        if (!Number.isFinite(version) || version <= lastVersion) return;
        lastVersion = version;
        options.onActivity(JSON.parse(event.data) as Activity, version);
      });
    } catch {
      // a dropped or refused connection: reconnect below
    }
    if (closed) return;
    options.onStatus('reconnecting');
    timer = setTimeout(connect, retry);
    retry = Math.min(retry * 2, MAX_RETRY_MS);
  };
  void connect();

  return () => {
    closed = true;
    if (timer) clearTimeout(timer);
    controller?.abort();
  };
}

export interface StreamEvent {
  id: string | null;
  type: string;
  data: string;
}

/** Parses a text/event-stream body (the WHATWG rules: fields per line, an empty line ends an event). */
export async function readEvents(body: ReadableStream<Uint8Array>, onEvent: (event: StreamEvent) => void): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let id: string | null = null;
  let type = '';
  let data: string[] = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let newline: number;
    while ((newline = buffer.search(/\r\n|\r|\n/)) !== -1) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + (buffer.startsWith('\r\n', newline) ? 2 : 1));
      if (line === '') {
        if (data.length > 0) onEvent({ id, type: type || 'message', data: data.join('\n') });
        type = '';
        data = [];
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const text = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'id') id = text;
      else if (field === 'event') type = text;
      else if (field === 'data') data.push(text);
    }
  }
}

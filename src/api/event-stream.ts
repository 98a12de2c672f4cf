// Server-Sent Events on the wire (WHATWG HTML, "Server-sent events"): the frames Storyline writes and
// the connection a stream writes them to.
//
//   id: <project version>          one event per version that has an activity
//   event: activity
//   data: <the activity item as JSON, on one line>
//
//   : keep-alive                   a comment line, so proxies keep an idle connection open
//
// JSON.stringify writes no raw line breaks (they are escaped inside strings), so `data` is one line.
import type { ServerResponse } from 'node:http';

/** Where a stream's frames go: the HTTP response, as the live activity hub sees it. */
export interface EventStreamSink {
  /** Queues text (or its bytes); false once the socket's buffer is past its mark (then wait for drain). */
  write(text: string | Buffer): boolean;
  /** Bytes written but not yet taken by the socket. */
  buffered(): number;
  /** Calls `listener` once when the buffer has drained (or the connection closed). */
  onceDrained(listener: () => void): void;
  /** Calls `listener` once when the connection is gone (ended by either side, or broken). */
  onClose(listener: () => void): void;
  /** Ends the response cleanly (the client sees the end of the stream and may reconnect). */
  end(): void;
  /** Drops the connection at once (a consumer too slow to keep: it reconnects with Last-Event-ID). */
  destroy(): void;
}

/** Tells a client how long to wait before reconnecting after the stream ends. */
export function retryFrame(ms: number): string {
  return `retry: ${ms}\n\n`;
}

export function activityFrame(version: number, json: string): string {
  return `id: ${version}\nevent: activity\ndata: ${json}\n\n`;
}

export const KEEP_ALIVE_FRAME = ': keep-alive\n\n';

/** The headers of an event stream: never cached or transformed, and not buffered by proxies (nginx). */
export const EVENT_STREAM_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache, no-transform',
  'X-Accel-Buffering': 'no',
};

/**
 * The sink of a response whose headers are sent and whose body is not chunked (it ends with the
 * connection): frames go straight to the socket, one write each, without the response's own queue.
 */
export function responseSink(res: ServerResponse): EventStreamSink {
  const socket = res.socket!;
  return {
    write: (text) => socket.write(text),
    buffered: () => socket.writableLength,
    onceDrained(listener) {
      const done = () => {
        socket.off('drain', done);
        res.off('close', done);
        listener();
      };
      socket.on('drain', done);
      res.on('close', done);
    },
    onClose: (listener) => void res.once('close', listener),
    end: () => void res.end(),
    destroy: () => void res.destroy(),
  };
}

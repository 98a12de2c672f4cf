// The stream readers of the stream benchmark (stream-bench.ts), in a process of their own so that reading
// a thousand streams never delays the writers whose answers are timed: opens the streams, keeps when each
// version's event arrived (absolute time: performance.timeOrigin + now, comparable across processes), and
// on request compares the arrivals with the writes' answer times.
//
//   fork(stream-readers.js, [port, token, projectId, count]) -> 'open'
//   send({ answers: [[version, answeredAt], ...] }) -> { delays: { p50, p99, max, count }, missing, chunks }
import { connect } from 'node:net';
import { percentile } from './stats.js';

const [port, token, projectId, count] = process.argv.slice(2).map((value, index) => (index === 1 ? value : Number(value))) as [number, string, number, number];
const PREFIX = '/services/v5';
const now = () => performance.timeOrigin + performance.now();
const streams: Array<Map<number, number>> = [];
const sockets: Array<{ destroy(): void }> = [];
const ID = Buffer.from('id: ');
const NEWLINE = 0x0a;

/**
 * Opens one stream on a bare socket: the request written by hand and the answer scanned as bytes for
 * `id: N` lines, so that the readers, which share the machine with the server they measure, cost as
 * little CPU per socket read as they can (an HTTP client decoding every chunk costs several times more).
 */
function open(): Promise<void> {
  return new Promise((resolve, reject) => {
    const arrivals = new Map<number, number>();
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.write(`GET ${PREFIX}/projects/${projectId}/activity/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nX-TrackerToken: ${token}\r\nConnection: keep-alive\r\n\r\n`);
    });
    let answered = false;
    let rest: Buffer | null = null;
    socket.on('data', (chunk: Buffer) => {
      const at = now();
      if (!answered) {
        answered = true;
        if (!chunk.subarray(0, 12).toString('latin1').startsWith('HTTP/1.1 200')) return reject(new Error(`stream answered ${chunk.subarray(0, 12).toString('latin1')}`));
        streams.push(arrivals);
        resolve();
      }
      const bytes = rest === null ? chunk : Buffer.concat([rest, chunk]);
      let from = 0;
      for (let id = bytes.indexOf(ID, from); id !== -1; id = bytes.indexOf(ID, from)) {
        const end = bytes.indexOf(NEWLINE, id);
        if (end === -1) break;
        let version = 0;
        for (let i = id + ID.length; i < end; i++) version = version * 10 + (bytes[i]! - 0x30);
        arrivals.set(version, at);
        from = end;
      }
      // What may be the start of an `id:` line cut by this read, carried into the next.
      const keep = Math.max(from, bytes.length - 32);
      rest = keep < bytes.length ? Buffer.from(bytes.subarray(keep)) : null;
    });
    sockets.push(socket);
    socket.on('error', reject);
  });
}

for (let i = 0; i < count; i += 50) await Promise.all(Array.from({ length: Math.min(50, count - i) }, open));
process.send!('open');

process.on('message', (message: { answers: Array<[number, number]> }) => {
  const delays: number[] = [];
  let missing = 0;
  for (const [version, answeredAt] of message.answers) {
    for (const arrivals of streams) {
      const arrived = arrivals.get(version);
      if (arrived === undefined) missing++;
      else delays.push(Math.max(0, arrived - answeredAt));
    }
  }
  // The socket reads that brought the answered versions: one arrival time per chunk read.
  let chunks = 0;
  for (const arrivals of streams) chunks += new Set(message.answers.map(([version]) => arrivals.get(version)).filter((at) => at !== undefined)).size;
  delays.sort((a, b) => a - b);
  process.send!({ delays: { p50: percentile(delays, 50), p99: percentile(delays, 99), max: delays.at(-1) ?? Number.NaN, count: delays.length }, missing, chunks });
  for (const socket of sockets) socket.destroy();
  process.disconnect();
});

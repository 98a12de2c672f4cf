// The stream readers of the stream benchmark (stream-bench.ts), in a process of their own so that reading
// a thousand streams never delays the writers whose answers are timed: opens the streams, keeps when each
// version's event arrived (absolute time: performance.timeOrigin + now, comparable across processes), and
// on request compares the arrivals with the writes' answer times.
//
//   fork(stream-readers.js, [port, token, projectId, count]) -> 'open'
//   send({ answers: [[version, answeredAt], ...] }) -> { delays: { p50, p99, max, count }, missing }
import { Agent, request as httpRequest } from 'node:http';
import { percentile } from './stats.js';

const [port, token, projectId, count] = process.argv.slice(2).map((value, index) => (index === 1 ? value : Number(value))) as [number, string, number, number];
const PREFIX = '/services/v5';
const now = () => performance.timeOrigin + performance.now();
const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
const streams: Array<Map<number, number>> = [];
const requests: Array<{ destroy(): void }> = [];

function open(): Promise<void> {
  return new Promise((resolve, reject) => {
    const arrivals = new Map<number, number>();
    const req = httpRequest({ host: '127.0.0.1', port, path: `${PREFIX}/projects/${projectId}/activity/stream`, agent, headers: { 'X-TrackerToken': token } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`stream answered ${res.statusCode}`));
      res.setEncoding('utf8');
      let rest = '';
      res.on('data', (chunk: string) => {
        const at = now();
        const text = rest + chunk;
        let from = 0;
        for (let id = text.indexOf('id: ', from); id !== -1; id = text.indexOf('id: ', from)) {
          const end = text.indexOf('\n', id);
          if (end === -1) break;
          arrivals.set(Number(text.slice(id + 4, end)), at);
          from = end;
        }
        rest = text.slice(Math.max(from, text.length - 64));
      });
      streams.push(arrivals);
      resolve();
    });
    requests.push(req);
    req.on('error', reject);
    req.end();
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
  delays.sort((a, b) => a - b);
  process.send!({ delays: { p50: percentile(delays, 50), p99: percentile(delays, 99), max: delays.at(-1) ?? Number.NaN, count: delays.length }, missing });
  for (const req of requests) req.destroy();
  process.disconnect();
});

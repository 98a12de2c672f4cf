// The live activity stream under load (`npm run bench -- streams`): `storyline serve` in a child process
// (SQLite log and read models on disk), the writers and the stream readers in this process.
//
// 1. Durable writes without streams: WRITERS connections POST stories to one project for DURATION_S
//    seconds (after a warm-up); each 200 is an append acknowledged after the read models applied it.
// 2. The same with STREAMS open on that project (`GET .../activity/stream`, one token; the operator's
//    per-person limit raised for it), read by another process (stream-readers.ts) so that reading them
//    never delays the writers. For every write the time its answer came back is kept, and for every
//    stream the time each `id:` arrived: the delay of a (write, stream) pair is arrival - answer (an
//    event may arrive before its write's answer: 0).
// 3. Without streams again (the machine is shared: the first and third runs bracket the second).
// Targets (issue 32): p99 of the delays <= 200 ms; the write rate with streams >= 80% of the rate
// without, in the same run. Each phase also reports the server's CPU per write (from /proc), which a
// machine busy with other work distorts less than the rates.
//
// `STREAM_BENCH_STREAMS`, `STREAM_BENCH_WRITERS`, `STREAM_BENCH_SECONDS` change the sizes.
import { fork } from 'node:child_process';
import { Agent, request as httpRequest } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configFromEnv } from '../src/infra/config.js';
import { withBenchOwner } from './bench-owner.js';
import { cpuMs, freePort, machine, startChild, stopChild, waitUntilServing } from './http-bench.js';

const STREAMS = Number(process.env['STREAM_BENCH_STREAMS'] ?? 1000);
const WRITERS = Number(process.env['STREAM_BENCH_WRITERS'] ?? 8);
const DURATION_S = Number(process.env['STREAM_BENCH_SECONDS'] ?? 10);
const WARM_UP_S = 3;
const PREFIX = '/services/v5';

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'storyline-stream-bench-'));
  let child: ReturnType<typeof startChild> | null = null;
  try {
    const { token, projectId } = await withBenchOwner(configFromEnv({ STORYLINE_DATA: dir }), async (owner) => {
      const project = await owner.post('/projects', { name: 'Streamed', new_account_name: 'Stream Bench' });
      return { token: owner.person.api_token, projectId: Number(project['id']) };
    });
    const port = await freePort();
    child = startChild(fileURLToPath(new URL('../src/infra/cli/main.js', import.meta.url)), ['serve'], {
      STORYLINE_DATA: dir,
      PORT: String(port),
      HOST: '127.0.0.1',
      STORYLINE_LOG_LEVEL: 'error',
      STORYLINE_STREAMS_PER_PERSON: String(STREAMS + 10),
      STORYLINE_STREAMS_MAX: String(STREAMS + 10),
    });
    await waitUntilServing(port, `${PREFIX}/projects/${projectId}`, { 'X-TrackerToken': token });
    const writer = new Writers(port, token, projectId);

    const measured = async () => {
      const cpuBefore = cpuMs(child!);
      const load = await writer.load(DURATION_S);
      const cpuAfter = cpuMs(child!);
      const cpuPerWrite = cpuBefore !== null && cpuAfter !== null && load.answers.size > 0 ? (cpuAfter - cpuBefore) / load.answers.size : null;
      return { ...load, cpuPerWrite };
    };

    process.stdout.write(`machine: ${machine()}\n`);
    await writer.load(WARM_UP_S);
    const before = await measured();
    report('without streams', before);

    const readers = fork(fileURLToPath(new URL('./stream-readers.js', import.meta.url)), [String(port), token, String(projectId), String(STREAMS)]);
    await new Promise<void>((resolve, reject) => {
      readers.once('message', () => resolve());
      readers.once('exit', (code) => reject(new Error(`the stream readers exited with ${code}`)));
    });
    process.stdout.write(`${STREAMS} streams open (read by another process); server RSS ${rssMb(child.pid!)} MB\n`);
    await writer.load(WARM_UP_S);
    const during = await measured();
    await new Promise((resolve) => setTimeout(resolve, 2000)); // the last events reach every stream
    readers.send({ answers: [...during.answers] });
    const { delays, missing } = await new Promise<{ delays: { p50: number; p99: number; max: number; count: number }; missing: number }>((resolve) =>
      readers.once('message', (message) => resolve(message as never)),
    );
    report(`with ${STREAMS} streams`, during);
    process.stdout.write(
      `  event after its write's answer, over ${delays.count} (write, stream) pairs: p50 ${delays.p50.toFixed(1)} ms, ` +
        `p99 ${delays.p99.toFixed(1)} ms, max ${delays.max.toFixed(1)} ms; not arrived: ${missing}; server RSS ${rssMb(child.pid!)} MB\n`,
    );

    await writer.load(WARM_UP_S);
    const after = await measured();
    report('without streams, again', after);
    const baseline = (before.rate + after.rate) / 2;
    const cpuBaseline = before.cpuPerWrite !== null && after.cpuPerWrite !== null ? (before.cpuPerWrite + after.cpuPerWrite) / 2 : null;
    process.stdout.write(
      `  write rate with streams / without (mean of the runs around it): ${(during.rate / baseline).toFixed(2)} (target >= 0.80); ` +
        `p99 delay ${delays.p99.toFixed(1)} ms (target <= 200)` +
        (cpuBaseline !== null && during.cpuPerWrite !== null ? `; server CPU per write without / with streams ${(cpuBaseline / during.cpuPerWrite).toFixed(2)}` : '') +
        '\n',
    );
    writer.close();
  } finally {
    if (child) await stopChild(child);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A phase's write rate and what a write cost the server's CPU (the fan-out included; less distorted by a busy machine). */
function report(what: string, load: { rate: number; cpuPerWrite: number | null }): void {
  const cpu = load.cpuPerWrite === null ? '' : `, server CPU ${load.cpuPerWrite.toFixed(2)} ms per write`;
  process.stdout.write(`durable writes ${what}: ${load.rate.toFixed(0)} /s (${WRITERS} connections, ${DURATION_S} s)${cpu}; ${machine()}\n`);
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

/** WRITERS loops of POST story, each waiting for its answer; keeps when each version's answer came. */
class Writers {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: WRITERS });
  private written = 0;

  constructor(
    private readonly port: number,
    private readonly token: string,
    private readonly projectId: number,
  ) {}

  async load(seconds: number): Promise<{ rate: number; answers: Map<number, number> }> {
    const answers = new Map<number, number>();
    const until = performance.now() + seconds * 1000;
    let count = 0;
    const loop = async () => {
      while (performance.now() < until) {
        const version = await this.post();
        answers.set(version, performance.timeOrigin + performance.now());
        count++;
      }
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: WRITERS }, loop));
    return { rate: (count * 1000) / (performance.now() - started), answers };
  }

  close(): void {
    this.agent.destroy();
  }

  private post(): Promise<number> {
    const body = JSON.stringify({ name: `streamed story ${++this.written}` });
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port: this.port,
          method: 'POST',
          path: `${PREFIX}/projects/${this.projectId}/stories`,
          agent: this.agent,
          headers: { 'X-TrackerToken': this.token, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            if (res.statusCode !== 200) reject(new Error(`POST answered ${res.statusCode}`));
            else resolve(Number(res.headers['x-tracker-project-version']));
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }
}

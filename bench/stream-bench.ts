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
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { Agent, request as httpRequest } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configFromEnv } from '../src/infra/config.js';
import { withBenchOwner } from './bench-owner.js';
import { CLOCK_TICKS_PER_SECOND, cpuMs, freePort, machine, startChild, stopChild, waitUntilServing } from './http-bench.js';

const STREAMS = Number(process.env['STREAM_BENCH_STREAMS'] ?? 1000);
const WRITERS = Number(process.env['STREAM_BENCH_WRITERS'] ?? 8);
const DURATION_S = Number(process.env['STREAM_BENCH_SECONDS'] ?? 10);
const WARM_UP_S = 3;
/**
 * `STREAM_BENCH_PIN=1`: the server on one core and every client (writers, readers) on the other, as
 * if the clients ran on other machines; the ratios compare the same pinned server with and without streams.
 */
const PINNED = process.env['STREAM_BENCH_PIN'] === '1';
const SERVER_CPU = 0;
const CLIENTS_CPU = 1;
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
    if (PINNED) {
      pin(child.pid!, SERVER_CPU);
      pin(process.pid, CLIENTS_CPU);
    }

    let readers: ChildProcess | null = null;
    const measured = async () => {
      const cpuBefore = cpuMs(child!);
      const spent = cpuAccount(child!, readers);
      const load = await writer.load(DURATION_S);
      const cpuAfter = cpuMs(child!);
      const cpuPerWrite = cpuBefore !== null && cpuAfter !== null && load.answers.size > 0 ? (cpuAfter - cpuBefore) / load.answers.size : null;
      return { ...load, cpuPerWrite, cpu: spent() };
    };

    process.stdout.write(`machine: ${machine()}\n`);
    await writer.load(WARM_UP_S);
    const before = await measured();
    report('without streams', before);

    readers = fork(fileURLToPath(new URL('./stream-readers.js', import.meta.url)), [String(port), token, String(projectId), String(STREAMS)]);
    const opened = readers;
    if (PINNED) pin(opened.pid!, CLIENTS_CPU);
    await new Promise<void>((resolve, reject) => {
      opened.once('message', () => resolve());
      opened.once('exit', (code) => reject(new Error(`the stream readers exited with ${code}`)));
    });
    process.stdout.write(`${STREAMS} streams open (read by another process); server RSS ${rssMb(child.pid!)} MB\n`);
    await writer.load(WARM_UP_S);
    const during = await measured();
    await new Promise((resolve) => setTimeout(resolve, 2000)); // the last events reach every stream
    opened.send({ answers: [...during.answers] });
    const { delays, missing, chunks } = await new Promise<{ delays: { p50: number; p99: number; max: number; count: number }; missing: number; chunks: number }>((resolve) =>
      opened.once('message', (message) => resolve(message as never)),
    );
    readers = null;
    report(`with ${STREAMS} streams`, during);
    process.stdout.write(
      `  event after its write's answer, over ${delays.count} (write, stream) pairs: p50 ${delays.p50.toFixed(1)} ms, ` +
        `p99 ${delays.p99.toFixed(1)} ms, max ${delays.max.toFixed(1)} ms; not arrived: ${missing}; server RSS ${rssMb(child.pid!)} MB\n`,
    );

    await writer.load(WARM_UP_S);
    const after = await measured();
    report('without streams, again', after);
    const baseline = (before.rate + after.rate) / 2;
    reportFloor(before, during, after, chunks);
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

/** Binds every thread of `pid` to one CPU (Linux `taskset`). */
function pin(pid: number, cpu: number): void {
  execFileSync('taskset', ['-a', '-p', '-c', String(cpu), String(pid)], { stdio: 'ignore' });
}

/** CPU spent during a phase, in ms per second of wall time: the server, the stream readers, this process (the writers), the whole machine. */
interface CpuSpent {
  server: number;
  readers: number;
  writers: number;
  machine: number;
}

/** Starts counting the CPU of a phase; the returned function ends it. */
function cpuAccount(server: ChildProcess, readers: ChildProcess | null): () => CpuSpent {
  const started = { at: performance.now(), server: cpuMs(server) ?? 0, readers: readers ? (cpuMs(readers) ?? 0) : 0, writers: process.cpuUsage(), machine: machineBusyMs() };
  return () => {
    const seconds = (performance.now() - started.at) / 1000;
    const writers = process.cpuUsage(started.writers);
    return {
      server: ((cpuMs(server) ?? 0) - started.server) / seconds,
      readers: readers ? ((cpuMs(readers) ?? 0) - started.readers) / seconds : 0,
      writers: (writers.user + writers.system) / 1000 / seconds,
      machine: (machineBusyMs() - started.machine) / seconds,
    };
  };
}

/** Busy CPU time of the whole machine in ms (all cores; /proc/stat's first line less idle and iowait). */
function machineBusyMs(): number {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const busy = fields.reduce((sum, value) => sum + value, 0) - fields[3]! - fields[4]!;
  return (busy * 1000) / CLOCK_TICKS_PER_SECOND;
}

/** A phase's write rate and what a write cost the server's CPU (the fan-out included; less distorted by a busy machine). */
function report(what: string, load: { rate: number; cpuPerWrite: number | null; cpu: CpuSpent }): void {
  const cpu = load.cpuPerWrite === null ? '' : `, server CPU ${load.cpuPerWrite.toFixed(2)} ms per write`;
  const { server, readers, writers, machine: busy } = load.cpu;
  process.stdout.write(
    `durable writes ${what}: ${load.rate.toFixed(0)} /s (${WRITERS} connections, ${DURATION_S} s)${cpu}; ${machine()}\n` +
      `  CPU ms per second: server ${server.toFixed(0)}, stream readers ${readers.toFixed(0)}, writers ${writers.toFixed(0)}, whole machine ${busy.toFixed(0)} of ${cpus().length * 1000}\n`,
  );
}

/**
 * What the fan-out costs where, from the same run: the server's CPU beyond the writes' own (its CPU per
 * write without streams times the rate with them), and the readers' CPU, per socket read (chunk) the
 * readers received; the streams share the machine's cores with the server, as a real server's clients would not.
 */
function reportFloor(before: { cpuPerWrite: number | null; cpu: CpuSpent }, during: { rate: number; cpu: CpuSpent }, after: { cpuPerWrite: number | null; cpu: CpuSpent }, chunks: number): void {
  if (before.cpuPerWrite === null || after.cpuPerWrite === null || chunks === 0) return;
  const writesOwn = ((before.cpuPerWrite + after.cpuPerWrite) / 2) * during.rate;
  const perSecond = chunks / DURATION_S;
  process.stdout.write(
    `  fan-out: ${(perSecond / STREAMS).toFixed(1)} socket writes per stream per second; server ${(((during.cpu.server - writesOwn) / perSecond) * 1000).toFixed(1)} us and readers ` +
      `${((during.cpu.readers / perSecond) * 1000).toFixed(1)} us of CPU per socket write\n`,
  );
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

// Activity webhooks under load (`npm run bench -- webhooks`): `storyline serve` in a child process
// (SQLite log and read models on disk, STORYLINE_WEBHOOK_ALLOW_PRIVATE=1) delivering to one receiver in
// this process (node:http on loopback), which also runs the writers.
//
// 1. WEBHOOKS webhooks on one project; writes paced at RATE per second for DURATION_S seconds. For each
//    (webhook, version) the delay from the write's answer to the delivery's arrival; target (issue 32):
//    p99 <= 1 s.
// 2. The receiver stops answering (it holds every request open) for SILENT_S seconds while writes go on
//    at SILENT_RATE per second; the server's resident memory is sampled throughout. Then it answers
//    again: every webhook's backlog must drain completely and in version order (first arrivals of each
//    X-Storyline-Delivery ascending). Target: memory bounded whatever the silence's length.
//
// `WEBHOOK_BENCH_WEBHOOKS`, `WEBHOOK_BENCH_RATE`, `WEBHOOK_BENCH_SECONDS`, `WEBHOOK_BENCH_SILENT_S` (the
// issue's 300), `WEBHOOK_BENCH_SILENT_RATE` change the sizes; STORYLINE_WEBHOOK_* settings pass through
// to the server (STORYLINE_WEBHOOK_HOST_CONCURRENCY: deliveries in flight to the one receiver).
import { Agent, createServer, request as httpRequest, type ServerResponse } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configFromEnv } from '../src/infra/config.js';
import { withBenchOwner } from './bench-owner.js';
import { cpuMs, freePort, machine, startChild, stopChild, waitUntilServing } from './http-bench.js';
import { percentile } from './stats.js';

const WEBHOOKS = Number(process.env['WEBHOOK_BENCH_WEBHOOKS'] ?? 100);
const RATE = Number(process.env['WEBHOOK_BENCH_RATE'] ?? 200);
const DURATION_S = Number(process.env['WEBHOOK_BENCH_SECONDS'] ?? 10);
const SILENT_S = Number(process.env['WEBHOOK_BENCH_SILENT_S'] ?? 300);
const SILENT_RATE = Number(process.env['WEBHOOK_BENCH_SILENT_RATE'] ?? 5);
const PREFIX = '/services/v5';
/** How long after the paced writes their deliveries may take to arrive. */
const DELIVERY_WAIT_MS = 120_000;

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'storyline-webhook-bench-'));
  const receiver = await startReceiver();
  let child: ReturnType<typeof startChild> | null = null;
  try {
    const { token, projectId } = await withBenchOwner(configFromEnv({ STORYLINE_DATA: dir }), async (owner) => {
      const project = await owner.post('/projects', { name: 'Hooked', new_account_name: 'Webhook Bench' });
      return { token: owner.person.api_token, projectId: Number(project['id']) };
    });
    const port = await freePort();
    const passed = Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('STORYLINE_WEBHOOK_'))) as Record<string, string>;
    child = startChild(fileURLToPath(new URL('../src/infra/cli/main.js', import.meta.url)), ['serve'], {
      STORYLINE_DATA: dir,
      PORT: String(port),
      HOST: '127.0.0.1',
      STORYLINE_LOG_LEVEL: 'error',
      ...passed,
      STORYLINE_WEBHOOK_ALLOW_PRIVATE: '1',
    });
    await waitUntilServing(port, `${PREFIX}/projects/${projectId}`, { 'X-TrackerToken': token });
    const api = new Api(port, token, projectId);
    for (let i = 0; i < WEBHOOKS; i++) await api.post(`/projects/${projectId}/webhooks`, { webhook_url: `${receiver.url}/hook/${i}` });
    process.stdout.write(`${WEBHOOKS} webhooks to one receiver on loopback; server RSS ${rssMb(child.pid!)} MB; machine: ${machine()}\n`);

    // 1. Delivery delay at RATE writes/s (the webhooks' own creations, delivered to the earlier ones, not
    //    counted: they are delivered before the paced writes start, so no backlog of them delays those).
    const creations = (WEBHOOKS * (WEBHOOKS - 1)) / 2;
    if (!(await receiver.until(() => receiver.firstArrivals.size >= creations, DELIVERY_WAIT_MS))) throw new Error('the webhooks\' creations were not delivered');
    receiver.countFrom = Number((await api.get(`/projects/${projectId}`)).version) + 1;
    const cpuBefore = cpuMs(child);
    const answers = await api.paced(RATE, DURATION_S);
    const expected = answers.size * WEBHOOKS;
    // A backlog the receiver cannot take at this rate is reported (what arrived, what had not), not thrown.
    const allArrived = await receiver.until(() => receiver.counted >= expected, DELIVERY_WAIT_MS);
    const late = expected - receiver.counted;
    const cpuAfter = cpuMs(child);
    const cpu = cpuBefore !== null && cpuAfter !== null ? `; server CPU ${((cpuAfter - cpuBefore) / Math.max(1, receiver.counted)).toFixed(2)} ms per delivery (its writes included)` : '';
    const delays: number[] = [];
    for (const [key, arrived] of receiver.firstArrivals) {
      const answeredAt = answers.get(Number(key.slice(key.indexOf('-') + 1)));
      if (answeredAt !== undefined) delays.push(Math.max(0, arrived - answeredAt));
    }
    delays.sort((a, b) => a - b);
    process.stdout.write(
      `paced writes: ${answers.size} in ${DURATION_S} s (${(answers.size / DURATION_S).toFixed(0)} /s asked ${RATE}); ${delays.length} deliveries ` +
        `(${receiver.received} received with retries); delay after the write's answer p50 ${percentile(delays, 50).toFixed(0)} ms, ` +
        `p99 ${percentile(delays, 99).toFixed(0)} ms (target <= 1000), max ${delays.at(-1)?.toFixed(0)} ms` +
        `${allArrived ? '' : `; ${late} not arrived ${DELIVERY_WAIT_MS / 1000} s after the last write (p99 over the arrived only)`}${cpu}; server RSS ${rssMb(child.pid!)} MB; ${machine()}\n`,
    );

    // 2. A silent receiver, then its backlog.
    const pid = child.pid!;
    const rssBefore = rssMb(pid);
    receiver.silent = true;
    const samples: number[] = [];
    const sampler = setInterval(() => samples.push(rssMb(pid)), 2000);
    const silentAnswers = await api.paced(SILENT_RATE, SILENT_S);
    clearInterval(sampler);
    const rssSilent = rssMb(pid);
    const head = Math.max(...silentAnswers.keys());
    receiver.silent = false;
    receiver.release();
    const drainStarted = performance.now();
    const all = (head - receiver.countFrom + 1) * WEBHOOKS;
    if (!(await receiver.until(() => receiver.counted >= all, 900_000))) throw new Error(`the backlog did not drain in 900 s (${receiver.counted} of ${all})`);
    const drainMs = performance.now() - drainStarted;
    const inOrder = receiver.inOrder();
    process.stdout.write(
      `silent receiver for ${SILENT_S} s (${silentAnswers.size} writes at ${SILENT_RATE} /s): server RSS ${rssBefore} MB before, ` +
        `${Math.min(...samples, rssSilent)}-${Math.max(...samples, rssSilent)} MB during, ${rssSilent} MB at its end; ` +
        `backlog of ${silentAnswers.size * WEBHOOKS} deliveries drained in ${(drainMs / 1000).toFixed(1)} s after it answered again ` +
        `(retries wait out their back-off first); every webhook in version order: ${inOrder}; server RSS ${rssMb(pid)} MB\n`,
    );
    api.close();
  } finally {
    if (child) await stopChild(child);
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

interface BenchReceiver {
  url: string;
  /** Deliveries received, retries included. */
  received: number;
  /** First arrival time of each X-Storyline-Delivery. */
  firstArrivals: Map<string, number>;
  /** First arrivals of versions from `countFrom` on. */
  countFrom: number;
  counted: number;
  /** While true, requests are held open unanswered. */
  silent: boolean;
  /** Drops the held requests (the sender sees its connection reset and retries later). */
  release(): void;
  /** Whether each webhook's first arrivals came in ascending version order. */
  inOrder(): boolean;
  /** Resolves true once the condition holds, false if it still does not after `timeoutMs`. */
  until(condition: () => boolean, timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

async function startReceiver(): Promise<BenchReceiver> {
  const held: ServerResponse[] = [];
  const lastVersion = new Map<string, number>();
  let ordered = true;
  const receiver: BenchReceiver = {
    url: '',
    received: 0,
    firstArrivals: new Map(),
    countFrom: Number.MAX_SAFE_INTEGER,
    counted: 0,
    silent: false,
    release() {
      for (const res of held.splice(0)) res.destroy();
    },
    inOrder: () => ordered,
    async until(condition, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (!condition()) {
        if (Date.now() > deadline) return false;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        receiver.release();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      receiver.received++;
      const key = String(req.headers['x-storyline-delivery']);
      if (!receiver.firstArrivals.has(key)) {
        receiver.firstArrivals.set(key, performance.now());
        const dash = key.indexOf('-');
        const webhook = key.slice(0, dash);
        const version = Number(key.slice(dash + 1));
        if ((lastVersion.get(webhook) ?? 0) > version) ordered = false;
        lastVersion.set(webhook, version);
        if (version >= receiver.countFrom) receiver.counted++;
      }
      if (receiver.silent) {
        held.push(res);
        return;
      }
      res.writeHead(204);
      res.end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return receiver;
}

/** The writer: POSTs stories, paced (open loop) at a rate, keeping when each version's answer came. */
class Api {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 64 });
  private written = 0;

  constructor(
    private readonly port: number,
    private readonly token: string,
    private readonly projectId: number,
  ) {}

  async paced(perSecond: number, seconds: number): Promise<Map<number, number>> {
    const answers = new Map<number, number>();
    const started = performance.now();
    const pending: Array<Promise<void>> = [];
    for (let i = 0; i < perSecond * seconds; i++) {
      const due = started + (i * 1000) / perSecond;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      pending.push(
        this.post(`/projects/${this.projectId}/stories`, { name: `hooked story ${++this.written}` }).then((version) => {
          answers.set(version, performance.now());
        }),
      );
    }
    await Promise.all(pending);
    return answers;
  }

  async get(path: string): Promise<{ version: number }> {
    const res = await fetch(`http://127.0.0.1:${this.port}${PREFIX}${path}`, { headers: { 'X-TrackerToken': this.token } });
    await res.arrayBuffer();
    return { version: Number(res.headers.get('x-tracker-project-version')) };
  }

  post(path: string, body: unknown): Promise<number> {
    const text = JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port: this.port,
          method: 'POST',
          path: `${PREFIX}${path}`,
          agent: this.agent,
          headers: { 'X-TrackerToken': this.token, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) },
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            if (res.statusCode !== 200) reject(new Error(`POST ${path} answered ${res.statusCode}`));
            else resolve(Number(res.headers['x-tracker-project-version']));
          });
        },
      );
      req.on('error', reject);
      req.end(text);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

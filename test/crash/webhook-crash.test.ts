// Webhook deliveries survive SIGKILL: `storyline serve` is killed while deliveries are in flight (the
// receiver answers slowly), then started again on the same data directory. Every version written after
// the webhook's creation reaches the receiver, and taken without duplicates (by X-Storyline-Delivery)
// the deliveries are in version order: nothing is lost or reordered; a version sent again after the
// crash is allowed (at least once).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { startReceiver } from '../api/support/webhook-receiver.js';
import { serve, stop, stopAll, type Served } from '../e2e/storyline-process.js';
import { seededRandom } from '../support/seeded-random.js';

const WRITES = 60;

async function api(served: Served, token: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: any; version: number }> {
  const res = await fetch(`http://127.0.0.1:${served.port}/services/v5${path}`, {
    method,
    headers: { 'X-TrackerToken': token, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, json: await res.json(), version: Number(res.headers.get('x-tracker-project-version')) };
}

function kill(served: Served): Promise<void> {
  return new Promise((resolve) => {
    served.child.removeAllListeners('exit');
    served.child.once('exit', () => resolve());
    served.child.kill('SIGKILL');
  });
}

describe('webhook deliveries survive SIGKILL', function () {
  this.timeout(90_000);
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'storyline-webhook-crash-'));
  });
  afterEach(async () => {
    await stopAll();
    rmSync(dataDir, { recursive: true, force: true });
  });

  for (const seed of [3, 11]) {
    it(`loses and reorders nothing when killed mid-delivery (seed ${seed})`, async () => {
      const receiver = await startReceiver();
      // Slow answers: at the kill, a delivery is in flight and checkpoints are behind what was received.
      receiver.answer(() => ({ status: 200, afterMs: 20 }));
      const env = { STORYLINE_DATA: dataDir, STORYLINE_WEBHOOK_ALLOW_PRIVATE: '1' };
      try {
        const first = await serve(env);
        const token = first.stdout.find((line) => line.includes('API token:'))!.split(': ')[1]!;
        const projectId = (await api(first, token, 'GET', '/projects')).json[0].id as number;
        const hook = await api(first, token, 'POST', `/projects/${projectId}/webhooks`, { webhook_url: receiver.url });
        expect(hook.status).to.equal(200);
        const createdAt = hook.version;
        let head = createdAt;
        for (let i = 0; i < WRITES; i++) head = (await api(first, token, 'POST', `/projects/${projectId}/stories`, { name: `story ${i}` })).version;

        const killAfter = 5 + Math.floor(seededRandom(seed)() * 40);
        await receiver.until(killAfter, 30_000);
        await kill(first);

        const second = await serve(env);
        const expected = Array.from({ length: head - createdAt }, (_, i) => `${hook.json.id}-${createdAt + i + 1}`);
        const deadline = Date.now() + 30_000;
        while (new Set(receiver.received.map((delivery) => delivery.headers['x-storyline-delivery'])).size < expected.length) {
          if (Date.now() > deadline) throw new Error('not every version was delivered after the restart');
          await receiver.until(receiver.received.length + 1, 30_000);
        }
        const ids = receiver.received.map((delivery) => String(delivery.headers['x-storyline-delivery']));
        const firstSeen = ids.filter((id, index) => ids.indexOf(id) === index);
        expect(firstSeen).to.deep.equal(expected);
        // Each delivery of one version carries the same body, before and after the crash.
        const bodies = new Map<string, string>();
        for (const delivery of receiver.received) {
          const id = String(delivery.headers['x-storyline-delivery']);
          const body = bodies.get(id);
          if (body !== undefined) expect(delivery.body, id).to.equal(body);
          bodies.set(id, delivery.body);
        }
        expect(await stop(second)).to.equal(0);
      } finally {
        await receiver.close();
      }
    });
  }
});

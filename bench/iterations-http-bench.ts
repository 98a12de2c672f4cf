// The iteration routes through the real server (`storyline serve` in a child process, SQLite log and
// read models on disk) on a project of five years of weekly iterations and 20,000 stories: `scope=current`
// and a done page (`scope=done&offset=-10`), 10 connections with autocannon, once with the response
// cache as configured by default and once with it off (every request computes the answer), next to a
// bare express 5 app answering the same captured bytes (bench/http-bench-baseline.ts).
// Target (issue 15): p99 < 50 ms.
import { emptyState } from '../src/domain/decision-states.js';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { EVENT_SCHEMA, streams, type NewEvent } from '../src/domain/events.js';
import { decideCreateStory, type CreateStoryInput } from '../src/domain/story/create-story.js';
import type { Storyline } from '../src/infra/composition.js';
import { seededRandom } from '../test/support/seeded-random.js';
import { capture, freePort, line, seedThroughServer, startChild, stopChild, waitUntilServing } from './http-bench.js';

const PREFIX = '/services/v5';
const WEEKS = 260;
const ACCEPTED = 18_000;
const STARTED = 20;
const BACKLOG = 1_500;
const ICEBOX = 20_000 - ACCEPTED - STARTED - BACKLOG;
const DAY = 86_400_000;
const CONNECTIONS = 10;
const DURATION_S = 5;
const WARM_UP_S = 1;

/** The Monday 00:00 UTC on or before `time`. */
function mondayBefore(time: number): number {
  const day = Math.floor(time / DAY);
  return (day - ((new Date(day * DAY).getUTCDay() + 6) % 7)) * DAY;
}

export async function runIterationsHttp(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'storyline-iterations-http-'));
  const children: ChildProcess[] = [];
  try {
    const seeding = performance.now();
    const { token, projectId } = await seed(dir);
    process.stdout.write(`\nover HTTP: seeded ${WEEKS} weekly iterations and 20,000 stories in ${((performance.now() - seeding) / 1000).toFixed(1)} s\n`);
    const headers = { 'X-TrackerToken': token };
    const cli = fileURLToPath(new URL('../src/infra/cli/main.js', import.meta.url));
    const serve = async (extra: Record<string, string>) => {
      const port = await freePort();
      children.push(startChild(cli, ['serve'], { STORYLINE_DATA: dir, PORT: String(port), HOST: '127.0.0.1', STORYLINE_LOG_LEVEL: 'error', ...extra }));
      await waitUntilServing(port, `${PREFIX}/me`, headers);
      return port;
    };
    const cachedPort = await serve({});
    const paths = [
      ['scope=current', `${PREFIX}/projects/${projectId}/iterations?scope=current`],
      ['done page (scope=done&offset=-10)', `${PREFIX}/projects/${projectId}/iterations?scope=done&offset=-10`],
    ] as const;
    const captured = await Promise.all(paths.map(([, path]) => capture(cachedPort, path, headers)));
    const capturedFile = join(dir, 'captured.json');
    writeFileSync(capturedFile, JSON.stringify(captured));
    await stopChild(children.pop()!); // one server at a time: the 2 cores go to the one measured
    const targets: Array<{ name: string; start: () => Promise<number> }> = [
      { name: 'storyline', start: () => serve({}) },
      { name: 'no byte cache', start: () => serve({ STORYLINE_RESPONSE_CACHE_ENTRIES: '0' }) },
      {
        name: 'bare express',
        async start() {
          const port = await freePort();
          children.push(startChild(fileURLToPath(new URL('./http-bench-baseline.js', import.meta.url)), ['express', capturedFile], { PORT: String(port) }));
          await waitUntilServing(port, paths[0][1], {});
          return port;
        },
      },
    ];
    const results = new Map<string, string[]>();
    for (const target of targets) {
      const port = await target.start();
      for (const [label, path] of paths) {
        const url = `http://127.0.0.1:${port}${path}`;
        await autocannon({ url, connections: CONNECTIONS, duration: WARM_UP_S, headers });
        const result = await autocannon({ url, connections: CONNECTIONS, duration: DURATION_S, headers });
        const verdict = target.name === 'bare express' ? '' : `  (p99 < 50 ms: ${result.latency.p99 < 50 ? 'met' : 'NOT met'})`;
        results.set(label, [...(results.get(label) ?? []), `  ${target.name.padEnd(14)} ${line(result)}${verdict}`]);
      }
      await stopChild(children.pop()!);
    }
    for (const [label] of paths) {
      process.stdout.write(`GET iterations ${label}, ${CONNECTIONS} connections, ${DURATION_S} s (${(Buffer.from(captured[paths.findIndex(([l]) => l === label)]!.bodyBase64, 'base64').length / 1024).toFixed(0)} KiB)\n`);
      process.stdout.write(`${results.get(label)!.join('\n')}\n`);
    }
  } finally {
    for (const child of children) await stopChild(child);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A person and a project whose 260 weekly iterations end now, with its 20,000 stories appended as one batch. */
function seed(dir: string): Promise<{ token: string; projectId: number }> {
  return seedThroughServer(dir, async (storyline, port, person) => {
    const start = mondayBefore(Date.now()) - WEEKS * 7 * DAY;
    const res = await fetch(`http://127.0.0.1:${port}${PREFIX}/projects`, {
      method: 'POST',
      headers: { 'X-TrackerToken': person.api_token, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Five years', new_account_name: 'Bench', start_date: new Date(start).toISOString().slice(0, 10) }),
    });
    const project = (await res.json()) as { id: number };
    if (res.status !== 200) throw new Error(`POST /projects: ${res.status} ${JSON.stringify(project)}`);
    await appendStories(storyline, project.id, person.id, start);
    return { token: person.api_token, projectId: project.id };
  });
}

/** 18,000 accepted across the five years, 20 started, 1,500 in the Backlog, the rest in the Icebox. */
async function appendStories(storyline: Storyline, projectId: number, personId: number, start: number): Promise<void> {
  const random = seededRandom(2026);
  const stream = streams.project(projectId);
  const state = emptyState(stream);
  for (const event of await storyline.eventStore.readStream(stream)) state.evolve(event);
  const baseVersion = state.version;
  const now = Date.now();
  const commandId = crypto.randomUUID();
  const events: NewEvent[] = [];
  const inputs: CreateStoryInput[] = [];
  for (let i = 0; i < ACCEPTED; i++) {
    const acceptedAt = start + DAY + Math.floor(((i + random()) / ACCEPTED) * (WEEKS * 7 * DAY - DAY));
    inputs.push({ name: `Story ${i}`, current_state: 'accepted', estimate: Math.floor(random() * 4), accepted_at: Math.floor(acceptedAt / 1000) * 1000 });
  }
  for (let i = 0; i < STARTED; i++) inputs.push({ name: `Going ${i}`, current_state: 'started', estimate: 1 + Math.floor(random() * 3) });
  for (let i = 0; i < BACKLOG; i++) inputs.push({ name: `Next ${i}`, current_state: 'unstarted', estimate: Math.floor(random() * 4) });
  for (let i = 0; i < ICEBOX; i++) inputs.push({ name: `Idea ${i}`, current_state: 'unscheduled' });
  for (const input of inputs) {
    const id = await storyline.ids.next('story');
    const decision = decideCreateStory(input, state, { now, actorId: personId, nextId: () => id });
    const event: NewEvent = { type: decision.type, data: decision.data, meta: { schema: EVENT_SCHEMA, occurred_at: now, performed_by: personId, command_id: commandId } };
    events.push(event);
    state.evolve({ ...event, id: `seed-${id}`, stream, version: state.version + 1, position: 0 });
  }
  await storyline.eventStore.append(stream, baseVersion, events);
}

// A realistic event log for the disk benchmarks, written by the REAL write path in-process: the
// deciders through the command handler (load -> decide -> append with the expected version), with the
// mix measured on a production-like workload: about 60% story updates (a third of them set the labels,
// so their events carry the labels' story counts), 20% story creates, 12% task creates, 8% task updates, over 200 projects
// (about 1,000 stories each at 1M events), ~1.75 KB per stored event.
//
// The person, account and projects are created over HTTP first (openStoryline + the API, as a client
// would). The log is cached under bench/.data/<events>/ (gitignored) with `log.json` describing it, so a
// second run measures without regenerating.
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CommandHandler } from '../src/commands/command-handler.js';
import { CachedStreamStates } from '../src/infra/stream-states/cached-stream-states.js';
import { DomainError } from '../src/domain/errors.js';
import { streams } from '../src/domain/events.js';
import { decideCreateStory } from '../src/domain/story/create-story.js';
import { decideUpdateStory } from '../src/domain/story/update-story.js';
import { decideCreateTask } from '../src/domain/task/create-task.js';
import { decideUpdateTask } from '../src/domain/task/update-task.js';
import { configFromEnv } from '../src/infra/config.js';
import { openSqliteEventStore } from '../src/infra/event-store/sqlite-event-store.js';
import { IdAllocator } from '../src/infra/id-allocator.js';
import { seededRandom } from '../test/support/seeded-random.js';
import { withBenchOwner } from './bench-owner.js';

export const PROJECTS = 200;
const WORDS = ['export', 'report', 'login', 'billing', 'search', 'iteration', 'csv', 'mobile', 'sync', 'invite', 'dashboard', 'webhook', 'audit', 'retry', 'onboarding'];
const LABELS = ['backend', 'frontend', 'ops', 'design', 'bug bash', 'mobile', 'api', 'customer', 'security', 'performance', 'docs', 'infra'];
const PRIORITIES = ['p0', 'p1', 'p2', 'p3'] as const;

export interface RealisticLog {
  /** The data directory: events.sqlite and credentials.sqlite (the read models are built by the benches). */
  dir: string;
  token: string;
  personId: number;
  projectIds: number[];
  events: number;
  logBytes: number;
}

interface ProjectWork {
  id: number;
  stories: number[];
  /** Story id -> its task ids. */
  tasks: Map<number, number[]>;
}

export function benchDataDir(events: number): string {
  return fileURLToPath(new URL(`../../bench/.data/${events}`, import.meta.url));
}

/** The cached log of about `events` events, generated when missing (minutes at 1M). */
export async function realisticLog(events: number, progress: (line: string) => void): Promise<RealisticLog> {
  const dir = benchDataDir(events);
  const described = join(dir, 'log.json');
  // The directory is this checkout's, whichever checkout generated the cached log.
  if (existsSync(described)) return { ...(JSON.parse(readFileSync(described, 'utf8')) as RealisticLog), dir };
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const started = performance.now();
  const setup = await createProjects(dir);
  const written = await writeStoryWork(dir, setup, events, progress);
  const log: RealisticLog = { dir, ...setup, events: written, logBytes: statSync(join(dir, 'events.sqlite')).size };
  writeFileSync(described, JSON.stringify(log));
  progress(`generated ${written.toLocaleString('en')} events (${(log.logBytes / written).toFixed(0)} bytes per stored event) in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  return log;
}

/** A person, an account and 200 projects, over HTTP (the in-memory read store: small and short-lived). */
async function createProjects(dir: string): Promise<{ token: string; personId: number; projectIds: number[] }> {
  return withBenchOwner(configFromEnv({ STORYLINE_DATA: dir, STORYLINE_READ_STORE: 'memory', PORT: '0' }), async ({ person, post: call }) => {
    const first = await call('/projects', { name: 'Project 1', new_account_name: 'Bench company' });
    const projectIds = [Number(first['id'])];
    for (let i = 2; i <= PROJECTS; i++) projectIds.push(Number((await call('/projects', { name: `Project ${i}`, account_id: first['account_id'] }))['id']));
    return { token: person.api_token, personId: person.id, projectIds };
  });
}

/** The story and task writes: one worker per project, all through one command handler. */
async function writeStoryWork(dir: string, setup: { personId: number; projectIds: number[] }, target: number, progress: (line: string) => void): Promise<number> {
  const eventStore = await openSqliteEventStore({ path: join(dir, 'events.sqlite') });
  // Large id blocks: 200 writers would otherwise queue behind a block reservation every 100 creates.
  const ids = new IdAllocator(eventStore, { blockSize: 5000 });
  // The generator waits for no read model: the benches build them from this log. It writes to every
  // project at random, so every project's state stays in memory.
  const commands = new CommandHandler({ eventStore, states: new CachedStreamStates({ eventStore, cacheDocuments: Infinity }), ids, projections: { waitFor: async () => undefined } });
  const random = seededRandom(1017);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const words = (count: number) => Array.from({ length: count }, () => pick(WORDS)).join(' ');
  const labels = () => Array.from(new Set(Array.from({ length: 1 + Math.floor(random() * 2) }, () => pick(LABELS))));
  const work: ProjectWork[] = setup.projectIds.map((id) => ({ id, stories: [], tasks: new Map() }));
  const start = await eventStore.headPosition();
  let written = 0;
  let refused = 0;
  let commandNo = 0;
  let reported = performance.now();
  const began = reported;

  const meta = () => ({ commandId: `bench-${++commandNo}`, actorId: setup.personId, now: Math.floor(Date.now() / 1000) * 1000 });
  const description = () => `${words(8)}. As a ${pick(['customer', 'admin', 'member'])} I want ${words(12)} so that ${words(10)}. Acceptance: ${words(14)}.`;

  async function one(project: ProjectWork): Promise<void> {
    const stream = streams.project(project.id);
    const roll = random();
    const story = project.stories.length > 0 ? pick(project.stories) : null;
    try {
      if (!story || roll < 0.2) {
        const outcome = await commands.execute(stream, (state, context) =>
          decideCreateStory({
            name: `${words(5)} ${project.stories.length + 1}`,
            description: description(),
            story_type: 'feature',
            current_state: 'unstarted',
            estimate: 1 + Math.floor(random() * 3),
            story_priority: pick(PRIORITIES),
            owner_ids: [setup.personId],
            labels: labels(),
          }, state, context), meta());
        project.stories.push(outcome.subject.id);
      } else if (roll < 0.8) {
        await commands.execute(stream, (state, context) =>
          decideUpdateStory({
            story_id: story,
            // A third of the updates change the labels: their events carry the labels' story counts.
            ...(random() < 0.35 ? { labels: [pick(LABELS)] } : {}),
            ...(random() < 0.5 ? { name: `${words(5)} ${story}` } : { description: description() }),
            ...(random() < 0.3 ? { story_priority: pick(PRIORITIES) } : {}),
            ...(random() < 0.2 ? { current_state: pick(['unstarted', 'started', 'finished'] as const) } : {}),
          }, state, context), meta());
      } else if (roll < 0.92 || project.tasks.size === 0) {
        const outcome = await commands.execute(stream, (state, context) => decideCreateTask({ story_id: story, description: words(9) }, state, context), meta());
        const tasks = project.tasks.get(story) ?? [];
        tasks.push(outcome.subject.id);
        project.tasks.set(story, tasks);
      } else {
        const [storyOfTask, tasks] = pick([...project.tasks]);
        const task = pick(tasks);
        await commands.execute(stream, (state, context) =>
          decideUpdateTask({ story_id: storyOfTask, task_id: task, complete: random() < 0.5, description: words(9) }, state, context), meta());
      }
      written++;
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      refused++;
    }
  }

  await Promise.all(
    work.map(async (project) => {
      while (written < target - start) {
        await one(project);
        if (performance.now() - reported > 10_000) {
          reported = performance.now();
          const rate = Math.round((written * 1000) / (reported - began));
          progress(`  generating: ${written.toLocaleString('en')} / ${target.toLocaleString('en')} events, ${rate.toLocaleString('en')}/s, ${refused} refused`);
        }
      }
    }),
  );
  const head = await eventStore.headPosition();
  await eventStore.close();
  return head;
}

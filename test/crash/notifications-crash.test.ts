// Notifications survive SIGKILL: the server's notifications reaction, killed between (or inside) its
// batches while it works through a log of story, owner, state and comment events, and started again,
// leaves exactly the notifications and audiences that one uninterrupted run leaves: no notification lost,
// none doubled, the same ids (they derive from the log).
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { EVENT_SCHEMA, type EventType, type NewEvent, type ResourceChange } from '../../src/domain/events.js';
import { openSqliteEventStore } from '../../src/infra/event-store/sqlite-event-store.js';
import { openSqliteReadStore } from '../../src/infra/read-store/sqlite-read-store.js';
import { seededRandom } from '../support/seeded-random.js';
import { runPositionReportingChild } from './position-reporting-child.js';
import type { NotificationsChildOptions } from './notifications-child.js';

const childScript = fileURLToPath(new URL('./notifications-child.js', import.meta.url));
const T0 = Date.UTC(2025, 2, 3, 9);
const PEOPLE = [1, 2, 3, 4, 5];
const STORIES = 30;
const EVENTS = 240;

function event(type: EventType, changes: ResourceChange[], performer: number, n: number): NewEvent {
  return { type, data: { changes, primary_resources: [] }, meta: { schema: EVENT_SCHEMA, occurred_at: T0 + n * 1000, performed_by: performer, command_id: `notify-${n}` } };
}

/** A seeded history: stories created with owners, owners and states changed, comments written. */
function history(seed: number): Array<{ stream: string; event: NewEvent }> {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const owners = () => PEOPLE.filter(() => random() < 0.4);
  const created: number[] = [];
  const out: Array<{ stream: string; event: NewEvent }> = [];
  for (let n = 0; out.length < EVENTS; n++) {
    const performer = pick(PEOPLE);
    const stream = `project-${1 + (n % 3)}`;
    if (created.length < STORIES && (created.length === 0 || random() < 0.3)) {
      const id = 100 + created.length;
      created.push(id);
      out.push({ stream, event: event('story_create', [{ kind: 'story', change_type: 'create', id, name: `Story ${id}`, new_values: { id, name: `Story ${id}`, requested_by_id: pick(PEOPLE), owner_ids: owners(), follower_ids: [], current_state: 'started' } }], performer, n) });
    } else if (random() < 0.5) {
      const id = pick(created);
      const state = pick(['delivered', 'accepted', 'rejected', 'started']);
      out.push({ stream, event: event('story_update', [{ kind: 'story', change_type: 'update', id, name: `Story ${id}`, new_values: { owner_ids: owners(), current_state: state }, original_values: {} }], performer, n) });
    } else {
      const id = pick(created);
      out.push({ stream, event: event('comment_create', [{ kind: 'comment', change_type: 'create', id: 5000 + n, new_values: { id: 5000 + n, story_id: id, text: `note ${n}`, person_id: performer } }], performer, n) });
    }
  }
  return out;
}

/** Runs the child; kills it with SIGKILL once it reported `killAfter` batches, or lets it finish. */
function runChild(options: NotificationsChildOptions, killAfter: number | null): Promise<number[]> {
  return runPositionReportingChild(childScript, options, killAfter);
}

/** The reaction's own collections as stored, for comparison. */
async function notificationState(stores: string): Promise<unknown[]> {
  const store = openSqliteReadStore({ path: join(stores, 'readmodels.sqlite') });
  try {
    return await Promise.all(['notifications', 'notification_story_audiences', 'notification_progress'].map((name) => store.collection(name).all()));
  } finally {
    await store.close();
  }
}

describe('notifications survive SIGKILL', function () {
  this.timeout(120_000);
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'storyline-notifications-crash-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  for (const seed of [7, 19]) {
    it(`leaves what an uninterrupted run leaves after being killed mid-way (seed ${seed})`, async () => {
      const store = await openSqliteEventStore({ path: join(dir, 'events.sqlite') });
      for (const { stream, event: written } of history(seed)) await store.append(stream, 'any', [written]);
      const head = await store.headPosition();
      await store.close();
      const [killed, clean] = [join(dir, 'killed'), join(dir, 'clean')];
      mkdirSync(killed);
      mkdirSync(clean);

      const killAfter = 3 + Math.floor(seededRandom(seed)() * 20);
      const first = await runChild({ log: dir, stores: killed, untilCaughtUp: false }, killAfter);
      expect(first.at(-1)).to.be.below(head);
      const second = await runChild({ log: dir, stores: killed, untilCaughtUp: true }, null);
      expect(second.at(-1)).to.equal(head);
      await runChild({ log: dir, stores: clean, untilCaughtUp: true }, null);

      const [afterKill, uninterrupted] = [await notificationState(killed), await notificationState(clean)];
      expect((uninterrupted[0] as unknown[]).length).to.be.above(20);
      expect(afterKill).to.deep.equal(uninterrupted);
    });
  }
});

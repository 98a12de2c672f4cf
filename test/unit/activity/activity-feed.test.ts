import { expect } from 'chai';
import fc from 'fast-check';
import { indexFilter, projectFeedPage, type FeedFilter } from '../../../src/queries/activity-feed.js';
import { EVENT_SCHEMA, streams, type NewEvent, type RecordedEvent } from '../../../src/domain/events.js';
import type { EventStore, ReadStreamOptions } from '../../../src/ports/event-store.js';
import { openSqliteEventStore, type SqliteEventStore } from '../../../src/infra/event-store/sqlite-event-store.js';

const PROJECT = 5;
const EVENTS = 300;
const T0 = Date.UTC(2025, 0, 1);

/** Occurred times that never go backwards, with runs of equal times (several events in one ms). */
function occurredTimes(): number[] {
  const times: number[] = [];
  let at = T0;
  for (let i = 0; i < EVENTS; i++) {
    at += i % 4 === 0 ? 0 : 1000 * ((i * 7) % 5);
    times.push(at);
  }
  return times;
}

function event(version: number, occurredAt: number): NewEvent {
  return {
    type: 'story_update',
    data: { changes: [{ kind: 'story', change_type: 'update', id: 1, new_values: { name: `v${version}` } }], primary_resources: [] },
    meta: { schema: EVENT_SCHEMA, occurred_at: occurredAt, performed_by: 1, command_id: `command-${version}` },
  };
}

/** Wraps a store to count the events its reads return. */
function counting(store: EventStore): { store: EventStore; eventsRead: () => number } {
  let read = 0;
  const wrapped: EventStore = Object.create(store) as EventStore;
  wrapped.readStream = async (stream: string, options?: ReadStreamOptions) => {
    const events = await store.readStream(stream, options);
    read += events.length;
    return events;
  };
  return { store: wrapped, eventsRead: () => read };
}

describe('project activity pages', () => {
  let store: SqliteEventStore;
  let all: RecordedEvent[];
  const times = occurredTimes();

  before(async () => {
    store = await openSqliteEventStore({ path: ':memory:' });
    for (let version = 1; version <= EVENTS; version++) {
      await store.append(streams.project(PROJECT), version - 1, [event(version, times[version - 1]!)]);
    }
    all = await store.readStream(streams.project(PROJECT));
  });
  after(() => store.close());

  /** The feed by definition: every event, filtered, newest first. */
  function naive(filter: FeedFilter): RecordedEvent[] {
    return all
      .filter((e) => e.version > filter.sinceVersion)
      .filter((e) => filter.windowStart === null || e.meta.occurred_at >= filter.windowStart)
      .filter((e) => filter.occurredAfter === null || e.meta.occurred_at > filter.occurredAfter)
      .filter((e) => filter.occurredBefore === null || e.meta.occurred_at < filter.occurredBefore)
      .reverse();
  }

  it('gives the same pages as filtering the whole stream, for any filters', async () => {
    const time = fc.option(fc.integer({ min: T0 - 5000, max: times[EVENTS - 1]! + 5000 }), { nil: null });
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: EVENTS + 2 }),
        time,
        time,
        time,
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 0, max: EVENTS + 5 }),
        async (sinceVersion, windowStart, occurredAfter, occurredBefore, limit, offset) => {
          const filter: FeedFilter = { sinceVersion, windowStart, occurredAfter, occurredBefore };
          const expected = naive(filter);
          const page = await projectFeedPage(store, PROJECT, EVENTS, filter, { limit, offset });
          expect(page.total).to.equal(expected.length);
          expect(page.events.map((e) => e.version)).to.deep.equal(expected.slice(offset, offset + limit).map((e) => e.version));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('reads only the page when nothing is filtered, and a logarithmic number of probes for time bounds', async () => {
    const plain = counting(store);
    await projectFeedPage(plain.store, PROJECT, EVENTS, { sinceVersion: 0, windowStart: null, occurredAfter: null, occurredBefore: null }, { limit: 10, offset: 50 });
    expect(plain.eventsRead()).to.equal(10);

    const bounded = counting(store);
    const middle = times[EVENTS / 2]!;
    await projectFeedPage(bounded.store, PROJECT, EVENTS, { sinceVersion: 0, windowStart: middle, occurredAfter: null, occurredBefore: middle + 60_000 }, { limit: 10, offset: 0 });
    expect(bounded.eventsRead()).to.be.at.most(10 + 2 * (Math.ceil(Math.log2(EVENTS)) + 1));
  });

  it('reads nothing for a stream without events and for limit 0', async () => {
    const filter: FeedFilter = { sinceVersion: 0, windowStart: null, occurredAfter: null, occurredBefore: null };
    expect(await projectFeedPage(store, 404, 0, filter, { limit: 10, offset: 0 })).to.deep.equal({ events: [], total: 0 });
    expect(await projectFeedPage(store, PROJECT, EVENTS, filter, { limit: 0, offset: 0 })).to.deep.equal({ events: [], total: EVENTS });
  });

  it('turns feed filters into index filters', () => {
    expect(indexFilter({ person_id: 3 }, { sinceVersion: 0, windowStart: null, occurredAfter: null, occurredBefore: null })).to.deep.equal({ person_id: 3 });
    expect(indexFilter({ subjects: 'story-1' }, { sinceVersion: 4, windowStart: 10, occurredAfter: 20, occurredBefore: 30 })).to.deep.equal({
      subjects: 'story-1',
      version: { $gt: 4 },
      occurred_at: { $gte: 10, $gt: 20, $lt: 30 },
    });
  });
});

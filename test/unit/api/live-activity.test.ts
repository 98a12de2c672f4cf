// The live activity hub with its collaborators faked: a log of versions, the applied batches as a
// subject and sinks whose buffers the test controls. What HTTP cannot show deterministically: a live
// stream too slow to read is dropped at its buffer bound, a catching-up stream waits for its socket to
// drain, and a burst of batches past the pending bound is caught up from the log without a gap.
import { expect } from 'chai';
import { Subject } from 'rxjs';
import type { ActivityItem, ItemFormat } from '../../../src/api/activity-items.js';
import type { EventStreamSink } from '../../../src/api/event-stream.js';
import { LiveActivity } from '../../../src/api/live-activity.js';
import type { RecordedEvent } from '../../../src/domain/events.js';
import { silentLog } from '../../../src/infra/log.js';

const PROJECT = 7;

function event(version: number): RecordedEvent {
  return {
    id: `e${version}`,
    stream: `project-${PROJECT}`,
    version,
    position: version,
    type: 'story_update',
    data: { changes: [], primary_resources: [] },
    meta: { schema: 2, occurred_at: 0, performed_by: 1, command_id: `c${version}` },
  };
}

/** A project log of `head` versions; items are `{"v":N}`. */
function fakeLog() {
  const log = { head: 0, reads: 0 };
  const item = (version: number): ActivityItem => ({ version, json: `{"v":${version}}` });
  const items = {
    async after(_projectId: number, afterVersion: number, limit: number, _format: ItemFormat): Promise<ActivityItem[]> {
      log.reads++;
      const items: ActivityItem[] = [];
      for (let version = afterVersion + 1; version <= log.head && items.length < limit; version++) items.push(item(version));
      return items;
    },
    async of(_projectId: number, events: readonly RecordedEvent[]): Promise<ActivityItem[]> {
      return events.map((e) => item(e.version));
    },
  };
  return { log, items };
}

/** A sink recording frames; `full` makes writes report a full buffer of `buffered` bytes. */
function fakeSink() {
  const sink = {
    frames: [] as string[],
    writes: 0,
    full: false,
    bufferedBytes: 0,
    destroyed: false,
    ended: false,
    drained: [] as Array<() => void>,
    closed: [] as Array<() => void>,
  };
  const port: EventStreamSink = {
    write(text) {
      sink.writes++;
      sink.frames.push(...String(text).split('\n\n').filter(Boolean));
      return !sink.full;
    },
    buffered: () => sink.bufferedBytes,
    onceDrained: (listener) => void sink.drained.push(listener),
    onClose: (listener) => void sink.closed.push(listener),
    end() {
      sink.ended = true;
      for (const listener of sink.closed.splice(0)) listener();
    },
    destroy() {
      sink.destroyed = true;
      for (const listener of sink.closed.splice(0)) listener();
    },
  };
  const versions = () => sink.frames.filter((frame) => frame.startsWith('id: ')).map((frame) => Number(/^id: (\d+)/.exec(frame)![1]));
  return { sink, port, versions };
}

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) {
    await new Promise((resolve) => setTimeout(resolve, 2));
    for (let j = 0; j < 20; j++) await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('live activity hub', () => {
  const settings = { maxStreams: 10, maxStreamsPerCaller: 10, heartbeatMs: 60_000, maxBufferedBytes: 1000, flushMs: 0 };
  let applied: Subject<readonly RecordedEvent[]>;
  let hub: LiveActivity;
  let fake: ReturnType<typeof fakeLog>;

  beforeEach(() => {
    applied = new Subject();
    fake = fakeLog();
    hub = new LiveActivity({ applied: { applied$: applied }, items: fake.items, log: silentLog }, settings);
  });
  afterEach(() => hub.close());

  function publish(...versions: number[]): void {
    fake.log.head = Math.max(fake.log.head, ...versions);
    applied.next(versions.map(event));
  }

  function openStream(after: number) {
    const sink = fakeSink();
    hub.reserve('person:1').open(sink.port, { projectId: PROJECT, after, format: { millis: false }, stillAllowed: async () => true });
    return sink;
  }

  it('catches a stream up from the log, then sends live batches once each, in order', async () => {
    fake.log.head = 3;
    const stream = openStream(1);
    await settle();
    expect(stream.versions()).to.deep.equal([2, 3]);
    publish(3, 4); // 3 was read from the log already
    publish(5);
    await settle();
    expect(stream.versions()).to.deep.equal([2, 3, 4, 5]);
  });

  it('drops a live stream whose socket holds more than the bound unsent', async () => {
    const stream = openStream(0);
    await settle();
    stream.sink.full = true;
    stream.sink.bufferedBytes = 999;
    publish(1);
    await settle();
    expect(stream.sink.destroyed).to.equal(false);
    stream.sink.bufferedBytes = 1001;
    publish(2);
    await settle();
    expect(stream.sink.destroyed).to.equal(true);
    expect(hub.stats().open).to.equal(0);
  });

  it('waits for a catching-up stream to drain before reading the next page', async () => {
    fake.log.head = 250;
    const stream = openStream(0);
    stream.sink.full = true;
    await settle();
    expect(stream.versions()).to.deep.equal(Array.from({ length: 100 }, (_, i) => i + 1));
    stream.sink.full = false;
    stream.sink.drained.shift()!();
    await settle();
    expect(stream.versions()).to.have.length(250);
    expect(stream.versions().at(-1)).to.equal(250);
  });

  it('catches up from the log, without a gap, the events it had no room to keep for a fan-out', async () => {
    const stream = openStream(0);
    await settle();
    const total = 10_500;
    for (let first = 1; first <= total; first += 100) publish(...Array.from({ length: 100 }, (_, i) => first + i));
    await settle();
    await settle();
    expect(stream.versions()).to.deep.equal(Array.from({ length: total }, (_, i) => i + 1));
    expect(fake.log.reads, 'read from the log').to.be.greaterThan(1);
  });

  it('fans out at most once per period: versions applied meanwhile go out together, in one write', async () => {
    hub.close();
    hub = new LiveActivity({ applied: { applied$: applied }, items: fake.items, log: silentLog }, { ...settings, flushMs: 200 });
    const stream = openStream(0);
    await settle();
    publish(1); // the first goes out at once
    await settle();
    const writes = stream.sink.writes;
    publish(2);
    publish(3);
    await settle();
    expect(stream.versions()).to.deep.equal([1]);
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(stream.versions()).to.deep.equal([1, 2, 3]);
    expect(stream.sink.writes).to.equal(writes + 1);
  });

  it('ends streams cleanly at close and refuses new ones', async () => {
    const stream = openStream(0);
    hub.close();
    expect(stream.sink.ended).to.equal(true);
    expect(() => hub.reserve('person:1')).to.throw();
  });
});

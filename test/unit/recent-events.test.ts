// The in-memory tail of the log a store appended (recent-events.ts): one gap-free, bounded run.
import { expect } from 'chai';
import type { RecordedEvent } from '../../src/domain/events.js';
import { RecentEvents } from '../../src/infra/event-store/recent-events.js';

function events(from: number, to: number): RecordedEvent[] {
  const made: RecordedEvent[] = [];
  for (let position = from; position <= to; position++) {
    made.push({ id: `e${position}`, stream: 'project-1', version: position, position, type: 'story_create', data: {} as never, meta: {} as never });
  }
  return made;
}

const positions = (held: RecordedEvent[] | null) => held?.map((event) => event.position) ?? null;

describe('RecentEvents', () => {
  it('answers reads that start inside its run, up to the limit, and nothing else', () => {
    const recent = new RecentEvents(100);
    recent.add(events(5, 8));
    expect(positions(recent.after(4, -1))).to.deep.equal([5, 6, 7, 8]);
    expect(positions(recent.after(6, 1))).to.deep.equal([7]);
    expect(recent.after(3, -1), 'position 4 is not held').to.equal(null);
    expect(recent.after(8, -1), 'nothing held after the run').to.equal(null);
    expect(recent.lastPosition()).to.equal(8);
  });

  it('starts afresh when an append does not follow the run (another process wrote in between)', () => {
    const recent = new RecentEvents(100);
    recent.add(events(1, 3));
    recent.add(events(6, 7));
    expect(recent.after(2, -1)).to.equal(null);
    expect(positions(recent.after(5, -1))).to.deep.equal([6, 7]);
  });

  it('keeps at most its capacity, dropping the oldest', () => {
    const recent = new RecentEvents(4);
    for (let position = 1; position <= 50; position += 2) recent.add(events(position, position + 1));
    expect(positions(recent.after(46, -1))).to.deep.equal([47, 48, 49, 50]);
    expect(recent.after(45, -1)).to.equal(null);
  });
});

// The daily history's fold of story histories into day rows (domain/iteration/daily-history.ts).
import { expect } from 'chai';
import { acceptedWithin, dailyHistoryRows, StoryHistoryFold, type StoryHistoryEntry } from '../../../src/domain/iteration/daily-history.js';
import { dayNumberOfDate } from '../../../src/domain/project/time-zone.js';

const LA = 'America/Los_Angeles';
const at = (iso: string) => Date.parse(iso);

describe('daily history rows', () => {
  it('cuts days at local midnight, across a daylight-saving change', () => {
    // 2024-03-10 has 23 hours in Los Angeles: its day ends at 07:00Z on the 11th, the 9th's at 08:00Z on the 10th
    const entries: StoryHistoryEntry[] = [
      { at: at('2024-03-09T12:00:00Z'), values: { current_state: 'unstarted', estimate: 2.5 }, created: true },
      { at: at('2024-03-10T07:30:00Z'), values: { current_state: 'started' } }, // 23:30 on the 9th
      { at: at('2024-03-11T06:30:00Z'), values: { current_state: 'finished', estimate: null } }, // 23:30 on the 10th
      { at: at('2024-03-11T07:30:00Z'), values: {}, deleted: true }, // 00:30 on the 11th
    ];
    const rows = dailyHistoryRows(LA, dayNumberOfDate('2024-03-09'), dayNumberOfDate('2024-03-11'), [entries]);
    expect(rows.map((row) => [row[0], row[3], row[4], row[11], row[12]])).to.deep.equal([
      ['2024-03-09', 0, 2.5, 0, 1], // points_finished, points_started, counts_finished, counts_started
      ['2024-03-10', 0, 0, 1, 0], // finished, its estimate removed: counted, no points
      ['2024-03-11', 0, 0, 0, 0], // gone
    ]);
  });

  it('counts a story only from its creation in the project, and folds partial changes onto it', () => {
    const fold = new StoryHistoryFold([
      { at: 10, values: { current_state: 'unscheduled' }, created: true },
      { at: 20, values: { estimate: 3 } },
      { at: 30, values: { current_state: 'accepted', accepted_at: 25 } },
      { at: 40, values: { current_state: 'rejected', accepted_at: null } },
    ]);
    expect(fold.before(10)).to.equal(null);
    expect(fold.before(21)).to.deep.equal({ current_state: 'unscheduled', estimate: 3 });
    expect(fold.before(31)).to.deep.equal({ current_state: 'accepted', estimate: 3, accepted_at: 25 });
    expect(fold.before(41)).to.deep.equal({ current_state: 'rejected', estimate: 3 });
  });

  it('tells whether a story was accepted within a span when it ended', () => {
    const span = { number: 2, start: 100, finish: 200, length: 1, team_strength: 1 };
    const accepted = (entries: StoryHistoryEntry[]) => acceptedWithin(entries, span);
    const created: StoryHistoryEntry = { at: 50, values: { current_state: 'started' }, created: true };
    expect(accepted([created, { at: 150, values: { current_state: 'accepted', accepted_at: 150 } }])).to.equal(true);
    expect(accepted([created, { at: 150, values: { current_state: 'accepted', accepted_at: 90 } }])).to.equal(false);
    expect(accepted([created, { at: 250, values: { current_state: 'accepted', accepted_at: 150 } }])).to.equal(false);
    expect(accepted([created, { at: 150, values: { current_state: 'accepted', accepted_at: 150 } }, { at: 250, values: { current_state: 'started', accepted_at: null } }])).to.equal(true);
  });
});

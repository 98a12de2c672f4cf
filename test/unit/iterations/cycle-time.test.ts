// Cycle time (facts §8): counts of entries, time per state summing every interval, an open interval
// counted up to now, unstarted and accepted time excluded, the total omitted when never worked on.
import { expect } from 'chai';
import { cycleTimeDetails, iterationAnalytics } from '../../../src/domain/iteration/cycle-time.js';

const SECOND = 1000;

describe('cycle time', () => {
  it('counts every entry and sums every interval, the open one up to now', () => {
    // Started six times with five short unstarted gaps (891 s in all), still started now.
    const entries = [{ state: 'unstarted', occurred_at: 0 }];
    let time = 100 * SECOND;
    const gaps = [100, 200, 191, 300, 100];
    for (const gap of gaps) {
      entries.push({ state: 'started', occurred_at: time });
      time += 1000 * SECOND;
      entries.push({ state: 'unstarted', occurred_at: time });
      time += gap * SECOND;
    }
    entries.push({ state: 'started', occurred_at: time });
    const now = time + 500 * SECOND;
    const details = cycleTimeDetails(7, entries, now);
    expect(details).to.include({ started_count: 6, started_time: now - 100 * SECOND - 891 * SECOND, rejected_count: 0 });
    expect(details.total_cycle_time).to.equal(details.started_time);
  });

  it('counts a rejection still open up to now, and excludes accepted time', () => {
    const details = cycleTimeDetails(7, [
      { state: 'delivered', occurred_at: 0 },
      { state: 'rejected', occurred_at: 10 },
    ], 50);
    expect(details).to.include({ delivered_time: 10, delivered_count: 1, rejected_time: 40, rejected_count: 1, total_cycle_time: 50 });
    expect(cycleTimeDetails(7, [{ state: 'finished', occurred_at: 0 }, { state: 'accepted', occurred_at: 5 }], 1000)).to.include({ finished_time: 5, total_cycle_time: 5 });
  });

  it('omits the total for a story never worked on', () => {
    expect(cycleTimeDetails(7, [{ state: 'unstarted', occurred_at: 0 }], 10)).to.deep.equal({
      kind: 'cycle_time_details', story_id: 7, started_time: 0, started_count: 0, finished_time: 0, finished_count: 0,
      delivered_time: 0, delivered_count: 0, rejected_time: 0, rejected_count: 0,
    });
  });

  it('aggregates analytics: mean cycle time of the worked stories, rejections over verdicts', () => {
    const worked = cycleTimeDetails(1, [{ state: 'started', occurred_at: 0 }, { state: 'accepted', occurred_at: 3 }], 9);
    const direct = cycleTimeDetails(2, [{ state: 'accepted', occurred_at: 0 }], 9);
    expect(iterationAnalytics({ acceptedCycleTimes: [worked, direct], bugsCreated: 2, acceptances: 3, rejections: 1 })).to.deep.equal({
      kind: 'analytics', stories_accepted: 2, bugs_created: 2, cycle_time: 3, rejection_rate: 0.25,
    });
    expect(iterationAnalytics({ acceptedCycleTimes: [], bugsCreated: 0, acceptances: 0, rejections: 0 })).to.include({ cycle_time: 0, rejection_rate: 0 });
  });
});

// Velocity (facts §7.3) and automatic planning (facts §7.4), as pure functions.
import { expect } from 'chai';
import { iterationCalendar } from '../../../src/domain/iteration/iteration-calendar.js';
import { planIterations, type PlanStory } from '../../../src/domain/iteration/iteration-plan.js';
import { effectivePoints, velocityAfter } from '../../../src/domain/iteration/velocity.js';
import { dayNumberOfDate } from '../../../src/domain/project/time-zone.js';

const settings = { velocity_averaged_over: 3, initial_velocity: 10, iteration_length: 1 };
const done = (accepted_points: number, length = 1, team_strength = 1) => ({ accepted_points, length, team_strength });

describe('velocity', () => {
  it('averages the most recent done iterations, rounded down', () => {
    expect(velocityAfter([done(5), done(11)], { ...settings, velocity_averaged_over: 2 })).to.equal(8);
    expect(velocityAfter([done(100), done(5), done(6), done(6)], settings)).to.equal(5);
  });

  it('uses the initial velocity before any done iteration and after a run of empty ones', () => {
    expect(velocityAfter([], settings)).to.equal(10);
    expect(velocityAfter([done(0)], settings)).to.equal(10);
    expect(velocityAfter([done(9), done(0), done(0), done(0)], settings)).to.equal(10);
    expect(velocityAfter([done(9), done(0), done(0)], settings)).to.equal(3);
  });

  it('scales by team strength and length, leaving out iterations at strength 0', () => {
    // 4 points at half strength count as 8; a two-week iteration counts two weeks.
    expect(velocityAfter([done(4, 1, 0.5), done(8)], settings)).to.equal(8);
    expect(velocityAfter([done(12, 2), done(6)], settings)).to.equal(6);
    expect(velocityAfter([done(12, 2), done(6)], { ...settings, iteration_length: 2 })).to.equal(12);
    expect(velocityAfter([done(50, 1, 0), done(6)], settings)).to.equal(6);
    expect(velocityAfter([done(50, 1, 0)], settings)).to.equal(10);
  });

  it('leaves out iterations ended with length 0', () => {
    expect(velocityAfter([done(6), done(0, 0)], settings)).to.equal(6);
    expect(velocityAfter([done(0, 0)], settings)).to.equal(10);
    expect(effectivePoints(0, 0, 1, 1)).to.equal(0);
  });

  it('normalises effective points by strength and length', () => {
    expect(effectivePoints(9, 1, 1, 1)).to.equal(9);
    expect(effectivePoints(9, 1, 0.5, 1)).to.equal(18);
    expect(effectivePoints(8, 2, 1, 1)).to.equal(4);
    expect(effectivePoints(8, 1, 0, 1)).to.equal(8);
  });
});

describe('planning', () => {
  const calendar = iterationCalendar('Etc/UTC', dayNumberOfDate('2024-01-01'), 1);
  let nextRank = 0;
  const story = (current_state: PlanStory['current_state'], estimate?: number, extra: Partial<PlanStory> = {}): PlanStory => {
    nextRank++;
    return { id: nextRank, current_state, rank: `S${String(nextRank).padStart(4, '0')}`, ...(estimate === undefined ? {} : { estimate }), ...extra };
  };
  const numbers = (plan: ReturnType<typeof planIterations>) => plan.map((iteration) => iteration.stories.map((s) => s.id));
  const plan = (open: PlanStory[], velocity: number, extra: Partial<Parameters<typeof planIterations>[0]> = {}) =>
    planIterations({ calendar, currentNumber: 3, velocity, automaticPlanning: true, open, acceptedInCurrent: [], ...extra });

  beforeEach(() => (nextRank = 0));

  it('fills Current up to the velocity, then opens an iteration at the first story that would overflow (7 then 9 at 8)', () => {
    const open = [story('unstarted', 3), story('unstarted', 2), story('unstarted', 2), story('unstarted', 3), story('unstarted', 3), story('unstarted', 3), story('unstarted', 1)];
    const planned = plan(open, 8);
    expect(planned.map((iteration) => iteration.number)).to.deep.equal([3, 4, 5]);
    expect(numbers(planned)).to.deep.equal([[1, 2, 3], [4, 5], [6, 7]]);
  });

  it('pulls started, finished, delivered, rejected and planned stories into Current wherever they sit, and shows Current in priority order', () => {
    const open = [story('unstarted', 3), story('unstarted', 3), story('started', 3), story('rejected', 1), story('planned', 1)];
    expect(numbers(plan(open, 8))).to.deep.equal([[1, 3, 4, 5], [2]]);
  });

  it('lets unestimated stories flow while the iteration is not over, and gives an oversized story its own iteration', () => {
    const open = [story('unstarted', 8), story('unstarted'), story('unstarted', 3), story('unstarted', 20), story('unstarted', 1)];
    expect(numbers(plan(open, 8))).to.deep.equal([[1, 2], [3], [4], [5]]);
  });

  it('plans nothing into a Backlog iteration ended with length 0, and never ends on one', () => {
    const withEnded = iterationCalendar('Etc/UTC', dayNumberOfDate('2024-01-01'), 1, [{ number: 4, length: 0 }, { number: 6, length: 0 }]);
    const planned = plan([story('unstarted', 3), story('unstarted', 3), story('unstarted', 3)], 3, { calendar: withEnded });
    expect(planned.map((iteration) => iteration.number)).to.deep.equal([3, 4, 5, 6, 7]);
    expect(numbers(planned)).to.deep.equal([[1], [], [2], [], [3]]);
    nextRank = 0;
    const short = plan([story('unstarted', 3), story('unstarted', 3)], 3, { calendar: withEnded });
    expect(numbers(short)).to.deep.equal([[1], [], [2]]);
    nextRank = 0;
    expect(numbers(plan([story('unstarted', 3)], 3, { calendar: withEnded }))).to.deep.equal([[1]]);
  });

  it('ends with velocity 0: one story per Backlog iteration, a zero-point story after an empty Current', () => {
    const open = [story('unstarted', 0), story('unstarted', 1), story('unstarted', 1), story('unstarted', 0)];
    expect(numbers(plan(open, 0))).to.deep.equal([[1], [2], [3], [4]]);
  });

  it('puts accepted stories first by acceptance time (a back-dated acceptance moves up)', () => {
    const late = story('accepted', 1, { accepted_at: 2000 });
    const early = story('accepted', 1, { accepted_at: 1000 });
    const planned = plan([story('started', 1)], 8, { acceptedInCurrent: [late, early] });
    expect(numbers(planned)).to.deep.equal([[early.id, late.id, 3]]);
  });

  it('keeps unstarted stories out of Current when planning is manual', () => {
    const open = [story('unstarted', 1), story('planned', 2), story('unstarted', 1)];
    expect(numbers(plan(open, 8, { automaticPlanning: false }))).to.deep.equal([[2], [1, 3]]);
  });

  it('scales Current by its team strength and length', () => {
    const halved = iterationCalendar('Etc/UTC', dayNumberOfDate('2024-01-01'), 1, [{ number: 3, team_strength: 0.5 }]);
    const open = [story('unstarted', 2), story('unstarted', 2), story('unstarted', 2)];
    expect(numbers(plan(open, 8, { calendar: halved }))).to.deep.equal([[1, 2], [3]]);
  });
});

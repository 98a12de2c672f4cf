// Properties of the iteration calendar and of planning over generated inputs (fast-check, fixed seed):
// iterations tile time without gaps at local midnights, and planning places every open story exactly
// once, in priority order, within capacity unless a story is alone in its iteration.
import { expect } from 'chai';
import fc from 'fast-check';
import { iterationCalendar, iterationNumberAt, iterationSpan } from '../../../src/domain/iteration/iteration-calendar.js';
import { planIterations, pointsOf, type PlanStory } from '../../../src/domain/iteration/iteration-plan.js';
import { dayNumberOfDate, localDayNumber } from '../../../src/domain/project/time-zone.js';

const ZONES = ['Etc/UTC', 'America/Los_Angeles', 'Europe/Berlin', 'Australia/Sydney', 'America/Sao_Paulo', 'Asia/Kathmandu', 'Pacific/Chatham'];
const SETTINGS = { seed: 15, numRuns: 60 };

describe('iteration properties', () => {
  it('tiles time: each iteration starts at local midnight where the previous one finishes, and numbers its instants', () => {
    const override = fc.record({ number: fc.integer({ min: 1, max: 40 }), length: fc.option(fc.integer({ min: 1, max: 6 }), { nil: undefined }), team_strength: fc.option(fc.double({ min: 0, max: 2, noNaN: true }), { nil: undefined }) });
    fc.assert(
      fc.property(
        fc.constantFrom(...ZONES),
        fc.integer({ min: dayNumberOfDate('2010-01-04'), max: dayNumberOfDate('2030-01-01') }),
        fc.integer({ min: 1, max: 4 }),
        fc.uniqueArray(override, { selector: (o) => o.number, maxLength: 5 }),
        (zone, startDay, length, overrides) => {
          const calendar = iterationCalendar(zone, startDay, length, overrides.map(({ number, length: l, team_strength: t }) => ({ number, ...(l === undefined ? {} : { length: l }), ...(t === undefined ? {} : { team_strength: t }) })));
          let previous = iterationSpan(calendar, 1);
          expect(localDayNumber(zone, previous.start)).to.equal(startDay);
          for (let number = 2; number <= 45; number++) {
            const span = iterationSpan(calendar, number);
            expect(span.start, `start of ${number}`).to.equal(previous.finish);
            expect(localDayNumber(zone, span.start) - localDayNumber(zone, previous.start)).to.equal(7 * previous.length);
            expect(iterationNumberAt(calendar, span.start)).to.equal(number);
            expect(iterationNumberAt(calendar, span.start - 1)).to.equal(number - 1);
            previous = span;
          }
        },
      ),
      SETTINGS,
    );
  });

  it('plans every open story once, in priority order, within capacity unless alone', () => {
    const calendar = iterationCalendar('Etc/UTC', dayNumberOfDate('2024-01-01'), 1);
    const states = ['unstarted', 'unstarted', 'unstarted', 'started', 'finished', 'delivered', 'rejected', 'planned'] as const;
    const story = fc.record({ state: fc.constantFrom(...states), estimate: fc.option(fc.constantFrom(0, 1, 2, 3, 5, 8), { nil: undefined }) });
    fc.assert(
      fc.property(fc.array(story, { maxLength: 60 }), fc.integer({ min: 0, max: 20 }), fc.boolean(), (generated, velocity, automaticPlanning) => {
        const open: PlanStory[] = generated.map(({ state, estimate }, index) => ({
          id: index + 1,
          current_state: state,
          rank: `S${String(1000 - index).padStart(4, '0')}`, // generated bottom-up: priority is the reverse
          ...(estimate === undefined ? {} : { estimate }),
        }));
        const plan = planIterations({ calendar, currentNumber: 5, velocity, automaticPlanning, open: [...open].reverse(), acceptedInCurrent: [] });
        const placed = plan.flatMap((iteration) => iteration.stories.map((s) => s.id));
        expect([...placed].sort((a, b) => a - b)).to.deep.equal(open.map((s) => s.id));
        expect(plan.map((iteration) => iteration.number)).to.deep.equal(plan.map((_, index) => 5 + index));
        const waiting = plan.slice(1).flatMap((iteration) => iteration.stories.map((s) => s.id));
        expect(waiting, 'backlog in priority order').to.deep.equal([...waiting].sort((a, b) => b - a));
        for (const iteration of plan.slice(1)) {
          expect(iteration.stories.every((s) => s.current_state === 'unstarted')).to.equal(true);
          const points = iteration.stories.reduce((sum, s) => sum + pointsOf(s), 0);
          if (iteration.stories.length > 1) expect(points).to.be.at.most(velocity);
        }
        if (!automaticPlanning) expect(plan[0]!.stories.every((s) => s.current_state !== 'unstarted')).to.equal(true);
      }),
      SETTINGS,
    );
  });
});

// Iteration arithmetic in project time zones: local-midnight boundaries on the week start day across
// daylight-saving changes (northern and southern hemispheres, a zone whose clocks skip midnight,
// quarter-hour offsets), overrides of length, and the project start moved back by early acceptances.
import { expect } from 'chai';
import {
  iterationCalendar,
  iterationNumberAt,
  iterationSpan,
  projectIterationCalendar,
} from '../../../src/domain/iteration/iteration-calendar.js';
import { projectStartTime } from '../../../src/domain/project/project-calendar.js';
import { dayNumberOfDate, startOfLocalDay, utcOffsetMs } from '../../../src/domain/project/time-zone.js';

const iso = (ms: number) => new Date(ms).toISOString();
const HOUR = 3_600_000;

describe('time zone days', () => {
  it('starts a day at local midnight, whatever the offset of that date', () => {
    expect(iso(startOfLocalDay('America/Los_Angeles', dayNumberOfDate('2017-03-06')))).to.equal('2017-03-06T08:00:00.000Z');
    expect(iso(startOfLocalDay('America/Los_Angeles', dayNumberOfDate('2017-03-13')))).to.equal('2017-03-13T07:00:00.000Z');
    expect(iso(startOfLocalDay('Asia/Kathmandu', dayNumberOfDate('2024-01-01')))).to.equal('2023-12-31T18:15:00.000Z');
    expect(iso(startOfLocalDay('Etc/UTC', dayNumberOfDate('2024-01-01')))).to.equal('2024-01-01T00:00:00.000Z');
  });

  it('starts a day whose midnight the clocks skip when the clocks jump', () => {
    // Brazil began daylight saving at 00:00 on 2018-11-04: the day began at 01:00 local (-02:00).
    expect(iso(startOfLocalDay('America/Sao_Paulo', dayNumberOfDate('2018-11-04')))).to.equal('2018-11-04T03:00:00.000Z');
    expect(iso(startOfLocalDay('America/Sao_Paulo', dayNumberOfDate('2018-11-05')))).to.equal('2018-11-05T02:00:00.000Z');
  });

  it('reads offsets east and west of Greenwich', () => {
    expect(utcOffsetMs('Europe/Berlin', Date.UTC(2024, 6, 1))).to.equal(2 * HOUR);
    expect(utcOffsetMs('Europe/Berlin', Date.UTC(2024, 0, 1))).to.equal(HOUR);
    expect(utcOffsetMs('America/New_York', Date.UTC(2024, 0, 1))).to.equal(-5 * HOUR);
  });
});

describe('iteration calendar', () => {
  // The recorded project (facts §7.1): start 2014-02-10, Monday, one-week iterations, Pacific time.
  const recorded = projectIterationCalendar(
    { start_date: '2014-02-10', week_start_day: 'Monday', iteration_length: 1, time_zone: { olson_name: 'America/Los_Angeles' } },
    [],
  );

  it('numbers the recorded iterations as the real service did, boundaries moving with DST', () => {
    expect(iso(iterationSpan(recorded, 1).start)).to.equal('2014-02-10T08:00:00.000Z');
    expect(iterationNumberAt(recorded, Date.parse('2017-05-03T12:00:00Z'))).to.equal(169);
    expect(iterationNumberAt(recorded, Date.parse('2019-07-08T12:00:00Z'))).to.equal(283);
    const winter = iterationSpan(recorded, 161);
    const summer = iterationSpan(recorded, 162);
    expect([iso(winter.start), iso(winter.finish)]).to.deep.equal(['2017-03-06T08:00:00.000Z', '2017-03-13T07:00:00.000Z']);
    expect(iso(summer.start)).to.equal('2017-03-13T07:00:00.000Z');
    expect(winter.finish - winter.start).to.equal(7 * 24 * HOUR - HOUR);
  });

  it('changes iteration exactly at local midnight, not at a fixed UTC hour', () => {
    const boundary = iterationSpan(recorded, 162).start;
    expect(iterationNumberAt(recorded, boundary - 1)).to.equal(161);
    expect(iterationNumberAt(recorded, boundary)).to.equal(162);
  });

  it('keeps boundaries on local midnight through both DST changes of Berlin and Sydney', () => {
    for (const [zone, startDate] of [
      ['Europe/Berlin', '2024-03-25'],
      ['Australia/Sydney', '2024-03-25'],
    ] as const) {
      const calendar = projectIterationCalendar({ start_date: startDate, week_start_day: 'Monday', iteration_length: 1, time_zone: { olson_name: zone } }, []);
      for (let number = 1; number <= 40; number++) {
        const span = iterationSpan(calendar, number);
        const local = new Intl.DateTimeFormat('en-GB', { timeZone: zone, weekday: 'long', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(new Date(span.start));
        expect(local, `${zone} iteration ${number}`).to.equal('Monday 00:00');
        expect(iterationNumberAt(calendar, span.start)).to.equal(number);
        expect(iterationNumberAt(calendar, span.finish - 1)).to.equal(number);
      }
    }
  });

  it('stretches and shrinks iterations by override and shifts every later boundary', () => {
    const day = dayNumberOfDate('2024-01-01');
    const calendar = iterationCalendar('Etc/UTC', day, 2, [{ number: 3, length: 1 }, { number: 5, length: 4, team_strength: 0.5 }, { number: 6, team_strength: 0 }]);
    const starts = [1, 2, 3, 4, 5, 6, 7].map((number) => iso(iterationSpan(calendar, number).start).slice(0, 10));
    expect(starts).to.deep.equal(['2024-01-01', '2024-01-15', '2024-01-29', '2024-02-05', '2024-02-19', '2024-03-18', '2024-04-01']);
    expect(iterationSpan(calendar, 5)).to.include({ length: 4, team_strength: 0.5 });
    expect(iterationSpan(calendar, 6)).to.include({ length: 2, team_strength: 0 });
    for (let number = 1; number <= 7; number++) {
      const span = iterationSpan(calendar, number);
      expect(iterationNumberAt(calendar, span.start), `start of ${number}`).to.equal(number);
      expect(iterationNumberAt(calendar, span.finish - 1), `end of ${number}`).to.equal(number);
    }
    expect(iterationNumberAt(calendar, Date.UTC(2023, 11, 1))).to.equal(1);
  });

  it('moves the start back to the week start before an earlier acceptance, in the project zone', () => {
    const project = { start_date: '2024-01-08', week_start_day: 'Monday', time_zone: { olson_name: 'America/New_York' } };
    expect(iso(projectStartTime(project))).to.equal('2024-01-08T05:00:00.000Z');
    // Accepted Sunday 2023-12-31 22:00 New York time (03:00Z on Monday in UTC): the New York week starts on 2023-12-25.
    expect(iso(projectStartTime(project, Date.parse('2024-01-01T03:00:00Z')))).to.equal('2023-12-25T05:00:00.000Z');
    expect(iso(projectStartTime(project, Date.parse('2024-02-01T00:00:00Z')))).to.equal('2024-01-08T05:00:00.000Z');
    // Without a start date: the creation day, moved back to the week start day, in the zone.
    const created = { created_at: Date.parse('2024-01-08T03:00:00Z'), week_start_day: 'Monday', time_zone: { olson_name: 'America/New_York' } };
    expect(iso(projectStartTime(created))).to.equal('2024-01-01T05:00:00.000Z');
  });
});

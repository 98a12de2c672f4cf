// Iterations, analytics, cycle time and transitions as the queries answer them over the live read
// models, for a history built through the real deciders and projected by the projector runner; then the
// same answers after rebuilding the iteration and analytics projections from scratch, and from a fresh
// read store.
import { expect } from 'chai';
import type { DomainError } from '../../../src/domain/errors.js';
import { openSqliteEventStore } from '../../../src/infra/event-store/sqlite-event-store.js';
import { ProjectorRunner } from '../../../src/infra/projector/projector-runner.js';
import { createMemoryReadStore } from '../../../src/infra/read-store/memory-read-store.js';
import type { EventStore } from '../../../src/ports/event-store.js';
import { iterationStoriesProjection } from '../../../src/projections/iterations/iteration-stories-projection.js';
import { storyTransitionsProjection } from '../../../src/projections/analytics/story-transitions-projection.js';
import { resourcesProjection } from '../../../src/projections/resources/resources-projection.js';
import { analyticsCsv, cycleTimeDetailsCsv } from '../../../src/queries/analytics/analytics-csv.js';
import { getCycleTimeDetails, getCycleTimeDetailsCsv, getIterationAnalytics, type AnalyticsReads } from '../../../src/queries/analytics/analytics-query.js';
import { listStoryTransitions } from '../../../src/queries/analytics/transitions-query.js';
import { getDailyHistory } from '../../../src/queries/analytics/daily-history-query.js';
import { DAILY_HISTORY_STATES } from '../../../src/domain/iteration/daily-history.js';
import {
  getIteration,
  iterationListParams,
  iterationNumberParam,
  listIterations,
  currentIteration,
  projectIterationFacts,
  storyPlanning,
  type IterationScope,
} from '../../../src/queries/iterations/iterations-query.js';
import { seededRandom } from '../../support/seeded-random.js';
import { ProjectHistory } from './project-history.js';
import { typedReadModels } from '../../../src/projections/documents.js';

const DAY = 86_400_000;
/** Noon (or `hour`) Los Angeles time (UTC-8 in January and February) on `day` of week `week` of 2024. */
const at = (week: number, day = 0, hour = 12) => Date.UTC(2024, 0, 1 + 7 * (week - 1) + day, hour + 8);
const NOW = at(6, 2);

/** The recorded-like project: weekly iterations from Monday 2024-01-01 in Los Angeles. */
function plannedProject(): { history: ProjectHistory; s: Record<number, number> } {
  const history = new ProjectHistory(
    1,
    { name: 'Planned', start_date: '2024-01-01', time_zone: 'America/Los_Angeles', point_scale: '0,1,2,3,5,8', velocity_averaged_over: 3 },
    at(1, 0, 9),
  );
  const s: Record<number, number> = {};
  const estimates = [8, 5, 3, undefined, 8, 2, 1, 3, 5, 2];
  estimates.forEach((estimate, index) => {
    s[index + 1] = history.story(
      { name: `s${index + 1}`, current_state: 'unstarted', ...(estimate === undefined ? { story_type: 'bug' } : { estimate }), ...(index === 7 || index === 6 ? { labels: ['ops'] } : {}) },
      at(1, 0, 10) + index * 1000,
    );
  });
  history.update(s[1]!, { current_state: 'started' }, at(1, 1));
  history.update(s[1]!, { current_state: 'accepted' }, at(1, 3));
  history.update(s[2]!, { current_state: 'started' }, at(2, 1));
  history.update(s[3]!, { current_state: 'accepted' }, at(2, 2, 9));
  history.update(s[2]!, { current_state: 'delivered' }, at(2, 2));
  history.update(s[2]!, { current_state: 'rejected' }, at(2, 3));
  history.update(s[2]!, { current_state: 'started' }, at(2, 4));
  history.update(s[2]!, { current_state: 'accepted' }, at(3, 1));
  history.update(s[5]!, { current_state: 'accepted', accepted_at: at(4, 2) }, at(5, 2)); // back-dated into iteration 4
  history.override(4, { team_strength: 0.5 }, at(5, 3));
  history.update(s[10]!, { current_state: 'started' }, at(6, 1));
  return { history, s };
}

/** A second project with seeded random work over eight weeks (for the rebuild comparison). */
function randomProject(): ProjectHistory {
  const random = seededRandom(15);
  const history = new ProjectHistory(2, { name: 'Random', start_date: '2024-01-01', time_zone: 'Europe/Berlin', iteration_length: 2 }, at(1, 0, 0));
  const ids: number[] = [];
  const states = ['unstarted', 'started', 'finished', 'delivered', 'accepted', 'rejected', 'unscheduled'] as const;
  let time = at(1, 0, 1);
  for (let step = 0; step < 300; step++) {
    time += Math.floor(random() * 4 * 3_600_000) + 1000;
    if (ids.length < 10 || random() < 0.2) {
      ids.push(history.story({ name: `r${step}`, estimate: Math.floor(random() * 4), current_state: random() < 0.5 ? 'unstarted' : 'unscheduled' }, time));
      continue;
    }
    const id = ids[Math.floor(random() * ids.length)]!;
    history.update(id, { current_state: states[Math.floor(random() * states.length)]! }, time);
  }
  return history;
}

describe('iterations, analytics and transitions queries', function () {
  this.timeout(20_000);
  let events: EventStore;
  let runner: ProjectorRunner;
  let s: Record<number, number>;
  let reads: AnalyticsReads & Parameters<typeof listStoryTransitions>[0] & Parameters<typeof getCycleTimeDetailsCsv>[0];
  let head = 0;

  const projections = [resourcesProjection, iterationStoriesProjection, storyTransitionsProjection];
  function readsOf(source: ProjectorRunner): typeof reads {
    const read = typedReadModels((name) => source.collection(name));
    return {
      projects: read('projects'),
      stories: read('stories'),
      iterationOverrides: read('iteration_overrides'),
      iterationStories: read('iteration_stories'),
      storyTransitions: read('story_transitions'),
      storyHistory: read('story_history'),
      labels: read('labels'),
      people: read('people'),
    };
  }

  before(async () => {
    events = await openSqliteEventStore({ path: ':memory:', pollIntervalMs: 20 });
    const planned = plannedProject();
    s = planned.s;
    for (const history of [planned.history, randomProject()]) {
      for (const event of history.events) head = (await events.append(history.stream, 'any', [event])).position;
    }
    runner = new ProjectorRunner({ eventStore: events, readStore: createMemoryReadStore(), projections });
    await runner.start();
    await runner.waitFor(head);
    reads = readsOf(runner);
  });
  after(async () => {
    await runner.stop();
    await events.close();
  });

  const list = (scope: IterationScope | undefined, offset = 0, limit = 10, projectId = 1, now = NOW) =>
    listIterations(reads, { projectId, ...(scope ? { scope } : {}), offset, limit, now });
  const summary = (iteration: Awaited<ReturnType<typeof getIteration>>) => ({
    number: iteration.number,
    stories: iteration.story_ids,
    points: iteration.points,
    accepted_points: iteration.accepted_points,
    velocity: iteration.velocity,
  });

  it('answers the project facts: start_time, current iteration, current velocity', async () => {
    expect(await projectIterationFacts(reads, 1, NOW)).to.deep.equal({
      start_time: Date.parse('2024-01-01T08:00:00Z'),
      current_iteration_number: 6,
      current_velocity: 7, // (5 + 8 / 0.5 + 0) / 3 weeks
    });
  });

  it('lists every iteration: done from acceptances (a back-dated one in its own week), Current and Backlog planned by velocity', async () => {
    const page = await list(undefined);
    expect({ total: page.total, returned: page.returned, offset: page.offset, limit: page.limit }).to.deep.equal({ total: 8, returned: 8, offset: 0, limit: 10 });
    expect(page.iterations.map(summary)).to.deep.equal([
      { number: 1, stories: [s[1]], points: 8, accepted_points: 8, velocity: 10 },
      { number: 2, stories: [s[3]], points: 3, accepted_points: 3, velocity: 8 },
      { number: 3, stories: [s[2]], points: 5, accepted_points: 5, velocity: 5 },
      { number: 4, stories: [s[5]], points: 8, accepted_points: 8, velocity: 5 },
      { number: 5, stories: [], points: 0, accepted_points: 0, velocity: 8 },
      { number: 6, stories: [s[10], s[4], s[6], s[7]], points: 5, accepted_points: 0, velocity: 7 },
      { number: 7, stories: [s[8]], points: 3, accepted_points: 0, velocity: 7 },
      { number: 8, stories: [s[9]], points: 5, accepted_points: 0, velocity: 7 },
    ]);
    const fourth = page.iterations[3]!;
    expect(fourth).to.include({ kind: 'iteration', project_id: 1, length: 1, team_strength: 0.5, effective_points: 16 });
    expect([new Date(fourth.start).toISOString(), new Date(fourth.finish).toISOString()]).to.deep.equal(['2024-01-22T08:00:00.000Z', '2024-01-29T08:00:00.000Z']);
    expect(fourth.stories.map((story) => story['name'])).to.deep.equal(['s5']);
  });

  it('answers each scope with its total, counts negative done offsets back from Current, and pages past the end empty', async () => {
    const numbers = async (scope: IterationScope | undefined, offset = 0, limit = 10) => {
      const page = await list(scope, offset, limit);
      return { numbers: page.iterations.map((iteration) => iteration.number), total: page.total };
    };
    expect(await numbers('done')).to.deep.equal({ numbers: [1, 2, 3, 4, 5], total: 5 });
    expect(await numbers('current')).to.deep.equal({ numbers: [6], total: 1 });
    expect(await numbers('backlog')).to.deep.equal({ numbers: [7, 8], total: 2 });
    expect(await numbers('current_backlog')).to.deep.equal({ numbers: [6, 7, 8], total: 3 });
    expect(await numbers('done_current')).to.deep.equal({ numbers: [1, 2, 3, 4, 5, 6], total: 6 });
    expect(await numbers('done', -2)).to.deep.equal({ numbers: [4, 5], total: 5 });
    expect(await numbers('done', -4, 2)).to.deep.equal({ numbers: [2, 3], total: 5 });
    expect(await numbers(undefined, 6)).to.deep.equal({ numbers: [7, 8], total: 8 });
    expect(await numbers(undefined, 20)).to.deep.equal({ numbers: [], total: 8 });
  });

  it('restricts the embedded stories to a label, keeping the iterations whole', async () => {
    const stories = async (label: string) =>
      (await listIterations(reads, { projectId: 1, scope: 'backlog', offset: 0, limit: 10, now: NOW, label })).iterations.map((i) => [i.number, i.story_ids, i.points]);
    expect(await stories('OPS')).to.deep.equal([[7, [s[8]], 3], [8, [], 5]]);
    expect(await stories('none')).to.deep.equal([[7, [], 3], [8, [], 5]]);
  });

  it('tells where each open story is planned and when its iteration ends', async () => {
    const planning = await storyPlanning(reads, 1, NOW);
    expect(planning.get(s[10]!)).to.deep.equal({ planned_iteration_number: 6, projected_completion: Date.parse('2024-02-12T08:00:00Z') });
    expect(planning.get(s[9]!)).to.deep.equal({ planned_iteration_number: 8, projected_completion: Date.parse('2024-02-26T08:00:00Z') });
    expect(planning.has(s[1]!)).to.equal(false);
  });

  it('answers one iteration, and refuses numbers out of range or not numbers', async () => {
    expect(summary(await getIteration(reads, { projectId: 1, number: 7, now: NOW }))).to.deep.equal({ number: 7, stories: [s[8]], points: 3, accepted_points: 0, velocity: 7 });
    expect(summary(await getIteration(reads, { projectId: 1, number: 2, now: NOW })).stories).to.deep.equal([s[3]]);
    await expectError(getIteration(reads, { projectId: 1, number: 9, now: NOW }), 'unfound_resource');
    await expectError(getIteration(reads, { projectId: 99, number: 1, now: NOW }), 'unfound_resource');
    expect(iterationNumberParam('3')).to.equal(3);
    for (const bad of ['0', '-1', 'two', '1.5', '']) expectThrown(() => iterationNumberParam(bad), 'number');
    expect(iterationListParams({})).to.deep.equal({ offset: 0, limit: 10 });
    expect(iterationListParams({ scope: 'done', offset: '-12', limit: '10000' })).to.deep.equal({ scope: 'done', offset: -12, limit: 500 });
    expectThrown(() => iterationListParams({ scope: 'future' }), 'scope');
    expectThrown(() => iterationListParams({ scope: 'current', offset: '-1' }), 'offset');
    expectThrown(() => iterationListParams({ limit: '0' }), 'limit');
  });

  it('derives analytics and cycle time from the transitions, with the spec CSV columns', async () => {
    const analytics = (number: number, now = NOW) => getIterationAnalytics(reads, { projectId: 1, number, now });
    expect(await analytics(1)).to.deep.equal({ kind: 'analytics', stories_accepted: 1, bugs_created: 1, cycle_time: 2 * DAY, rejection_rate: 0 });
    expect(await analytics(2)).to.include({ stories_accepted: 1, bugs_created: 0, rejection_rate: 0.5 });
    expect(await analytics(3)).to.include({ stories_accepted: 1, cycle_time: 7 * DAY, rejection_rate: 0 });
    const [row] = await getCycleTimeDetails(reads, { projectId: 1, number: 3, now: NOW });
    expect(row!.details).to.deep.equal({
      kind: 'cycle_time_details', story_id: s[2], total_cycle_time: 7 * DAY,
      started_time: 5 * DAY, started_count: 2, finished_time: 0, finished_count: 0,
      delivered_time: DAY, delivered_count: 1, rejected_time: DAY, rejected_count: 1,
    });
    const current = await getCycleTimeDetails(reads, { projectId: 1, number: 6, now: NOW });
    expect(current.map(({ details }) => [details.story_id, details.total_cycle_time, details.started_time])).to.deep.equal([
      [s[10], DAY, DAY], [s[4], undefined, 0], [s[6], undefined, 0], [s[7], undefined, 0],
    ]);
    expect(analyticsCsv(await analytics(1))).to.equal(`stories_accepted,bugs_created,cycle_time,rejection_rate\r\n1,1,${2 * DAY},0\r\n`);
    const csv = cycleTimeDetailsCsv([row!], { labelName: new Map(), personName: new Map() }).split('\r\n');
    expect(csv[0]).to.equal('State,Type,Estimate,Title,ID,Labels,Total Cycle Time (Seconds),Started Time (Seconds),Started Count,Finished Time (Seconds),Finished Count,Delivered Time (Seconds),Delivered Count,Rejected Time (Seconds),Rejected Count,Owned By,Owned By');
    expect(csv[1]).to.equal(`accepted,feature,5,s2,${s[2]},,${7 * 86_400},${5 * 86_400},2,0,0,86400,1,86400,1,,`);
  });

  it('renders the cycle time CSV of an iteration with its label names', async () => {
    const lines = (await getCycleTimeDetailsCsv(reads, { projectId: 1, number: 6, now: NOW })).split('\r\n');
    expect(lines).to.have.length(6);
    expect(lines[1]).to.equal(`started,feature,2,s10,${s[10]},,86400,86400,1,0,0,0,0,0,0,,`);
    expect(lines[4]).to.equal(`unstarted,feature,1,s7,${s[7]},ops,,0,0,0,0,0,0,0,0,,`);
  });

  it('tallies each day of an iteration by the states its stories had at the end of that day (daily history)', async () => {
    const days = async (number: number, now = NOW) => (await getDailyHistory(reads, { projectId: 1, number, now })).data;
    /** A row from the sparse points and counts per state, in the header's order. */
    const row = (date: string, byState: Record<string, [number, number]>) => [
      date,
      ...DAILY_HISTORY_STATES.map((state) => byState[state]?.[0] ?? 0),
      ...DAILY_HISTORY_STATES.map((state) => byState[state]?.[1] ?? 0),
    ];
    const history = await getDailyHistory(reads, { projectId: 1, number: 1, now: NOW });
    expect(history.kind).to.equal('daily_history_container');
    expect(history.header).to.deep.equal([
      'date', 'points_accepted', 'points_delivered', 'points_finished', 'points_started', 'points_rejected', 'points_planned',
      'points_unstarted', 'points_unscheduled', 'counts_accepted', 'counts_delivered', 'counts_finished', 'counts_started',
      'counts_rejected', 'counts_planned', 'counts_unstarted', 'counts_unscheduled',
    ]);
    // iteration 1 held s1 (8 points) at its end: created Monday, started Tuesday, accepted Thursday (Los Angeles days)
    expect(history.data).to.deep.equal([
      row('2024-01-01', { unstarted: [8, 1] }),
      row('2024-01-02', { started: [8, 1] }),
      row('2024-01-03', { started: [8, 1] }),
      ...['2024-01-04', '2024-01-05', '2024-01-06', '2024-01-07'].map((date) => row(date, { accepted: [8, 1] })),
    ]);
    // iteration 3 held s2, rejected and restarted in iteration 2, accepted on its Tuesday
    expect((await days(3)).slice(0, 2)).to.deep.equal([row('2024-01-15', { started: [5, 1] }), row('2024-01-16', { accepted: [5, 1] })]);
    // s5 was accepted in iteration 5 with an acceptance time back in iteration 4: iteration 4 had ended without it
    expect((await days(4)).map((r) => r.slice(1).every((value) => value === 0))).to.deep.equal(Array(7).fill(true));
    // the current iteration: the stories it holds now (s10, s4, s6, s7), followed back to its first day, up to today
    expect(await days(6)).to.deep.equal([
      row('2024-02-05', { unstarted: [5, 4] }),
      row('2024-02-06', { started: [2, 1], unstarted: [3, 3] }),
      row('2024-02-07', { started: [2, 1], unstarted: [3, 3] }),
    ]);
    expect(await days(6, at(6, 0, 18))).to.have.length(1);
    expect(await days(7)).to.deep.equal([]);
    await expectError(getDailyHistory(reads, { projectId: 1, number: 9, now: NOW }), 'unfound_resource');
    // a done iteration's rows never change: the same a month later
    expect(await days(1, NOW + 30 * DAY)).to.deep.equal(history.data);
  });

  it('answers the same anywhere within one iteration (the date matters only through the current iteration)', async () => {
    const lateInIteration = Date.parse('2024-02-12T07:59:59Z');
    for (const scope of [undefined, 'done', 'current_backlog'] as const) {
      expect(JSON.stringify(await list(scope, 0, 10, 1, lateInIteration))).to.equal(JSON.stringify(await list(scope, 0, 10, 1, NOW)));
    }
    expect(await projectIterationFacts(reads, 1, lateInIteration)).to.deep.equal(await projectIterationFacts(reads, 1, NOW));
    expect((await projectIterationFacts(reads, 1, lateInIteration + 1000)).current_iteration_number).to.equal(7);
  });

  it('tells the current iteration and its span', async () => {
    expect(await currentIteration(reads, 1, NOW)).to.deep.equal({
      number: 6, start: Date.parse('2024-02-05T08:00:00Z'), finish: Date.parse('2024-02-12T08:00:00Z'), length: 1, team_strength: 1,
    });
  });

  it('refuses analytics of iterations that have not started or began more than six months ago', async () => {
    await expectError(getIterationAnalytics(reads, { projectId: 1, number: 7, now: NOW }), 'invalid_parameter');
    await expectError(getCycleTimeDetails(reads, { projectId: 1, number: 1, now: Date.UTC(2024, 6, 2) }), 'invalid_parameter');
    expect(await getIterationAnalytics(reads, { projectId: 1, number: 1, now: Date.UTC(2024, 5, 30) })).to.include({ stories_accepted: 1 });
  });

  it('lists a story\'s transitions oldest first, paged', async () => {
    const page = await listStoryTransitions(reads, { projectId: 1, storyId: s[2]!, offset: 0, limit: 100 });
    expect(page.transitions.map((transition) => transition.state)).to.deep.equal(['unstarted', 'started', 'delivered', 'rejected', 'started', 'accepted']);
    expect(page.transitions[1]).to.deep.equal({ kind: 'story_transition', state: 'started', story_id: s[2], project_id: 1, project_version: 14, occurred_at: at(2, 1), performed_by_id: 1 });
    const second = await listStoryTransitions(reads, { projectId: 1, storyId: s[2]!, offset: 4, limit: 1 });
    expect({ states: second.transitions.map((t) => t.state), total: second.total, returned: second.returned }).to.deep.equal({ states: ['started'], total: 6, returned: 1 });
    await expectError(listStoryTransitions(reads, { projectId: 2, storyId: s[2]!, offset: 0, limit: 10 }), 'unfound_resource');
  });

  it('answers identically after rebuilding the iteration and analytics projections, and from a fresh read store', async () => {
    const answers = async (source: typeof reads) => {
      const out: unknown[] = [];
      for (const projectId of [1, 2]) {
        out.push(await projectIterationFacts(source, projectId, NOW));
        for (const scope of [undefined, 'done', 'current', 'backlog'] as const) {
          out.push(await listIterations(source, { projectId, ...(scope ? { scope } : {}), offset: 0, limit: 500, now: NOW }));
        }
        const current = (await projectIterationFacts(source, projectId, NOW)).current_iteration_number;
        for (let number = 1; number <= current; number++) {
          out.push(await getIterationAnalytics(source, { projectId, number, now: NOW }));
          out.push(await getCycleTimeDetails(source, { projectId, number, now: NOW }));
          out.push(await getDailyHistory(source, { projectId, number, now: NOW }));
        }
      }
      return JSON.stringify(out);
    };
    const live = await answers(reads);
    expect(live).to.include('"kind":"iteration"');
    await runner.rebuild('iterations');
    await runner.rebuild('analytics');
    expect(await answers(reads)).to.equal(live);
    const fresh = new ProjectorRunner({ eventStore: events, readStore: createMemoryReadStore(), projections, batchSize: 13 });
    await fresh.start();
    await fresh.waitFor(head);
    try {
      expect(await answers(readsOf(fresh))).to.equal(live);
    } finally {
      await fresh.stop();
    }
  });
});

async function expectError(promise: Promise<unknown>, code: string): Promise<void> {
  let caught: unknown;
  try {
    await promise;
  } catch (error) {
    caught = error;
  }
  expect((caught as DomainError | undefined)?.code, 'error code').to.equal(code);
}

function expectThrown(run: () => unknown, field: string): void {
  let caught: unknown;
  try {
    run();
  } catch (error) {
    caught = error;
  }
  expect((caught as DomainError | undefined)?.code).to.equal('invalid_parameter');
  expect((caught as DomainError).details.validation_errors?.map((error) => error.field)).to.deep.equal([field]);
}

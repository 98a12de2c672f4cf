// Iterations, overrides, analytics, cycle time and transitions over HTTP (spec "Iterations", facts §3,
// §7, §8, §12): default key sets and JSON types, pagination headers, the project version, bad input
// (4xx error hash, nothing written), access, the byte cache across an iteration boundary, and the same
// answers after a restart on the same data directory.
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { storylineApp } from './support/storyline-app.js';
import { storyTeam, type StoryWorld, type TestPerson } from '../support/project-fixture.js';

const ITERATION_KEYS = ['kind', 'number', 'project_id', 'length', 'team_strength', 'stories', 'start', 'finish'];
const DAY = 86_400_000;

/** Stories of a project starting Monday 2024-01-01; the clock starts Wednesday 2024-01-10 12:00 UTC, in iteration 2. */
async function plannedStories(w: StoryWorld, as: TestPerson, p: number): Promise<number[]> {
  const bodies = [
    { name: 'done', estimate: 3, current_state: 'accepted', accepted_at: '2024-01-03T10:00:00Z', labels: ['ops'] },
    { name: 'going', estimate: 2, current_state: 'started' },
    { name: 'next', estimate: 1, current_state: 'unstarted', labels: ['ops'] },
    { name: 'later', estimate: 3, current_state: 'unstarted' },
  ];
  const ids: number[] = [];
  for (const body of bodies) {
    const res = await w.api('POST', `/projects/${p}/stories`, { as, body });
    expect(res.status, res.text).to.equal(200);
    ids.push(res.json.id);
  }
  return ids;
}

const version = (res: { headers: Record<string, string | string[] | undefined> }) => Number(res.headers['x-tracker-project-version']);
const pagination = (res: { headers: Record<string, string | string[] | undefined> }) =>
  ['total', 'limit', 'offset', 'returned'].map((name) => Number(res.headers[`x-tracker-pagination-${name}`]));

describe('API: iterations', () => {
  let w: StoryWorld;
  let bob: TestPerson;
  let vera: TestPerson;
  let outsider: TestPerson;
  let p: number;
  let ids: number[];
  const start = Date.UTC(2024, 0, 10, 12);

  beforeEach(async () => {
    const team = await storyTeam();
    ({ w, bob, vera } = team);
    outsider = await w.person('olga');
    p = await team.project({ start_date: '2024-01-01' });
    ids = await plannedStories(w, bob, p);
  });
  afterEach(() => w.close());

  it('lists done, current and backlog iterations with the default keys, stories nested, paginated', async () => {
    const res = await w.api('GET', `/projects/${p}/iterations`, { as: vera });
    expect(res.status).to.equal(200);
    expect(pagination(res)).to.deep.equal([3, 10, 0, 3]);
    expect(res.json.map((it: { number: number }) => it.number)).to.deep.equal([1, 2, 3]);
    const [done, current, backlog] = res.json;
    expect(Object.keys(done)).to.deep.equal(ITERATION_KEYS);
    expect(done).to.deep.include({ kind: 'iteration', number: 1, project_id: p, length: 1, team_strength: 1, start: '2024-01-01T00:00:00Z', finish: '2024-01-08T00:00:00Z' });
    expect(done.stories.map((s: { id: number }) => s.id)).to.deep.equal([ids[0]]);
    expect(done.stories[0]).to.include({ kind: 'story', name: 'done', current_state: 'accepted' });
    // velocity 3 (one done iteration of 3 points): the started story and the 1-pointer fill Current
    expect(current.stories.map((s: { id: number }) => s.id)).to.deep.equal([ids[1], ids[2]]);
    expect(backlog.stories.map((s: { id: number }) => s.id)).to.deep.equal([ids[3]]);
    expect(version(res)).to.be.a('number');
  });

  it('selects the scopes, counts a negative done offset back from Current and echoes it', async () => {
    const scoped = async (query: string) => (await w.api('GET', `/projects/${p}/iterations?${query}`, { as: bob })).json.map((it: { number: number }) => it.number);
    expect(await scoped('scope=done')).to.deep.equal([1]);
    expect(await scoped('scope=current')).to.deep.equal([2]);
    expect(await scoped('scope=backlog')).to.deep.equal([3]);
    expect(await scoped('scope=current_backlog')).to.deep.equal([2, 3]);
    expect(await scoped('scope=done_current')).to.deep.equal([1, 2]);
    expect(await scoped('offset=1&limit=1')).to.deep.equal([2]);
    w.clock.now = start + 21 * DAY; // iteration 5: done 1-4
    const back = await w.api('GET', `/projects/${p}/iterations?scope=done&offset=-2&limit=1`, { as: bob });
    expect(back.json.map((it: { number: number }) => it.number)).to.deep.equal([3]);
    expect(pagination(back)).to.deep.equal([4, 1, -2, 1]);
    expect((await w.api('GET', `/projects/${p}/iterations?scope=done&offset=9`, { as: bob })).json).to.deep.equal([]);
  });

  it('gives velocity, points and story ids through fields, nested story fields, and the label filter', async () => {
    const res = await w.api('GET', `/projects/${p}/iterations/2?fields=number,velocity,points,accepted_points,effective_points,story_ids,stories(name)`, { as: bob });
    expect(res.json).to.deep.equal({
      number: 2, velocity: 3, points: 3, accepted_points: 0, effective_points: 3, story_ids: [ids[1], ids[2]],
      stories: [{ id: ids[1], name: 'going' }, { id: ids[2], name: 'next' }],
    });
    const labelled = await w.api('GET', `/projects/${p}/iterations?label=OPS&fields=number,story_ids,points`, { as: bob });
    expect(labelled.json).to.deep.equal([
      { number: 1, story_ids: [ids[0]], points: 3 },
      { number: 2, story_ids: [ids[2]], points: 3 },
      { number: 3, story_ids: [], points: 3 },
    ]);
  });

  it('refuses bad iteration numbers and list parameters with the catalogue error hash', async () => {
    const expectError = async (path: string, status: number, code: string, field?: string) => {
      const res = await w.api('GET', `/projects/${p}/${path}`, { as: bob });
      expect(res.status, path).to.equal(status);
      expect(res.json.kind).to.equal('error');
      expect(res.json.code, path).to.equal(code);
      if (field) expect(res.json.validation_errors.map((e: { field: string }) => e.field), path).to.deep.equal([field]);
    };
    await expectError('iterations/0', 400, 'invalid_parameter', 'number');
    await expectError('iterations/x', 400, 'invalid_parameter', 'number');
    await expectError('iterations/4', 404, 'unfound_resource');
    await expectError('iterations?scope=all', 400, 'invalid_parameter', 'scope');
    await expectError('iterations?offset=-1', 400, 'invalid_parameter', 'offset');
    await expectError('iterations?limit=0', 400, 'invalid_parameter', 'limit');
    await expectError('iterations?limit=ten', 400, 'invalid_parameter', 'limit');
    await expectError('iterations/3/analytics', 400, 'invalid_parameter', 'number');
    // past the last iteration (3, the Backlog's), as Tracker answered
    await expectError('iterations/4/analytics', 404, 'unfound_resource');
    await expectError('iterations/99/analytics.csv', 404, 'unfound_resource');
    await expectError('iterations/4/analytics/cycle_time_details', 404, 'unfound_resource');
    await expectError('iterations/0/analytics/cycle_time_details.csv', 400, 'invalid_parameter', 'number');
    await expectError(`stories/${ids[0]! + 100}/transitions`, 404, 'unfound_resource');
    await expectError(`stories/${ids[0]}/transitions?limit=-1`, 400, 'invalid_parameter', 'limit');
  });

  it('keeps private iterations from non-members and writes from viewers', async () => {
    for (const path of ['iterations', 'iterations/1', 'iterations/1/analytics', 'iterations/1/analytics.csv', `stories/${ids[0]}/transitions`]) {
      const res = await w.api('GET', `/projects/${p}/${path}`, { as: outsider });
      expect(res.status, path).to.be.oneOf([403, 404]);
      expect(res.json.kind).to.equal('error');
    }
    const before = version(await w.api('GET', `/projects/${p}`, { as: bob }));
    const refused = await w.api('PUT', `/projects/${p}/iteration_overrides/2`, { as: vera, body: { team_strength: 0.5 } });
    expect(refused.status).to.equal(403);
    expect(version(await w.api('GET', `/projects/${p}`, { as: bob }))).to.equal(before);
  });

  it('sets an override on a done iteration: the override answered, the version moved, velocity rescaled', async () => {
    const before = version(await w.api('GET', `/projects/${p}`, { as: bob }));
    const res = await w.api('PUT', `/projects/${p}/iteration_overrides/1`, { as: bob, body: { team_strength: 0.5 } });
    expect(res.status, res.text).to.equal(200);
    expect(res.json).to.deep.equal({ kind: 'iteration_override', number: 1, project_id: p, length: 1, team_strength: 0.5 });
    expect(version(res)).to.equal(before + 1);
    const current = await w.api('GET', `/projects/${p}/iterations/2?fields=velocity,team_strength`, { as: bob });
    expect(current.json).to.deep.equal({ velocity: 6, team_strength: 1 });
    expect((await w.api('GET', `/projects/${p}/iterations/1?fields=team_strength,effective_points`, { as: bob })).json).to.deep.equal({ team_strength: 0.5, effective_points: 6 });
    const reset = await w.api('PUT', `/projects/${p}/iteration_overrides/1`, { as: bob, body: { team_strength: null, length: 2 } });
    expect(reset.json).to.deep.equal({ kind: 'iteration_override', number: 1, project_id: p, length: 2, team_strength: 1 });
  });

  it('ends the current iteration with length 0: the next one is current at once, on the same weeks', async () => {
    const current = async () => (await w.api('GET', `/projects/${p}/iterations?scope=current&fields=number,start,finish,length,story_ids,velocity`, { as: bob })).json;
    expect(await current()).to.deep.equal([
      { number: 2, start: '2024-01-08T00:00:00Z', finish: '2024-01-15T00:00:00Z', length: 1, story_ids: [ids[1], ids[2]], velocity: 3 },
    ]);
    const before = version(await w.api('GET', `/projects/${p}`, { as: bob }));
    const ended = await w.api('PUT', `/projects/${p}/iteration_overrides/2`, { as: bob, body: { length: 0 } });
    expect(ended.status, ended.text).to.equal(200);
    expect(ended.json).to.deep.equal({ kind: 'iteration_override', number: 2, project_id: p, length: 0, team_strength: 1 });
    expect(version(ended)).to.equal(before + 1);
    // iteration 3 takes the weeks iteration 2 had; the ended one is done, empty, and left out of velocity
    expect(await current()).to.deep.equal([
      { number: 3, start: '2024-01-08T00:00:00Z', finish: '2024-01-15T00:00:00Z', length: 1, story_ids: [ids[1], ids[2]], velocity: 3 },
    ]);
    const done = await w.api('GET', `/projects/${p}/iterations?scope=done&fields=number,start,finish,length,story_ids,effective_points`, { as: bob });
    expect(done.json).to.deep.equal([
      { number: 1, start: '2024-01-01T00:00:00Z', finish: '2024-01-08T00:00:00Z', length: 1, story_ids: [ids[0]], effective_points: 3 },
      { number: 2, start: '2024-01-08T00:00:00Z', finish: '2024-01-08T00:00:00Z', length: 0, story_ids: [], effective_points: 0 },
    ]);
    expect((await w.api('GET', `/projects/${p}?fields=current_iteration_number`, { as: bob })).json.current_iteration_number).to.equal(3);
    // the next week is iteration 4 now; ending 3 as well makes 4 current, and 2 cannot take 0 again once done
    w.clock.now = start + 7 * DAY;
    expect((await current())[0]).to.include({ number: 4, start: '2024-01-15T00:00:00Z' });
    expect((await w.api('PUT', `/projects/${p}/iteration_overrides/3`, { as: bob, body: { length: 0 } })).status).to.equal(400);
    expect((await w.api('PUT', `/projects/${p}/iteration_overrides/4`, { as: bob, body: { length: 0 } })).status).to.equal(200);
    expect((await current())[0]).to.include({ number: 5, start: '2024-01-15T00:00:00Z', finish: '2024-01-22T00:00:00Z' });
    // giving the ended iteration 2 its length again moves the numbers back (4 stays ended, zero weeks)
    expect((await w.api('PUT', `/projects/${p}/iteration_overrides/2`, { as: bob, body: { length: null } })).status).to.equal(200);
    expect((await current())[0]).to.include({ number: 3, start: '2024-01-15T00:00:00Z', finish: '2024-01-22T00:00:00Z' });
  });

  it('refuses overrides of iterations not started, unknown keys and bad values, writing nothing', async () => {
    const before = version(await w.api('GET', `/projects/${p}`, { as: bob }));
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['3', { length: 2 }, 'number'],
      ['0', { length: 2 }, 'number'],
      ['x', { length: 2 }, 'number'],
      ['1', { length: 0 }, 'length'], // 0 ends the CURRENT iteration only
      ['2', { length: -1 }, 'length'],
      ['2', { length: 100 }, 'length'],
      ['3', { length: 0 }, 'number'],
      ['2', { length: 'two' }, 'length'],
      ['2', { team_strength: -1 }, 'team_strength'],
      ['2', { velocity: 4 }, 'velocity'],
    ];
    for (const [number, body, field] of cases) {
      const res = await w.api('PUT', `/projects/${p}/iteration_overrides/${number}`, { as: bob, body });
      expect(res.status, `${number} ${JSON.stringify(body)}`).to.equal(400);
      expect(res.json.code).to.equal('invalid_parameter');
      expect(res.json.validation_errors.map((e: { field: string }) => e.field)).to.include(field);
    }
    expect(version(await w.api('GET', `/projects/${p}`, { as: bob }))).to.equal(before);
  });

  it('counts in bugs_created the bugs whose created_at falls in the iteration, a created_at the client set too', async () => {
    const bugs = async (number: number) => (await w.api('GET', `/projects/${p}/iterations/${number}/analytics`, { as: vera })).json.bugs_created;
    expect([await bugs(1), await bugs(2)]).to.deep.equal([0, 0]);
    // written now (iteration 2), created in iteration 1 as an imported story says
    const imported = await w.api('POST', `/projects/${p}/stories`, { as: bob, body: { name: 'old crash', story_type: 'bug', created_at: '2024-01-02T09:00:00Z' } });
    expect(imported.status, imported.text).to.equal(200);
    await w.api('POST', `/projects/${p}/stories`, { as: bob, body: { name: 'new crash', story_type: 'bug' } });
    await w.api('POST', `/projects/${p}/stories`, { as: bob, body: { name: 'old chore', story_type: 'chore', created_at: '2024-01-02T09:00:00Z' } });
    expect([await bugs(1), await bugs(2)]).to.deep.equal([1, 1]);
  });

  it('gives a story fields=cycle_time_details: its row of the iteration\'s details, moving with the clock (never a stale cached copy)', async () => {
    w.clock.now += 3_600_000;
    await w.api('PUT', `/projects/${p}/stories/${ids[2]}`, { as: bob, body: { current_state: 'started' } });
    w.clock.now += 60_000;
    const rows = (await w.api('GET', `/projects/${p}/iterations/2/analytics/cycle_time_details`, { as: vera })).json;
    const story = await w.api('GET', `/projects/${p}/stories/${ids[2]}?fields=cycle_time_details`, { as: vera });
    expect(story.status, story.text).to.equal(200);
    expect(story.json).to.deep.equal({ id: ids[2], cycle_time_details: rows.find((row: { story_id: number }) => row.story_id === ids[2]) });
    expect(story.json.cycle_time_details).to.include({ kind: 'cycle_time_details', started_time: 60_000, started_count: 1, total_cycle_time: 60_000 });
    w.clock.now += 60_000;
    const later = await w.api('GET', `/projects/${p}/stories/${ids[2]}?fields=cycle_time_details(total_cycle_time)`, { as: vera });
    expect(later.json).to.deep.equal({ id: ids[2], cycle_time_details: { total_cycle_time: 120_000 } });
    const again = await w.api('GET', `/projects/${p}/stories/${ids[2]}?fields=cycle_time_details`, { as: vera });
    expect(again.json.cycle_time_details.started_time).to.equal(120_000);
    // the same row when nested in a list, and none of it by default
    const listed = await w.api('GET', `/projects/${p}/stories?fields=id,cycle_time_details(started_count)`, { as: vera });
    expect(listed.json.find((s: { id: number }) => s.id === ids[3])).to.deep.equal({ id: ids[3], cycle_time_details: { started_count: 0 } });
    expect((await w.api('GET', `/projects/${p}/stories/${ids[2]}`, { as: vera })).json).to.not.have.property('cycle_time_details');
  });

  it('answers the daily history of an iteration: the recorded header, a row per day up to today, floats and ints', async () => {
    const days = (number: string | number, as: TestPerson = vera, query: Record<string, string> = {}) =>
      w.api('GET', `/projects/${p}/history/iterations/${number}/days`, { as, query });
    const zeros = Array(16).fill(0);
    const done = await days(1);
    expect(done.status, done.text).to.equal(200);
    expect(done.json.kind).to.equal('daily_history_container');
    expect(done.json.header).to.deep.equal([
      'date', 'points_accepted', 'points_delivered', 'points_finished', 'points_started', 'points_rejected', 'points_planned',
      'points_unstarted', 'points_unscheduled', 'counts_accepted', 'counts_delivered', 'counts_finished', 'counts_started',
      'counts_rejected', 'counts_planned', 'counts_unstarted', 'counts_unscheduled',
    ]);
    // iteration 1 (Monday 2024-01-01 to Sunday): the story created accepted on the 3rd counts from its acceptance
    const accepted = [3, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0];
    expect(done.json.data).to.deep.equal([
      ['2024-01-01', ...zeros], ['2024-01-02', ...zeros],
      ...['2024-01-03', '2024-01-04', '2024-01-05', '2024-01-06', '2024-01-07'].map((date) => [date, ...accepted]),
    ]);
    // the current iteration, up to today (Wednesday): it holds 'going' and 'next' (velocity 3), which came on the 10th
    const current = await days(2);
    const today = [0, 0, 0, 2, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 1, 0];
    expect(current.json.data).to.deep.equal([['2024-01-08', ...zeros], ['2024-01-09', ...zeros], ['2024-01-10', ...today]]);
    for (const [date, ...values] of current.json.data) {
      expect(date).to.match(/^\d{4}-\d\d-\d\d$/);
      expect(values.slice(8).every((count: number) => Number.isInteger(count))).to.equal(true);
    }
    expect(current.headers['x-tracker-project-version']).to.be.a('string');

    // the next day has its own row (an answer cached yesterday is not served today)
    const before = version(current);
    w.clock.now += DAY;
    await w.api('PUT', `/projects/${p}/stories/${ids[2]}`, { as: bob, body: { current_state: 'started' } });
    const tomorrow = (await days(2)).json.data;
    expect(tomorrow).to.have.length(4);
    expect(tomorrow[3]).to.deep.equal(['2024-01-11', 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0]);
    expect(tomorrow[2]).to.deep.equal(['2024-01-10', ...today]);
    // as the project stood before that write
    const past = await days(2, vera, { as_of_version: String(before) });
    expect(past.json.data[3]).to.deep.equal(['2024-01-11', ...today]);
    // the done iteration's rows did not move
    expect((await days(1)).json.data).to.deep.equal(done.json.data);
  });

  it('refuses bad iteration numbers and strangers on the daily history, writing nothing', async () => {
    const before = version(await w.api('GET', `/projects/${p}`, { as: bob }));
    for (const number of ['0', 'abc', '-1']) {
      const res = await w.api('GET', `/projects/${p}/history/iterations/${number}/days`, { as: bob });
      expect(res.status, number).to.equal(400);
      expect(res.json.code).to.equal('invalid_parameter');
      expect(res.json.validation_errors[0].field).to.equal('number');
    }
    const beyond = await w.api('GET', `/projects/${p}/history/iterations/99/days`, { as: bob });
    expect(beyond.status).to.equal(404);
    expect(beyond.json.code).to.equal('unfound_resource');
    expect((await w.api('GET', `/projects/${p}/history/iterations/1/days`, { as: outsider })).status).to.equal(403);
    expect(version(await w.api('GET', `/projects/${p}`, { as: bob }))).to.equal(before);
  });

  it('answers analytics and cycle time details as JSON and CSV, within six months only', async () => {
    const analytics = await w.api('GET', `/projects/${p}/iterations/1/analytics`, { as: vera });
    expect(analytics.json).to.deep.equal({ kind: 'analytics', stories_accepted: 1, bugs_created: 0, cycle_time: 0, rejection_rate: 0 });
    const csv = await w.api('GET', `/projects/${p}/iterations/1/analytics.csv`, { as: vera });
    expect(csv.headers['content-type']).to.equal('text/csv; charset=utf-8');
    expect(csv.text.split('\r\n')[0]).to.equal('stories_accepted,bugs_created,cycle_time,rejection_rate');

    w.clock.now += 3_600_000;
    await w.api('PUT', `/projects/${p}/stories/${ids[2]}`, { as: bob, body: { current_state: 'started' } });
    const details = await w.api('GET', `/projects/${p}/iterations/2/analytics/cycle_time_details`, { as: vera });
    expect(details.json.map((d: { story_id: number }) => d.story_id)).to.deep.equal([ids[1], ids[2]]);
    expect(details.json[1]).to.deep.equal({
      kind: 'cycle_time_details', story_id: ids[2], total_cycle_time: 0, started_time: 0, started_count: 1, finished_time: 0, finished_count: 0,
      delivered_time: 0, delivered_count: 0, rejected_time: 0, rejected_count: 0,
    });
    w.clock.now += 60_000;
    const later = await w.api('GET', `/projects/${p}/iterations/2/analytics/cycle_time_details?fields=story_id,started_time`, { as: vera });
    expect(later.json[1]).to.deep.equal({ story_id: ids[2], started_time: 60_000 });
    const detailsCsv = await w.api('GET', `/projects/${p}/iterations/2/analytics/cycle_time_details.csv`, { as: vera });
    expect(detailsCsv.headers['content-type']).to.equal('text/csv; charset=utf-8');
    expect(detailsCsv.text.split('\r\n')[0]).to.equal(
      'State,Type,Estimate,Title,ID,Labels,Total Cycle Time (Seconds),Started Time (Seconds),Started Count,Finished Time (Seconds),Finished Count,' +
        'Delivered Time (Seconds),Delivered Count,Rejected Time (Seconds),Rejected Count,Owned By,Owned By',
    );
    expect(detailsCsv.text.split('\r\n').slice(1)).to.deep.equal([
      `started,feature,2,going,${ids[1]},,3660,3660,1,0,0,0,0,0,0,,`,
      `started,feature,1,next,${ids[2]},ops,60,60,1,0,0,0,0,0,0,,`,
      '',
    ]);

    w.clock.now = Date.UTC(2024, 6, 10, 12);
    const old = await w.api('GET', `/projects/${p}/iterations/1/analytics`, { as: vera });
    expect(old.status).to.equal(400);
    expect(old.json.validation_errors[0].field).to.equal('number');
  });

  it('pages a story transitions, oldest first, 100 by default', async () => {
    for (const state of ['started', 'finished', 'delivered']) {
      w.clock.now += 60_000;
      await w.api('PUT', `/projects/${p}/stories/${ids[2]}`, { as: bob, body: { current_state: state } });
    }
    const res = await w.api('GET', `/projects/${p}/stories/${ids[2]}/transitions`, { as: vera });
    expect(pagination(res)).to.deep.equal([4, 100, 0, 4]);
    expect(res.json.map((t: { state: string }) => t.state)).to.deep.equal(['unstarted', 'started', 'finished', 'delivered']);
    expect(res.json[1]).to.deep.equal({
      kind: 'story_transition', state: 'started', story_id: ids[2], project_id: p, project_version: res.json[1].project_version,
      occurred_at: '2024-01-10T12:01:00Z', performed_by_id: bob.id,
    });
    expect(res.json[1].project_version).to.be.a('number');
    const page = await w.api('GET', `/projects/${p}/stories/${ids[2]}/transitions?offset=1&limit=2&date_format=millis`, { as: vera });
    expect(pagination(page)).to.deep.equal([4, 2, 1, 2]);
    expect(page.json.map((t: { occurred_at: number }) => t.occurred_at)).to.deep.equal([start + 60_000, start + 120_000]);
  });

  it('shows the project start_time, current_iteration_number and, on request, current_velocity', async () => {
    const project = await w.api('GET', `/projects/${p}`, { as: vera });
    expect(project.json).to.include({ start_time: '2024-01-01T00:00:00Z', current_iteration_number: 2 });
    expect(project.json).not.to.have.property('current_velocity');
    const fields = await w.api('GET', `/projects/${p}?fields=current_velocity,current_iteration_number`, { as: vera });
    expect(fields.json).to.deep.equal({ id: p, current_velocity: 3, current_iteration_number: 2 });
    // a back-dated acceptance before the start moves the start back to the week start day before it
    await w.api('POST', `/projects/${p}/stories`, { as: bob, body: { name: 'old', estimate: 1, current_state: 'accepted', accepted_at: '2023-12-20T10:00:00Z' } });
    const moved = await w.api('GET', `/projects?fields=start_time,current_iteration_number`, { as: vera });
    expect(moved.json.find((project: { id: number }) => project.id === p)).to.deep.equal({ id: p, start_time: '2023-12-18T00:00:00Z', current_iteration_number: 4 });
  });

  it('shows a story planned_iteration_number and projected_completion when asked, while it is planned', async () => {
    const planned = await w.api('GET', `/projects/${p}/stories?fields=name,planned_iteration_number,projected_completion`, { as: vera });
    const byId = new Map(planned.json.map((story: { id: number }) => [story.id, story]));
    expect(ids.map((id) => byId.get(id))).to.deep.equal([
      { id: ids[0], name: 'done' },
      { id: ids[1], name: 'going', planned_iteration_number: 2, projected_completion: '2024-01-15T00:00:00Z' },
      { id: ids[2], name: 'next', planned_iteration_number: 2, projected_completion: '2024-01-15T00:00:00Z' },
      { id: ids[3], name: 'later', planned_iteration_number: 3, projected_completion: '2024-01-22T00:00:00Z' },
    ]);
    expect((await w.api('GET', `/projects/${p}/stories/${ids[0]}`, { as: vera })).json).not.to.have.property('planned_iteration_number');
  });

  it('serves cached iteration answers until a new iteration starts, though the version has not moved', async () => {
    const first = await w.api('GET', `/projects/${p}/iterations?scope=current&fields=number`, { as: vera });
    const again = await w.api('GET', `/projects/${p}/iterations?scope=current&fields=number`, { as: vera });
    expect(again.headers['etag']).to.equal(first.headers['etag']);
    expect(first.json).to.deep.equal([{ number: 2 }]);
    w.clock.now = start + 5 * DAY; // Monday 2024-01-15 12:00: iteration 3
    const next = await w.api('GET', `/projects/${p}/iterations?scope=current&fields=number`, { as: vera });
    expect(version(next)).to.equal(version(first));
    expect(next.json).to.deep.equal([{ number: 3 }]);
    // velocity is now 1 (3 points over two done iterations): Current holds the started story, then one per iteration
    const story = await w.api('GET', `/projects/${p}/stories/${ids[3]}?fields=planned_iteration_number`, { as: vera });
    expect(story.json).to.deep.equal({ id: ids[3], planned_iteration_number: 5 });
  });
});

describe('API: iterations after a restart', () => {
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), 'storyline-iterations-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('answers iterations, overrides, analytics and transitions the same on the same data directory', async () => {
    const paths = (p: number, story: number) => [
      `/projects/${p}/iterations?fields=:default,velocity,points,effective_points`,
      `/projects/${p}/iterations/1/analytics`,
      `/projects/${p}/iterations/1/analytics/cycle_time_details.csv`,
      `/projects/${p}/stories/${story}/transitions`,
      `/projects/${p}?fields=start_time,current_iteration_number,current_velocity`,
    ];
    const first = await storylineApp({ dataDir: dir });
    const owner = await first.person('Olivia Owner');
    const project = await first.api('POST', '/projects', { as: owner, body: { name: 'Kept', new_account_name: 'Kept Inc', start_date: '2024-01-01' } });
    const p = project.json.id as number;
    const story = await first.api('POST', `/projects/${p}/stories`, { as: owner, body: { name: 'done', estimate: 2, current_state: 'accepted', accepted_at: '2024-01-02T10:00:00Z' } });
    await first.api('POST', `/projects/${p}/stories`, { as: owner, body: { name: 'open', estimate: 1 , current_state: 'started' } });
    expect((await first.api('PUT', `/projects/${p}/iteration_overrides/1`, { as: owner, body: { length: 2 } })).status).to.equal(200);
    const before = await Promise.all(paths(p, story.json.id).map(async (path) => (await first.api('GET', path, { as: owner })).text));
    await first.close();

    const second = await storylineApp({ dataDir: dir });
    const after = await Promise.all(paths(p, story.json.id).map(async (path) => (await second.api('GET', path, { as: owner })).text));
    await second.close();
    expect(after).to.deep.equal(before);
    expect(JSON.parse(before[0]!).map((it: { length: number }) => it.length)).to.deep.equal([2]);
  });
});

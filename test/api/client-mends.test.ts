// What a Tracker client sees, pinned over HTTP (issue 11): whole-second datetimes, the stale-version
// warning on writes, project and story `fields`, label order, `PUT /projects` create-only keys, narrow
// type coercion, and the "edited" activity message for multi-attribute updates.
import { expect } from 'chai';
import { storyWorld, type StoryWorld } from '../support/project-fixture.js';

describe('API: what a Tracker client sees (issue 11)', () => {
  let w: StoryWorld;
  let p: number;
  const zone = process.env['TZ'];

  beforeEach(async () => {
    // A start time with milliseconds: what the service records must still be whole seconds.
    w = await storyWorld(Date.UTC(2024, 0, 10, 12, 0, 0, 789));
    p = await w.project();
  });
  afterEach(async () => {
    if (zone === undefined) delete process.env['TZ'];
    else process.env['TZ'] = zone;
    await w.close();
  });

  it('records datetimes to the whole second, so updated_after=<shown updated_at> does not return the story again', async () => {
    process.env['TZ'] = 'Pacific/Auckland'; // a zone-less parameter is read as UTC whatever the server zone
    const story = (await w.api('POST', `/projects/${p}/stories`, { as: w.owner, body: { name: 'sync me' } })).json;
    expect(story.updated_at).to.equal('2024-01-10T12:00:00Z');
    const millis = (await w.api('GET', `/projects/${p}/stories/${story.id}?date_format=millis`, { as: w.owner })).json;
    expect(millis.created_at).to.equal(Date.UTC(2024, 0, 10, 12));
    expect(millis.updated_at).to.equal(Date.UTC(2024, 0, 10, 12));
    const release = await w.api('POST', `/projects/${p}/stories?date_format=millis`, {
      as: w.owner, body: { name: 'r', story_type: 'release', deadline: 1_704_888_000_456 },
    });
    expect(release.json.deadline, release.text).to.equal(1_704_888_000_000);
    for (const shown of [story.updated_at, '2024-01-10T12:00:00', String(millis.updated_at)]) {
      const again = await w.api('GET', `/projects/${p}/stories?with_story_type=feature&updated_after=${shown}`, { as: w.owner });
      expect(again.json, shown).to.deep.equal([]);
    }
    const activity = (await w.api('GET', `/projects/${p}/activity?date_format=millis`, { as: w.owner })).json;
    expect(activity[0].occurred_at % 1000).to.equal(0);
  });

  it('answers not-stale to a write that names the version before it, and stale to an older one', async () => {
    const before = Number((await w.api('GET', `/projects/${p}`, { as: w.owner })).json.version);
    for (const header of ['X-Tracker-Warn-Unless-Project-Version-Is', 'X-Service-Warn-Unless-Project-Version-Is']) {
      const version = Number((await w.api('GET', `/projects/${p}`, { as: w.owner })).json.version);
      const current = await w.api('POST', `/projects/${p}/stories`, { as: w.owner, headers: { [header]: String(version) }, body: { name: 'x' } });
      expect(current.headers['x-tracker-warning-project-was-stale'], header).to.equal('false');
      expect(current.headers['x-tracker-project-version']).to.equal(String(version + 1));
      const older = await w.api('POST', `/projects/${p}/stories`, { as: w.owner, headers: { [header]: String(before - 1) }, body: { name: 'y' } });
      expect(older.headers['x-tracker-warning-project-was-stale'], header).to.equal('true');
    }
    const version = Number((await w.api('GET', `/projects/${p}`, { as: w.owner })).json.version);
    const enveloped = await w.api('POST', `/projects/${p}/labels?envelope=true`, {
      as: w.owner, headers: { 'X-Tracker-Warn-Unless-Project-Version-Is': String(version) }, body: { name: 'fresh' },
    });
    expect(enveloped.json).to.include({ warning_project_was_stale: false, project_version: version + 1 });
  });

  it('returns the project labels and label ids when fields asks for them', async () => {
    const zeta = (await w.api('POST', `/projects/${p}/labels`, { as: w.owner, body: { name: 'zeta' } })).json;
    const alpha = (await w.api('POST', `/projects/${p}/labels`, { as: w.owner, body: { name: 'alpha' } })).json;
    const plain = (await w.api('GET', `/projects/${p}`, { as: w.owner })).json;
    expect(plain).not.to.have.any.keys('labels', 'label_ids');
    const withLabels = (await w.api('GET', `/projects/${p}?fields=:default,labels`, { as: w.owner })).json;
    expect(withLabels.name).to.equal(plain.name);
    expect(withLabels.labels).to.deep.equal([alpha, zeta]);
    expect((await w.api('GET', `/projects/${p}?fields=labels`, { as: w.owner })).json).to.deep.equal({ id: p, labels: [alpha, zeta] });
    expect((await w.api('GET', `/projects/${p}?fields=label_ids`, { as: w.owner })).json).to.deep.equal({ id: p, label_ids: [alpha.id, zeta.id] });
  });

  it('keeps the default labels when a story fields list names id arrays', async () => {
    const story = (await w.api('POST', `/projects/${p}/stories`, { as: w.owner, body: { name: 's', labels: ['ops'], tasks: [{ description: 't' }] } })).json;
    const res = (await w.api('GET', `/projects/${p}/stories/${story.id}?fields=:default,label_ids,task_ids`, { as: w.owner })).json;
    expect(res.labels.map((label: { name: string }) => label.name)).to.deep.equal(['ops']);
    expect(res.label_ids).to.deep.equal([story.labels[0].id]);
    expect(res.task_ids).to.have.length(1);
    expect(res).to.include.keys('name', 'current_state', 'owner_ids');
  });

  it('lists a story labels by name in the story and its activity', async () => {
    const story = (await w.api('POST', `/projects/${p}/stories`, { as: w.owner, body: { name: 's', labels: ['zulu', 'alpha', 'mike'] } })).json;
    expect(story.labels.map((label: { name: string }) => label.name)).to.deep.equal(['alpha', 'mike', 'zulu']);
    const ids = story.labels.map((label: { id: number }) => label.id);
    expect((await w.api('GET', `/projects/${p}/stories/${story.id}?fields=label_ids`, { as: w.owner })).json.label_ids).to.deep.equal(ids);
    const added = (await w.api('PUT', `/projects/${p}/stories/${story.id}`, { as: w.owner, body: { labels: ['zulu', 'bravo', 'alpha', 'mike'] } })).json;
    expect(added.labels.map((label: { name: string }) => label.name)).to.deep.equal(['alpha', 'bravo', 'mike', 'zulu']);
    const [update] = (await w.api('GET', `/projects/${p}/activity?limit=1`, { as: w.owner })).json;
    const change = update.changes.find((c: { kind: string }) => c.kind === 'story');
    expect(change.new_values.labels).to.deep.equal(['alpha', 'bravo', 'mike', 'zulu']);
    expect(change.new_values.label_ids).to.deep.equal(added.labels.map((label: { id: number }) => label.id));
    // The CSV Labels column follows label_ids: pinned in releases.test.ts (labels given 'b', 'a' read "a, b").
  });

  it('refuses no_owner and new_account_name on PUT /projects and changes nothing', async () => {
    const before = (await w.api('GET', `/projects/${p}`, { as: w.owner })).json;
    for (const body of [{ no_owner: true }, { new_account_name: 'Elsewhere', name: 'Renamed' }, { account_id: before.account_id + 1 }]) {
      const res = await w.api('PUT', `/projects/${p}`, { as: w.owner, body });
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.json.code).to.equal('invalid_parameter');
      expect(res.json.validation_errors[0].field).to.equal(Object.keys(body)[0]);
    }
    expect((await w.api('GET', `/projects/${p}`, { as: w.owner })).json).to.deep.equal(before);
    const same = await w.api('PUT', `/projects/${p}`, { as: w.owner, body: { account_id: before.account_id, name: 'Kept account' } });
    expect(same.status).to.equal(200);
  });

  it('coerces only strings: a numeric string for a number is read, booleans and numbers in the wrong place are refused', async () => {
    const refusals: Array<[Record<string, unknown>, string]> = [
      [{ name: 's', estimate: true }, 'estimate'],
      [{ name: 's', estimate: 'three' }, 'estimate'],
      [{ name: 1234 }, 'name'],
      [{ name: 's', labels: [7] }, 'labels'],
      [{ name: 's', owner_ids: [false] }, 'owner_ids'],
      [{ name: 's', tasks: [{ description: 't', complete: 1 }] }, 'tasks'],
    ];
    for (const [body, field] of refusals) {
      const res = await w.api('POST', `/projects/${p}/stories`, { as: w.owner, body });
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.json.code).to.equal('invalid_parameter');
      expect(res.json.validation_errors[0].field, JSON.stringify(body)).to.equal(field);
    }
    const accepted = await w.api('POST', `/projects/${p}/stories`, { as: w.owner, body: { name: 's', estimate: '3', tasks: [{ description: 't', complete: 'true' }] } });
    expect(accepted.status, accepted.text).to.equal(200);
    expect(accepted.json.estimate).to.equal(3);
    expect((await w.api('GET', `/projects/${p}/stories?limit=1`, { as: w.owner })).status).to.equal(200);
  });

  it('reads "edited this feature" when one update changes the estimate and the labels', async () => {
    const story = (await w.api('POST', `/projects/${p}/stories`, { as: w.owner, body: { name: 's' } })).json;
    await w.api('PUT', `/projects/${p}/stories/${story.id}`, { as: w.owner, body: { estimate: 2, labels: ['ops'] } });
    const [both] = (await w.api('GET', `/projects/${p}/activity?limit=1`, { as: w.owner })).json;
    expect(both).to.include({ highlight: 'edited', message: 'Olivia Owner edited this feature' });
    await w.api('PUT', `/projects/${p}/stories/${story.id}`, { as: w.owner, body: { estimate: 3 } });
    const [alone] = (await w.api('GET', `/projects/${p}/activity?limit=1`, { as: w.owner })).json;
    expect(alone).to.include({ highlight: 'estimated', message: 'Olivia Owner estimated this feature as 3 points' });
  });
});

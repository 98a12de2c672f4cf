// Form-encoded bodies (`application/x-www-form-urlencoded`), as Tracker accepted them on every JSON write:
// values read as the string-typed JSON values it took ("1", "true"), lists as `label_ids[]=` and
// `labels[][name]=`, the same refusals as JSON (wrong types, unknown keys where JSON refuses them),
// nothing written by a refused one, and every other non-JSON type still 415.
import { expect } from 'chai';
import type { TestResponse } from './support/http-client.js';
import { storyWorld, type StoryWorld, type TestPerson } from '../support/project-fixture.js';

const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };
const version = (res: TestResponse) => Number(res.headers['x-tracker-project-version']);

describe('API: form-encoded bodies', () => {
  let w: StoryWorld;
  let p: number;
  let bob: TestPerson;

  before(async () => {
    w = await storyWorld();
    p = await w.project({ name: 'Forms' });
    bob = await w.person('bob');
  });
  after(() => w.close());

  const form = (method: string, path: string, rawBody: string, as: TestPerson = w.owner) => w.api(method, path, { as, headers: FORM, rawBody });
  const projectVersion = async () => version(await w.api('GET', `/projects/${p}`, { as: w.owner }));

  it('creates and updates a story from a form: numbers, booleans-as-text, label names and ids, nested tasks', async () => {
    const label = await form('POST', `/projects/${p}/labels`, 'name=ops');
    expect(label.status, label.text).to.equal(200);
    expect(label.json).to.include({ kind: 'label', name: 'ops' });
    const created = await form(
      'POST',
      `/projects/${p}/stories?fields=name,story_type,estimate,current_state,label_ids,labels(name),tasks(description,complete)`,
      `name=Fix+the+%C3%A9l%C3%A9vator&story_type=feature&estimate=2&current_state=started&label_ids[]=${label.json.id}` +
        '&labels[][name]=backend&labels[][name]=urgent&tasks[][description]=first&tasks[][complete]=true&tasks[][description]=second',
    );
    expect(created.status, created.text).to.equal(200);
    expect(created.json).to.deep.include({ name: 'Fix the élévator', story_type: 'feature', estimate: 2, current_state: 'started' });
    expect(created.json.labels.map((l: { name: string }) => l.name).sort()).to.deep.equal(['backend', 'ops', 'urgent']);
    expect(created.json.tasks.map((t: { description: string; complete: boolean }) => [t.description, t.complete])).to.deep.equal([['first', true], ['second', false]]);

    const updated = await form('PUT', `/projects/${p}/stories/${created.json.id}`, 'estimate=3&description=&labels[]=ops');
    expect(updated.status, updated.text).to.equal(200);
    expect(updated.json).to.include({ estimate: 3 });
    expect(updated.json).not.to.have.property('description');
    expect(updated.json.labels.map((l: { name: string }) => l.name)).to.deep.equal(['ops']);
  });

  it('creates tasks, comments and memberships from forms', async () => {
    const story = (await form('POST', `/projects/${p}/stories`, 'name=Talk')).json;
    const task = await form('POST', `/projects/${p}/stories/${story.id}/tasks`, 'description=check&complete=true&position=1');
    expect(task.status, task.text).to.equal(200);
    expect(task.json).to.include({ description: 'check', complete: true, position: 1 });
    const comment = await form('POST', `/projects/${p}/stories/${story.id}/comments`, 'text=looks+good%0Asecond+line');
    expect(comment.status, comment.text).to.equal(200);
    expect(comment.json.text).to.equal('looks good\nsecond line');
    const membership = await form('POST', `/projects/${p}/memberships`, `person_id=${bob.id}&role=member`);
    expect(membership.status, membership.text).to.equal(200);
    expect(membership.json).to.include({ role: 'member' });
    const changed = await form('PUT', `/projects/${p}/memberships/${membership.json.id}`, 'role=viewer');
    expect(changed.json).to.include({ role: 'viewer' });
  });

  it('refuses what JSON refuses, and what a form cannot say plainly, writing nothing', async () => {
    const story = (await form('POST', `/projects/${p}/stories`, 'name=Kept')).json;
    const before = await projectVersion();
    const refusals: Array<[string, string, string, string]> = [
      ['POST', `/projects/${p}/stories`, 'story_type=bug', 'name'], // required
      ['POST', `/projects/${p}/stories`, 'name=x&estimate=two', 'estimate'],
      ['POST', `/projects/${p}/stories`, 'name=x&label_ids[]=abc', 'label_ids'],
      ['PUT', `/projects/${p}/stories/${story.id}`, 'name=', 'name'],
      ['POST', `/projects/${p}/stories/${story.id}/tasks`, 'description=x&complete=maybe', 'complete'],
      ['POST', `/projects/${p}/stories/${story.id}/comments`, 'text=x&colour=red', 'colour'], // unknown key, as in JSON
      ['POST', `/projects/${p}/stories`, 'name=x&__proto__[estimate]=1', '__proto__'],
      ['POST', `/projects/${p}/stories`, 'name=x&tasks[][notes][]=1', 'tasks'],
    ];
    for (const [method, path, body, field] of refusals) {
      const res = await form(method, path, body);
      expect(res.status, `${body}: ${res.text}`).to.equal(400);
      expect(res.json.kind).to.equal('error');
      expect(res.json.code).to.equal('invalid_parameter');
      expect(res.json.validation_errors.map((e: { field: string }) => e.field), body).to.include(field);
    }
    const viewerWrite = await form('POST', `/projects/${p}/stories`, 'name=x', bob);
    expect(viewerWrite.status).to.equal(403);
    const other = await w.api('POST', `/projects/${p}/stories`, { as: w.owner, headers: { 'Content-Type': 'text/plain' }, rawBody: 'name=x' });
    expect(other.status).to.equal(415);
    expect(other.json.code).to.equal('content_format_not_found');
    expect(await projectVersion()).to.equal(before);
  });
});

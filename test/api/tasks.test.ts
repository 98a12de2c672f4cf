import { expect } from 'chai';
import { storyTeam, type StoryWorld, type TestPerson } from '../support/project-fixture.js';

describe('API: tasks', () => {
  let w: StoryWorld;
  let bob: TestPerson;
  let vera: TestPerson;
  let p: number;

  before(async () => {
    const team = await storyTeam();
    ({ w, bob, vera } = team);
    p = await team.project();
  });
  after(() => w.close());

  async function story(): Promise<number> {
    return (await w.api('POST', `/projects/${p}/stories`, { as: bob, body: { name: 'with tasks' } })).json.id;
  }

  async function descriptions(storyId: number): Promise<string[]> {
    const res = await w.api('GET', `/projects/${p}/stories/${storyId}/tasks`, { as: vera });
    expect(res.json.map((t: { position: number }) => t.position)).to.deep.equal(res.json.map((_: unknown, i: number) => i + 1));
    return res.json.map((t: { description: string }) => t.description);
  }

  it('creates tasks last by default or at a position (string-typed values accepted), keeping positions dense', async () => {
    const s = await story();
    const first = await w.api('POST', `/projects/${p}/stories/${s}/tasks`, { as: bob, body: { description: 'b' } });
    expect(first.status).to.equal(200);
    expect(first.json).to.deep.equal({
      kind: 'task', id: first.json.id, story_id: s, description: 'b', complete: false, position: 1,
      created_at: '2024-01-10T12:00:00Z', updated_at: '2024-01-10T12:00:00Z',
    });
    await w.api('POST', `/projects/${p}/stories/${s}/tasks`, { as: bob, body: { description: 'c' } });
    const inserted = await w.api('POST', `/projects/${p}/stories/${s}/tasks`, { as: bob, body: { description: 'a', position: '1', complete: 'true' } });
    expect(inserted.json).to.include({ position: 1, complete: true });
    expect(await descriptions(s)).to.deep.equal(['a', 'b', 'c']);
  });

  it('moves, completes and deletes tasks', async () => {
    const s = await story();
    const ids: number[] = [];
    for (const d of ['one', 'two', 'three']) ids.push((await w.api('POST', `/projects/${p}/stories/${s}/tasks`, { as: bob, body: { description: d } })).json.id);
    const moved = await w.api('PUT', `/projects/${p}/stories/${s}/tasks/${ids[0]}`, { as: bob, body: { position: 3, complete: 'false' } });
    expect(moved.json).to.include({ position: 3, complete: false });
    expect(await descriptions(s)).to.deep.equal(['two', 'three', 'one']);
    const done = await w.api('PUT', `/projects/${p}/stories/${s}/tasks/${ids[1]}`, { as: bob, body: { complete: true, description: 'TWO' } });
    expect(done.json).to.include({ complete: true, description: 'TWO', position: 1 });
    const single = await w.api('GET', `/projects/${p}/stories/${s}/tasks/${ids[1]}`, { as: vera });
    expect(single.json.description).to.equal('TWO');
    const deleted = await w.api('DELETE', `/projects/${p}/stories/${s}/tasks/${ids[1]}`, { as: bob });
    expect(deleted.status).to.equal(204);
    expect(await descriptions(s)).to.deep.equal(['three', 'one']);
    expect((await w.api('GET', `/projects/${p}/stories/${s}/tasks/${ids[1]}`, { as: bob })).status).to.equal(404);
    const other = await story();
    expect((await w.api('GET', `/projects/${p}/stories/${other}/tasks/${ids[0]}`, { as: bob })).status).to.equal(404);
    expect((await w.api('PUT', `/projects/${p}/stories/${s}/tasks/${ids[0]}`, { as: vera, body: { complete: true } })).status).to.equal(403);
  });

  it('answers the service messages for bad positions and descriptions', async () => {
    const s = await story();
    const task = (await w.api('POST', `/projects/${p}/stories/${s}/tasks`, { as: bob, body: { description: 'only' } })).json;
    const problem = async (method: string, path: string, body: Record<string, unknown>) => {
      const res = await w.api(method, path, { as: bob, body });
      expect(res.status, JSON.stringify(body)).to.equal(400);
      return res.json.validation_errors[0];
    };
    const tasks = `/projects/${p}/stories/${s}/tasks`;
    expect(await problem('POST', tasks, { description: 'x', position: 3 })).to.deep.equal({
      field: 'position', problem: 'Task position can not be greater than the number of tasks in the story plus 1',
    });
    expect(await problem('PUT', `${tasks}/${task.id}`, { position: 2 })).to.deep.equal({
      field: 'position', problem: 'Task position can not be greater than the number of tasks in the story',
    });
    expect(await problem('POST', tasks, { description: 'x', position: 'first' })).to.deep.equal({ field: 'position', problem: "'position' must be an integer value" });
    expect(await problem('POST', tasks, { description: 'x', position: 0 })).to.deep.equal({ field: 'position', problem: 'Task position must be 1 or greater.' });
    expect(await problem('POST', tasks, { description: '' })).to.deep.equal({ field: 'description', problem: "Description can't be blank" });
    expect(await problem('POST', tasks, {})).to.deep.equal({ field: 'description', problem: 'this endpoint requires the parameter: description' });
    const long = await w.api('POST', tasks, { as: bob, body: { description: 'x'.repeat(1001) } });
    expect(long.json.requirement).to.equal("'description' parameter must be 1000 characters or less.");
  });

  it('refuses task writes when the project has tasks turned off, but still lists them', async () => {
    const q = await w.project({ enable_tasks: false });
    const s = (await w.api('POST', `/projects/${q}/stories`, { as: w.owner, body: { name: 'no tasks' } })).json.id;
    const res = await w.api('POST', `/projects/${q}/stories/${s}/tasks`, { as: w.owner, body: { description: 'x' } });
    expect(res.status).to.equal(400);
    expect(res.json.validation_errors[0]).to.deep.equal({ field: 'enable_tasks', problem: 'Tasks are disabled in this project.' });
    expect((await w.api('GET', `/projects/${q}/stories/${s}/tasks`, { as: w.owner })).json).to.deep.equal([]);
    expect((await w.api('GET', `/projects/${q}/stories/999999/tasks`, { as: w.owner })).status).to.equal(404);
  });
});

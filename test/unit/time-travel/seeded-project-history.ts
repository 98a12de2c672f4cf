// A seeded history of one project written through the API (story creates, updates, tasks, deletes),
// shared by the time-travel fold and snapshot tests.
import { expect } from 'chai';
import { storylineApp, type PersonHandle, type StorylineApp } from '../../api/support/storyline-app.js';
import { seededRandom } from '../../support/seeded-random.js';

/**
 * Writes `steps` seeded writes into a new project; returns the project id, its final version and its owner.
 * `afterWrite` hears the project, the version each write made and the owner (tests recording live answers).
 */
export async function writeSeededProjectHistory(
  app: StorylineApp,
  steps: number,
  afterWrite?: (written: { project: number; version: number; owner: PersonHandle }) => Promise<void>,
): Promise<{ project: number; version: number; owner: PersonHandle }> {
  const owner = await app.person('Olga Owner');
  const created = await app.api('POST', '/projects', { as: owner, body: { name: 'Folds', new_account_name: 'Folds Inc' } });
  const project = created.json.id as number;
  const random = seededRandom(1616);
  const stories: number[] = [];
  for (let step = 0; step < steps; step++) {
    app.clock.now += 3_600_000;
    const story = stories[Math.floor(random() * stories.length)];
    const roll = random();
    const res =
      story === undefined || roll < 0.3
        ? await app.api('POST', `/projects/${project}/stories`, { as: owner, body: { name: `story ${step}`, labels: [`label ${step % 4}`], estimate: 1 } })
        : roll < 0.6
          ? await app.api('PUT', `/projects/${project}/stories/${story}`, { as: owner, body: { current_state: ['started', 'finished', 'delivered', 'accepted'][step % 4], description: `at ${step}` } })
          : roll < 0.85
            ? await app.api('POST', `/projects/${project}/stories/${story}/tasks`, { as: owner, body: { description: `task ${step}` } })
            : await app.api('DELETE', `/projects/${project}/stories/${story}`, { as: owner });
    expect(res.status, res.text).to.be.oneOf([200, 204]);
    if (res.json?.kind === 'story') stories.push(res.json.id);
    if (story !== undefined && res.status === 204) stories.splice(stories.indexOf(story), 1);
    await afterWrite?.({ project, version: Number(res.headers['x-tracker-project-version']), owner });
  }
  const version = Number((await app.api('GET', `/projects/${project}`, { as: owner })).headers['x-tracker-project-version']);
  return { project, version, owner };
}

/** An in-memory Storyline holding a seeded history of `steps` writes, made before the suite's tests and closed after them. */
export function seededProjectHistorySuite(steps: number): { app: StorylineApp; project: number; version: number } {
  const suite = { app: null as unknown as StorylineApp, project: 0, version: 0 };
  before(async () => {
    suite.app = await storylineApp();
    Object.assign(suite, await writeSeededProjectHistory(suite.app, steps));
  });
  after(() => suite.app.close());
  return suite;
}

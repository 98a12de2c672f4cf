// Projects for the story-family API tests, set up through the public API on a whole in-memory Storyline:
// an owner, a project with chosen settings, and members with roles.
//
//   const world = await storyWorld();
//   const project = await world.project({ name: 'Alpha' });           // owner: world.owner
//   await world.member(project, world.people.bob, 'member');
//   const res = await world.api('POST', `/projects/${project}/stories`, { as: world.owner, body: { name: 'x' } });
import { expect } from 'chai';
import type { RequestOptions, TestResponse } from '../api/support/http-client.js';
import { storylineApp, type PersonHandle } from '../api/support/storyline-app.js';

export type TestPerson = PersonHandle;

export interface StoryWorld {
  owner: TestPerson;
  /** ms the request clock answers; tests move it forward. */
  clock: { now: number };
  /** Creates a project owned by `owner` (in one account per world); returns its id. */
  project(settings?: Record<string, unknown>, as?: TestPerson): Promise<number>;
  /** Adds `person` to the project with `role`. */
  member(projectId: number, person: TestPerson, role: 'owner' | 'member' | 'viewer'): Promise<void>;
  person(username: string): Promise<TestPerson>;
  /** A v5 request (path without prefix) as `as`; the body and status are the test's to check. */
  api(method: string, path: string, options?: RequestOptions & { as?: TestPerson | null }): Promise<TestResponse>;
  close(): Promise<void>;
}

export async function storyWorld(start = Date.UTC(2024, 0, 10, 12)): Promise<StoryWorld> {
  const app = await storylineApp({ start });
  const owner = await app.person('Olivia Owner');
  let accountId: number | null = null;
  let projects = 0;
  const api: StoryWorld['api'] = (method, path, options = {}) => {
    const { as, ...rest } = options;
    return app.api(method, path, as ? { ...rest, as } : rest);
  };
  return {
    owner,
    clock: app.clock,
    async project(settings = {}, as = owner) {
      projects += 1;
      const body = { name: `Project ${projects}`, ...(accountId === null ? { new_account_name: 'Stories Inc' } : { account_id: accountId }), ...settings };
      const res = await api('POST', '/projects', { as, body });
      expect(res.status, res.text).to.equal(200);
      accountId ??= res.json.account_id;
      return res.json.id as number;
    },
    async member(projectId, person, role) {
      const res = await api('POST', `/projects/${projectId}/memberships`, { as: owner, body: { person_id: person.id, role } });
      expect(res.status, res.text).to.equal(200);
    },
    person: (username) => app.person(username.charAt(0).toUpperCase() + username.slice(1)),
    api,
    close: () => app.close(),
  };
}

/** A story world with a member (bob) and a viewer (vera), and projects created with both on them. */
export interface StoryTeam {
  w: StoryWorld;
  bob: TestPerson;
  vera: TestPerson;
  /** A project owned by `w.owner`, with bob as member and vera as viewer. */
  project(settings?: Record<string, unknown>): Promise<number>;
}

export async function storyTeam(): Promise<StoryTeam> {
  const w = await storyWorld();
  const bob = await w.person('bob');
  const vera = await w.person('vera');
  return {
    w,
    bob,
    vera,
    async project(settings = {}) {
      const id = await w.project(settings);
      await w.member(id, bob, 'member');
      await w.member(id, vera, 'viewer');
      return id;
    },
  };
}

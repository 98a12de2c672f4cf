// A whole Storyline (real composition root, every store in memory) behind an HTTP server on an
// ephemeral port, for API tests that go through the public interface end to end.
//
//   const world = await startStoryline();
//   const alice = await world.addPerson('alice');
//   const res = await world.server.request('GET', '/services/v5/me', { headers: alice.headers });
//   await world.close();
import { configFromEnv } from '../../src/infra/config.js';
import { openStoryline, type Storyline } from '../../src/infra/composition.js';
import { startServer, type TestServer } from '../api/support/http-client.js';

export interface TestPerson {
  id: number;
  token: string;
  email: string;
  password: string;
  /** `X-TrackerToken` header for requests made as this person. */
  headers: Record<string, string>;
}

export interface StorylineWorld {
  storyline: Storyline;
  server: TestServer;
  addPerson(username: string, name?: string): Promise<TestPerson>;
  close(): Promise<void>;
}

export async function startStoryline(env: Record<string, string> = {}, clock?: () => number): Promise<StorylineWorld> {
  const config = configFromEnv({ STORYLINE_DATA: ':memory:', PORT: '0', ...env });
  const storyline = await openStoryline(config, undefined, clock ? { clock } : {});
  const server = await startServer(storyline.app);
  return {
    storyline,
    server,
    async addPerson(username, name) {
      const email = `${username}@example.com`;
      const password = `${username}-password`;
      const displayName = name ?? username.charAt(0).toUpperCase() + username.slice(1);
      const { id, api_token } = await storyline.addPerson({ email, name: displayName, password, username });
      return { id, token: api_token, email, password, headers: { 'X-TrackerToken': api_token } };
    },
    async close() {
      await server.close();
      await storyline.close();
    },
  };
}

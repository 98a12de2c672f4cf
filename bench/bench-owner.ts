// The seeding side of the benches: a Storyline opened on a data directory, served on a loopback port for
// the time of `work`, with one owner who can sign in and a POST helper that fails loudly on anything but 200.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openStoryline, type Storyline } from '../src/infra/composition.js';
import type { StorylineConfig } from '../src/infra/config.js';

export const PREFIX = '/services/v5';

export interface BenchOwner {
  storyline: Storyline;
  person: { id: number; api_token: string };
  /** POSTs `body` as the owner under the API prefix; the answer's JSON. */
  post(path: string, body: unknown): Promise<Record<string, unknown>>;
}

export async function withBenchOwner<T>(config: StorylineConfig, work: (owner: BenchOwner) => Promise<T>): Promise<T> {
  const storyline = await openStoryline(config);
  const server = createServer(storyline.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  try {
    const person = await storyline.addPerson({ email: 'bench@example.com', name: 'Bench Runner', password: 'bench-password', username: 'bench' });
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`http://127.0.0.1:${port}${PREFIX}${path}`, {
        method: 'POST',
        headers: { 'X-TrackerToken': person.api_token, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as Record<string, unknown>;
      if (res.status !== 200) throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    return await work({ storyline, person, post });
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await storyline.close();
  }
}

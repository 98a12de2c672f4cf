// A running Storyline for API tests: the real composition root with every store in memory
// (`dataDir: ':memory:'`) and a settable clock, served on an ephemeral port.
import type { LoginThrottleOptions } from '../../../src/api/login-throttle.js';
import type { RouteDefinition } from '../../../src/api/route-table.js';
import { openStoryline, type Storyline } from '../../../src/infra/composition.js';
import { configFromEnv } from '../../../src/infra/config.js';
import type { Log } from '../../../src/infra/log.js';
import type { Reaction } from '../../../src/reactions/reaction.js';
import { startServer, type RequestOptions, type TestResponse, type TestServer } from './http-client.js';

export interface PersonHandle {
  id: number;
  token: string;
  email: string;
  password: string;
}

export interface StorylineApp {
  storyline: Storyline;
  server: TestServer;
  clock: { now: number };
  /** A person added the operator's way (with a password); returns id and token. */
  person(name: string): Promise<PersonHandle>;
  /** A v5 request; `as` sends that person's token in `X-TrackerToken`. */
  api(method: string, path: string, options?: RequestOptions & { as?: PersonHandle }): Promise<TestResponse>;
  close(): Promise<void>;
}

export interface StorylineAppOptions {
  start?: number;
  /** Operator settings, as the environment variables the CLI reads (`STORYLINE_ACTIVITY_WINDOW_MONTHS`, ...). */
  env?: Readonly<Record<string, string>>;
  /** Routes served beside the real ones (probes for access levels no module of this area declares). */
  extraRoutes?: readonly RouteDefinition[];
  /** A data directory on disk instead of memory (tests of what survives the files: export, import). */
  dataDir?: string;
  /** Where the server logs (silent by default); tests of the access log pass a capturing one. */
  log?: Log;
  /** Sign-in throttle thresholds (the defaults otherwise). */
  loginThrottle?: LoginThrottleOptions;
  /** Reactions run beside the real ones. */
  reactions?: readonly Reaction[];
}

export async function storylineApp(options: StorylineAppOptions = {}): Promise<StorylineApp> {
  const start = options.start ?? Date.UTC(2024, 0, 10, 12);
  const clock = { now: start };
  const config = { ...configFromEnv({ ...options.env, STORYLINE_DATA: options.dataDir ?? ':memory:' }), siteUrl: 'http://storyline.test' };
  const extraRoutes = options.extraRoutes ?? [];
  const storyline = await openStoryline(config, options.log, {
    clock: () => clock.now,
    extraModules: extraRoutes.length > 0 ? [() => ({ reference: { tag: 'Test probes', description: 'Routes a test added.' }, routes: [...extraRoutes], types: [] })] : [],
    ...(options.loginThrottle ? { loginThrottle: options.loginThrottle } : {}),
    reactions: options.reactions ?? [],
  });
  storyline.reactions.start();
  const server = await startServer(storyline.app);
  let people = 0;
  return {
    storyline,
    server,
    clock,
    async person(name) {
      people += 1;
      const email = `${name.toLowerCase().replace(/\W+/g, '.')}@example.com`;
      const password = `${name}-password-${people}`;
      const added = await storyline.addPerson({ email, name, password });
      return { id: added.id, token: added.api_token, email, password };
    },
    api(method, path, options = {}) {
      const { as, ...rest } = options;
      const headers = { ...rest.headers, ...(as ? { 'X-TrackerToken': as.token } : {}) };
      return server.request(method, `/services/v5${path}`, { ...rest, headers });
    },
    async close() {
      await server.close();
      await storyline.close();
    },
  };
}

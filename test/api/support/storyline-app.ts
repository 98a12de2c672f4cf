// A running Storyline for the people / accounts / projects / memberships API tests: the lead's composition
// root with every store in memory (`dataDir: ':memory:'`), served on an ephemeral port. The resource
// modules of this area are added to the app when the root's module list does not hold them yet.
import type { RequestListener } from 'node:http';
import { createApp } from '../../../src/api/app.js';
import { resourceTypeRegistry } from '../../../src/api/resource-type.js';
import { accountResources } from '../../../src/api/resources/accounts.js';
import { resourceModules } from '../../../src/api/resources/index.js';
import { meResources } from '../../../src/api/resources/me.js';
import { membershipResources } from '../../../src/api/resources/memberships.js';
import { peopleResources } from '../../../src/api/resources/people.js';
import { projectAccessResolver, projectVersionReader } from '../../../src/api/resources/project-access.js';
import { projectResources } from '../../../src/api/resources/projects.js';
import type { ResourceModuleFactory } from '../../../src/api/resources/resource-module.js';
import type { RouteDefinition } from '../../../src/api/route-table.js';
import { credentialAuthenticator } from '../../../src/commands/authenticator.js';
import { openStoryline, type Storyline } from '../../../src/infra/composition.js';
import { configFromEnv } from '../../../src/infra/config.js';
import { startServer, type RequestOptions, type TestResponse, type TestServer } from './http-client.js';

export const AREA_MODULES: readonly ResourceModuleFactory[] = [meResources, peopleResources, accountResources, projectResources, membershipResources];

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
  /** Routes served beside the real ones (probes for access levels no module of this area declares). */
  extraRoutes?: readonly RouteDefinition[];
}

export async function storylineApp(options: StorylineAppOptions = {}): Promise<StorylineApp> {
  const start = options.start ?? Date.UTC(2024, 0, 10, 12);
  const clock = { now: start };
  const config = { ...configFromEnv({ STORYLINE_DATA: ':memory:' }), siteUrl: 'http://storyline.test' };
  const storyline = await openStoryline(config, undefined, { clock: () => clock.now });
  const server = await startServer(appOf(storyline, () => clock.now, options.extraRoutes ?? []));
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

function appOf(storyline: Storyline, clock: () => number, extraRoutes: readonly RouteDefinition[]): RequestListener {
  const missing = AREA_MODULES.filter((factory) => !resourceModules.includes(factory));
  if (missing.length === 0 && extraRoutes.length === 0) return storyline.app;
  const deps = storyline.deps;
  const modules = [...resourceModules, ...missing].map((factory) => factory(deps));
  return createApp({
    routes: [...modules.flatMap((module) => module.routes), ...extraRoutes],
    resources: resourceTypeRegistry(modules.flatMap((module) => module.types)),
    auth: credentialAuthenticator({ people: deps.read('people'), secrets: deps.secrets }),
    projects: projectAccessResolver(deps),
    projectVersion: projectVersionReader(deps),
    config: { createdStatus: 200, maxBodyBytes: 1024 * 1024, responseCacheEntries: 100 },
    log: { error: (message, details) => process.stderr.write(`${message} ${JSON.stringify(details ?? {})}\n`) },
    clock,
  });
}


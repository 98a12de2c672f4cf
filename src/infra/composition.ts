// The composition root: the one place that chooses adapters and wires every piece together.
// Embedded default: SQLite event log, read models (readmodels.sqlite) and credentials under the data
// directory; `dataDir: ':memory:'` or STORYLINE_READ_STORE=memory keeps the read models in memory.
// Scale-out: KurrentDB and MongoDB when their URLs are set.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Express } from 'express';
import { createApp } from '../api/app.js';
import { resourceTypeRegistry } from '../api/resource-type.js';
import type { RouteDefinition } from '../api/route-table.js';
import { resourceModules } from '../api/resources/index.js';
import { projectAccessResolver, projectVersionReader } from '../api/resources/project-access.js';
import type { ResourceDeps, ResourceModuleFactory } from '../api/resources/resource-module.js';
import { credentialAuthenticator } from '../commands/authenticator.js';
import { CommandHandler } from '../commands/command-handler.js';
import { PeopleCommands } from '../commands/people.js';
import { projections } from '../projections/registry.js';
import type { StorylineConfig } from './config.js';
import { PersonSecrets } from './credentials/person-secrets.js';
import type { CredentialStore } from '../ports/credentials.js';
import { SqliteCredentialStore } from './credentials/sqlite-credential-store.js';
import type { EventStore } from '../ports/event-store.js';
import { openSqliteEventStore } from './event-store/sqlite-event-store.js';
import { IdAllocator } from './id-allocator.js';
import { silentLog, type Log } from './log.js';
import { ProjectorRunner, type CatchUpReport } from './projector/projector-runner.js';
import { createMemoryReadStore } from './read-store/memory-read-store.js';
import { openSqliteReadStore } from './read-store/sqlite-read-store.js';
import type { ReadStore } from '../ports/read-store.js';

export interface Storyline {
  app: Express;
  /** Every route the app serves (tests walk them). */
  routes: readonly RouteDefinition[];
  config: StorylineConfig;
  eventStore: EventStore;
  readStore: ReadStore;
  runner: ProjectorRunner;
  commands: CommandHandler;
  deps: ResourceDeps;
  /** What catching up the read models at start-up read and how long it took. */
  startup: CatchUpReport;
  /** Adds a person who signs in with a password (operator CLI, demo). */
  addPerson(input: { email: string; name: string; password: string; initials?: string; username?: string }): Promise<{ id: number; api_token: string }>;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** Clock for commands and requests (tests). */
  clock?: () => number;
  /** Resource modules served beside the built-in ones (extensions; tests probing access levels). */
  extraModules?: readonly ResourceModuleFactory[];
}

/** `dataDir: ':memory:'` keeps everything in memory (tests). */
export async function openStoryline(config: StorylineConfig, log: Log = silentLog, options: OpenOptions = {}): Promise<Storyline> {
  const clock = options.clock ?? Date.now;
  const inMemory = config.dataDir === ':memory:';
  if (!inMemory) mkdirSync(config.dataDir, { recursive: true });
  const dataFile = (name: string) => (inMemory ? ':memory:' : join(config.dataDir, name));

  const eventStore = await openEventStore(config, dataFile('events.sqlite'));
  const readStore = await openReadStore(config, inMemory ? null : dataFile('readmodels.sqlite'), log);
  const credentials: CredentialStore = new SqliteCredentialStore({ path: dataFile('credentials.sqlite') });

  const runner = new ProjectorRunner({ eventStore, readStore, projections, log });
  const startup = await runner.start();

  const ids = new IdAllocator(eventStore);
  const commands = new CommandHandler({ eventStore, ids, projections: runner });
  const secrets = new PersonSecrets(credentials);
  const read = (name: string) => runner.collection(name);
  const people = new PeopleCommands({ commands, ids, people: read('people'), secrets });
  const deps: ResourceDeps = {
    read,
    waitForPosition: (position) => runner.waitFor(position),
    commands,
    people,
    secrets,
    eventStore,
    ids,
    settings: {
      siteUrl: config.siteUrl,
      activityWindowMonths: config.activityWindowMonths,
      enterpriseActivityWindowMonths: config.enterpriseActivityWindowMonths,
    },
  };

  const modules = [...resourceModules, ...(options.extraModules ?? [])].map((factory) => factory(deps));
  const routes = modules.flatMap((module) => module.routes);
  const app = createApp({
    routes,
    resources: resourceTypeRegistry(modules.flatMap((module) => module.types)),
    auth: credentialAuthenticator({ people: read('people'), secrets }),
    projects: projectAccessResolver(deps),
    projectVersion: projectVersionReader(deps),
    config: {
      createdStatus: config.createdStatus,
      maxBodyBytes: config.maxBodyBytes,
      responseCacheEntries: config.responseCacheEntries,
      ...(config.deprecationWarning ? { deprecationWarning: config.deprecationWarning } : {}),
      ...(config.downtime ? { downtime: config.downtime } : {}),
    },
    log,
    clock,
  });

  let closing: Promise<void> | null = null;
  return {
    app,
    routes,
    config,
    eventStore,
    readStore,
    runner,
    commands,
    deps,
    startup,
    async addPerson(input) {
      const { person, apiToken } = await people.addPerson(input, { commandId: crypto.randomUUID(), actorId: null, now: clock() });
      return { id: person.id, api_token: apiToken };
    },
    close() {
      closing ??= (async () => {
        await runner.stop();
        await eventStore.close();
        await readStore.close();
        await credentials.close();
      })();
      return closing;
    },
  };
}

async function openEventStore(config: StorylineConfig, sqlitePath: string): Promise<EventStore> {
  if (config.kurrentUrl) {
    const { openKurrentEventStore } = await import('./event-store/kurrent-event-store.js');
    return openKurrentEventStore({ url: config.kurrentUrl });
  }
  return openSqliteEventStore({ path: sqlitePath });
}

/** MongoDB when configured; else SQLite at `sqlitePath` (null: a data directory in memory) or memory. */
async function openReadStore(config: StorylineConfig, sqlitePath: string | null, log: Log): Promise<ReadStore> {
  if (config.mongoUrl) {
    const { openMongoReadStore } = await import('./read-store/mongo-read-store.js');
    return openMongoReadStore({ url: config.mongoUrl, dbName: config.mongoDbName });
  }
  if (config.readStore === 'memory' || sqlitePath === null) return createMemoryReadStore();
  const store = openSqliteReadStore({ path: sqlitePath, cacheBytes: config.readCacheBytes });
  if (store.opened === 'created') log.info('read models file created; building it from the log', { path: sqlitePath });
  return store;
}

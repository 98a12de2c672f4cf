// A small running system for the activity HTTP tests: the SQLite event store in memory, the memory read
// store kept by the projector runner (resources + the two activity indexes), the one command handler,
// and an app serving the activity routes. Events are appended through the command handler with the real
// deciders where they exist (people, accounts, projects, memberships) and with scripted decisions
// shaped like the story deciders' events otherwise.
import { randomUUID } from 'node:crypto';
import { createApp } from '../../src/api/app.js';
import { defaultApiConfig, type ProjectAccessResolver } from '../../src/api/app-dependencies.js';
import { activityResources, type ActivityDeps } from '../../src/api/resources/activity.js';
import type { ResourceSettings } from '../../src/api/resources/resource-module.js';
import { resourceTypeRegistry } from '../../src/api/resource-type.js';
import type { Actor, ProjectRole } from '../../src/api/route-table.js';
import { CommandHandler } from '../../src/commands/command-handler.js';
import type { Decide, Decision } from '../../src/domain/decision.js';
import { streams, type RecordedEvent } from '../../src/domain/events.js';
import { createPerson } from '../../src/domain/person/person-decisions.js';
import { createProject } from '../../src/domain/project/project-decisions.js';
import type { StreamState } from '../../src/domain/resource-state.js';
import { openSqliteEventStore, type SqliteEventStore } from '../../src/infra/event-store/sqlite-event-store.js';
import { IdAllocator } from '../../src/infra/id-allocator.js';
import { ProjectorRunner, type ReadOnlyCollection } from '../../src/infra/projector/projector-runner.js';
import { createMemoryReadStore } from '../../src/infra/read-store/memory-read-store.js';
import { performerActivityProjection } from '../../src/projections/activity/performer-activity-projection.js';
import { subjectActivityProjection } from '../../src/projections/activity/subject-activity-projection.js';
import { resourcesProjection } from '../../src/projections/resources/resources-projection.js';
import { startServer, type TestServer } from './support/http-client.js';

export const SITE = 'http://storyline.test';
export const DAY = 24 * 60 * 60 * 1000;

export interface ActivityWorld {
  server: TestServer;
  commands: CommandHandler;
  eventStore: SqliteEventStore;
  runner: ProjectorRunner;
  /** The request clock of the app (ms); tests move it. */
  clock: { now: number };
  /** API token of a person created with `person()`. */
  tokenOf(personId: number): string;
  person(name: string): Promise<number>;
  account(plan: string, ownerId: number): Promise<number>;
  project(name: string, accountId: number, ownerId: number, at: number): Promise<number>;
  /** Appends one decision to a project stream as `actorId` at time `at`; returns the recorded event. */
  decide(projectId: number, actorId: number, at: number, decide: Decide<StreamState>): Promise<RecordedEvent>;
  close(): Promise<void>;
}

export async function activityWorld(settings: Partial<ResourceSettings> = {}): Promise<ActivityWorld> {
  const eventStore = await openSqliteEventStore({ path: ':memory:' });
  const runner = new ProjectorRunner({
    eventStore,
    readStore: createMemoryReadStore(),
    projections: [resourcesProjection, performerActivityProjection, subjectActivityProjection],
  });
  await runner.start();
  const ids = new IdAllocator(eventStore);
  const commands = new CommandHandler({ eventStore, ids, projections: runner });
  const read = (name: string) => runner.collection(name);
  const deps: ActivityDeps = {
    read,
    eventStore,
    settings: { siteUrl: SITE, activityWindowMonths: 6, enterpriseActivityWindowMonths: 25, ...settings },
  };
  const module = activityResources(deps);
  const tokens = new Map<string, number>();
  const clock = { now: Date.UTC(2025, 5, 1) };
  const app = createApp({
    routes: module.routes,
    resources: resourceTypeRegistry(module.types),
    auth: {
      async byToken(token) {
        const personId = tokens.get(token);
        return personId === undefined ? null : ((await read('people').findOne({ id: personId })) as Actor | null);
      },
      byPassword: async () => null,
    },
    projects: membershipAccess(read),
    projectVersion: async (projectId) => {
      const project = await read('projects').findOne({ id: projectId });
      return typeof project?.['version'] === 'number' ? project['version'] : null;
    },
    config: { ...defaultApiConfig, responseCacheEntries: 0 },
    log: { error: (message, details) => console.error(message, details) },
    clock: () => clock.now,
  });
  const server = await startServer(app);

  const meta = (actorId: number | null, at: number) => ({ commandId: randomUUID(), actorId, now: at });
  return {
    server,
    commands,
    eventStore,
    runner,
    clock,
    tokenOf(personId) {
      const token = [...tokens].find(([, id]) => id === personId)?.[0];
      if (!token) throw new Error(`no token for person ${personId}`);
      return token;
    },
    async person(name) {
      const personId = await ids.next('person');
      const email = `${name.toLowerCase().replace(/\s+/g, '.')}@storyline.test`;
      const decide = createPerson({ personId, email, name, taken: { emails: new Set(), usernames: new Set() } });
      await commands.execute(streams.person(personId), decide, meta(null, clock.now));
      tokens.set(`token-${personId}`, personId);
      return personId;
    },
    async account(plan, ownerId) {
      const accountId = await ids.next('account');
      const decision: Decision = {
        type: 'account_create',
        data: {
          changes: [{ kind: 'account', change_type: 'create', id: accountId, name: `Account ${accountId}`, new_values: { id: accountId, name: `Account ${accountId}`, plan, status: 'active' } }],
          primary_resources: [{ kind: 'account', id: accountId }],
        },
      };
      await commands.execute(streams.account(accountId), () => decision, meta(ownerId, clock.now));
      return accountId;
    },
    async project(name, accountId, ownerId, at) {
      const projectId = await ids.next('project');
      const owner = await read('people').findOne({ id: ownerId });
      const decide = createProject({ projectId, accountId, request: { name }, owner: { personId: ownerId, name: String(owner?.['name']) }, takenNames: [] });
      await commands.execute(streams.project(projectId), decide, meta(ownerId, at));
      return projectId;
    },
    async decide(projectId, actorId, at, decide) {
      const outcome = await commands.execute(streams.project(projectId), decide, meta(actorId, at));
      return outcome.event;
    },
    async close() {
      await server.close();
      await runner.stop();
      await eventStore.close();
    },
  };
}

/** Project access from the projects and project_memberships read models. */
function membershipAccess(read: (name: string) => ReadOnlyCollection): ProjectAccessResolver {
  return {
    async resolve(projectId, actor) {
      const project = await read('projects').findOne({ id: projectId });
      if (!project) return null;
      const membership = actor ? await read('project_memberships').findOne({ project_id: projectId, person_id: actor.id }) : null;
      return { project, role: (membership?.['role'] as ProjectRole | undefined) ?? null, public: project['public'] === true };
    },
  };
}

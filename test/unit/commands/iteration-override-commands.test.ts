// Setting an iteration override through the command handler: one event, the version it produced, and
// the override as the read model holds it afterwards (defaults filled in).
import { expect } from 'chai';
import { CommandHandler } from '../../../src/commands/command-handler.js';
import { IterationOverrideCommands } from '../../../src/commands/iteration-overrides.js';
import { decideCreateProject } from '../../../src/domain/project/project-decisions.js';
import { streams } from '../../../src/domain/events.js';
import { openSqliteEventStore, type SqliteEventStore } from '../../../src/infra/event-store/sqlite-event-store.js';
import { IdAllocator } from '../../../src/infra/id-allocator.js';
import { ProjectorRunner } from '../../../src/infra/projector/projector-runner.js';
import { createMemoryReadStore } from '../../../src/infra/read-store/memory-read-store.js';
import { resourcesProjection } from '../../../src/projections/resources/resources-projection.js';

const NOW = Date.UTC(2024, 0, 17, 12);

describe('iteration override commands', () => {
  let store: SqliteEventStore;
  let runner: ProjectorRunner;
  let overrides: IterationOverrideCommands;
  let commandCount = 0;
  const meta = () => ({ commandId: `override-${++commandCount}`, actorId: 1, now: NOW });

  beforeEach(async () => {
    store = await openSqliteEventStore({ path: ':memory:' });
    runner = new ProjectorRunner({ eventStore: store, readStore: createMemoryReadStore(), projections: [resourcesProjection] });
    await runner.start();
    const commands = new CommandHandler({ eventStore: store, ids: new IdAllocator(store), projections: runner });
    await commands.execute(
      streams.project(3),
      (state, context) =>
        decideCreateProject({ projectId: 3, accountId: 1, request: { name: 'P', start_date: '2024-01-01', iteration_length: 2 }, owner: null, takenNames: [] }, state, context),
      meta(),
    );
    overrides = new IterationOverrideCommands({ commands, projects: runner.collection('projects'), iterationOverrides: runner.collection('iteration_overrides') });
  });
  afterEach(async () => {
    await runner.stop();
    await store.close();
  });

  it('answers the override with the version, and shows defaults once values are reset', async () => {
    expect(await overrides.set(3, 2, { team_strength: 0.8 }, meta())).to.deep.equal({
      override: { kind: 'iteration_override', number: 2, project_id: 3, length: 2, team_strength: 0.8 },
      version: 2,
    });
    expect(await overrides.set(3, 2, { team_strength: null, length: 3 }, meta())).to.deep.equal({
      override: { kind: 'iteration_override', number: 2, project_id: 3, length: 3, team_strength: 1 },
      version: 3,
    });
    expect((await runner.collection('iteration_overrides').find({ project_id: 3 })).map(({ _pos, ...doc }) => doc)).to.have.length(1);
  });

  it('refuses an iteration that has not started without appending', async () => {
    let code: string | undefined;
    await overrides.set(3, 3, { length: 1 }, meta()).catch((error: { code?: string }) => (code = error.code));
    expect(code).to.equal('invalid_parameter');
    expect(await store.streamVersion(streams.project(3))).to.equal(1);
  });
});

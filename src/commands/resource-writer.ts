// The one way a write runs: a decider and its command -> the command handler on the stream -> the
// resource the decision names (`Decision.subject`), read back from its read model as the write left it,
// with the project version the write produced. Every operation group uses it; there is no wrapper per
// resource.
import type { Decider } from '../domain/decision.js';
import type { ProjectState } from '../domain/project-state.js';
import type { StreamState } from '../domain/resource-state.js';
import { DomainError } from '../domain/errors.js';
import { streams, type StreamName } from '../domain/events.js';
import { resourceCollections } from '../projections/resources/resources-projection.js';
import type { Doc } from '../ports/read-store.js';
import type { CommandHandler, CommandMeta, CommandOutcome } from './command-handler.js';
import type { ReadView } from './read-view.js';

/** A written resource as its read model holds it after the write, and the stream version the write produced. */
export interface Written {
  doc: Doc;
  version: number;
}

export interface ResourceWriterDeps {
  commands: CommandHandler;
  /** A live read-model collection by logical name (`stories`, `people`, ...). */
  read(collection: string): ReadView;
}

export class ResourceWriter {
  constructor(private readonly deps: ResourceWriterDeps) {}

  /** Decides `command` on `stream` and appends the event; for writes answered without the resource (deletes). */
  execute<C, S extends StreamState>(stream: StreamName<S>, decider: Decider<C, S>, command: C, meta: CommandMeta): Promise<CommandOutcome<S>> {
    return this.deps.commands.execute(stream, (state, context) => decider(command, state, context), meta);
  }

  /** Decides on a project's stream and reads back the resource the decision names, in that project. */
  async onProject<C>(projectId: number, decider: Decider<C, ProjectState>, command: C, meta: CommandMeta): Promise<Written> {
    const outcome = await this.execute(streams.project(projectId), decider, command, meta);
    const filter = outcome.subject.kind === 'project' ? { id: projectId } : { id: outcome.subject.id, project_id: projectId };
    return { doc: await this.readBack(outcome, filter), version: outcome.version };
  }

  /** Decides on a stream outside projects (a person, an account) and reads back the decision's subject. */
  async onStream<C, S extends StreamState>(stream: StreamName<S>, decider: Decider<C, S>, command: C, meta: CommandMeta): Promise<Written> {
    const outcome = await this.execute(stream, decider, command, meta);
    return { doc: await this.readBack(outcome, { id: outcome.subject.id }), version: outcome.version };
  }

  private async readBack(outcome: CommandOutcome, filter: Record<string, unknown>): Promise<Doc> {
    const { kind } = outcome.subject;
    if (kind === 'id_block' || kind === 'notification') throw new Error(`${kind} changes have no resource read model`);
    const doc = await this.deps.read(resourceCollections[kind]).findOne(filter);
    // The handler waited for the read models: a missing document was deleted by the write itself.
    if (!doc) throw new DomainError('unfound_resource');
    return doc;
  }
}

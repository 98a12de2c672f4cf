// Project label writes: create, rename, delete (one event each), answered with the label as the read
// model now holds it and the project version the write produced.
import type { Decide } from '../domain/decision.js';
import { DomainError } from '../domain/errors.js';
import { streams } from '../domain/events.js';
import { decideCreateLabel, decideDeleteLabel, decideRenameLabel } from '../domain/label/label-decisions.js';
import type { StreamState } from '../domain/resource-state.js';
import type { Doc } from '../ports/read-store.js';
import type { CommandHandler, CommandMeta, CommandOutcome } from './command-handler.js';
import type { ReadView } from './people.js';

export interface LabelCommandDeps {
  commands: CommandHandler;
  labels: ReadView;
}

export interface LabelWritten {
  label: Doc;
  version: number;
}

export class LabelCommands {
  constructor(private readonly deps: LabelCommandDeps) {}

  async create(projectId: number, name: string, meta: CommandMeta): Promise<LabelWritten> {
    const outcome = await this.execute(projectId, (state, context) => decideCreateLabel(state, { name }, context), meta);
    return this.written(projectId, outcome.event.data.changes[0]!.id, outcome);
  }

  async rename(projectId: number, labelId: number, name: string, meta: CommandMeta): Promise<LabelWritten> {
    const outcome = await this.execute(projectId, (state, context) => decideRenameLabel(state, { label_id: labelId, name }, context), meta);
    return this.written(projectId, labelId, outcome);
  }

  /** Deletes the label and takes it off its stories; returns the project version. */
  async delete(projectId: number, labelId: number, meta: CommandMeta): Promise<number> {
    const outcome = await this.execute(projectId, (state, context) => decideDeleteLabel(state, { label_id: labelId }, context), meta);
    return outcome.version;
  }

  private execute(projectId: number, decide: Decide<StreamState>, meta: CommandMeta): Promise<CommandOutcome> {
    return this.deps.commands.execute(streams.project(projectId), decide, meta);
  }

  private async written(projectId: number, labelId: number, outcome: CommandOutcome): Promise<LabelWritten> {
    const label = await this.deps.labels.findOne({ id: labelId, project_id: projectId });
    if (!label) throw new DomainError('unfound_resource');
    return { label, version: outcome.version };
  }
}

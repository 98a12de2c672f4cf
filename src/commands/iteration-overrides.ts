// PUT /projects/{id}/iteration_overrides/{number}: one iteration_update event, answered with the
// override as the read model now holds it (defaults filled in) and the project version it produced.
import { unfound } from '../domain/errors.js';
import { streams } from '../domain/events.js';
import { decideSetIterationOverride, iterationOverrideView, overrideFromDoc, type IterationOverrideView } from '../domain/iteration/iteration-override.js';
import type { CommandHandler, CommandMeta } from './command-handler.js';
import type { ReadView } from './read-view.js';

export interface IterationOverrideCommandDeps {
  commands: CommandHandler;
  /** resources: `projects` */
  projects: ReadView;
  /** resources: `iteration_overrides` */
  iterationOverrides: ReadView;
}

export interface IterationOverrideWritten {
  override: IterationOverrideView;
  version: number;
}

export class IterationOverrideCommands {
  constructor(private readonly deps: IterationOverrideCommandDeps) {}

  /** `number` as validated by the route (an integer); `request` the body (`length`, `team_strength`). */
  async set(projectId: number, number: number, request: Record<string, unknown>, meta: CommandMeta): Promise<IterationOverrideWritten> {
    const outcome = await this.deps.commands.execute(
      streams.project(projectId),
      (state, context) => decideSetIterationOverride({ number, request }, state, context),
      meta,
    );
    const [project, stored] = await Promise.all([
      this.deps.projects.findOne({ id: projectId }),
      this.deps.iterationOverrides.findOne({ project_id: projectId, number }),
    ]);
    if (!project) throw unfound();
    return { override: iterationOverrideView(project, stored ? overrideFromDoc(stored) : { number }), version: outcome.version };
  }
}

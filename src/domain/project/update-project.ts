// Changing a project's settings; the change records only what differs.
import type { ProjectState } from '../project-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import type { EventType, DecidedChange, ChangeValues } from '../events.js';
import { applySettings } from './project-settings.js';
import { overrideResets } from '../iteration/iteration-override.js';
import { nameUniqueness, settingsRejected } from './project-rules.js';

export interface UpdateProject {
  request: Record<string, unknown>;
  takenNames: readonly string[];
}

export function decideUpdateProject(command: UpdateProject, state: ProjectState, context: DecisionContext): Decision {
  const project = state.project();
  const outcome = applySettings(project, command.request, context.now);
  const problems = [...outcome.problems];
  if (typeof outcome.values['name'] === 'string' && outcome.values['name'] !== project['name']) {
    problems.push(...nameUniqueness(outcome.values['name'], command.takenNames));
  }
  if (problems.length > 0) throw settingsRejected(problems, command.request);
  const original: ChangeValues<'project'> = {};
  const changed: ChangeValues<'project'> = {};
  for (const [key, value] of Object.entries(outcome.values)) {
    if (JSON.stringify(project[key] ?? null) === JSON.stringify(value ?? null)) continue;
    original[key] = project[key] ?? null;
    changed[key] = value;
  }
  original['updated_at'] = project['updated_at'] ?? null;
  changed['updated_at'] = context.now;
  const name = String(changed['name'] ?? project['name']);
  const decision = projectEvent('project_update', {
    kind: 'project',
    change_type: 'update',
    id: project.id,
    name,
    original_values: original,
    new_values: changed,
  });
  decision.data.changes.push(...overrideResets(state, changed));
  return decision;
}

function projectEvent(type: EventType, change: DecidedChange): Decision {
  return {
    type,
    data: { changes: [change], primary_resources: [{ kind: 'project', id: change.id, name: change.name ?? '' }] },
    subject: { kind: 'project', id: change.id },
  };
}

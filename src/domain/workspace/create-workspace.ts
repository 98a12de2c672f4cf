// Creating one of a person's workspaces (a named list of projects the person can see).
import type { PersonState } from '../person/person-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import { invalidParameter } from '../errors.js';
import type { DecidedChange } from '../events.js';
import { type WorkspaceDoc, ownerOf, nameProblems, projectProblems, unique, workspaceDecision } from './workspace-rules.js';

export interface CreateWorkspaceCommand {
  name: string;
  project_ids?: number[];
  /** The requested project ids the person can see now (read by the caller from the projects' streams). */
  visible_project_ids: readonly number[];
}

export function decideCreateWorkspace(command: CreateWorkspaceCommand, state: PersonState, context: DecisionContext): Decision {
  const personId = ownerOf(state, context);
  const problems = [...nameProblems(command.name), ...projectProblems(command.project_ids ?? [], [], command.visible_project_ids)];
  if (problems.length > 0) throw invalidParameter(problems);
  const workspace: WorkspaceDoc = {
    id: context.nextId('workspace'),
    person_id: personId,
    name: command.name.trim(),
    project_ids: unique(command.project_ids ?? []),
    created_at: context.now,
    updated_at: context.now,
  };
  const change: DecidedChange = { kind: 'workspace', change_type: 'create', id: workspace.id, name: workspace.name, new_values: { ...workspace } };
  return workspaceDecision('workspace_create', workspace, change);
}

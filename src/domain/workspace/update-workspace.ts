// Renaming a person's workspace or changing its projects; the change records only what differs.
import type { PersonState } from '../person/person-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import { invalidField, invalidParameter } from '../errors.js';
import type { DecidedChange } from '../events.js';
import { changedValues } from '../changed-values.js';
import { type WorkspaceDoc, ownerOf, nameProblems, projectProblems, unique, workspaceDecision } from './workspace-rules.js';

export interface UpdateWorkspaceCommand {
  workspace_id: number;
  name?: string;
  project_ids?: number[];
  visible_project_ids: readonly number[];
}

export function decideUpdateWorkspace(command: UpdateWorkspaceCommand, state: PersonState, context: DecisionContext): Decision {
  ownerOf(state, context);
  const before = state.workspaces.required(command.workspace_id);
  if (command.name === undefined && command.project_ids === undefined) {
    throw invalidField('name', 'this endpoint requires at least one of the following parameters: name, project_ids');
  }
  const problems = [
    ...(command.name !== undefined ? nameProblems(command.name) : []),
    ...(command.project_ids !== undefined ? projectProblems(command.project_ids, before.project_ids, command.visible_project_ids) : []),
  ];
  if (problems.length > 0) throw invalidParameter(problems);
  const after: WorkspaceDoc = {
    ...before,
    ...(command.name !== undefined ? { name: command.name.trim() } : {}),
    ...(command.project_ids !== undefined ? { project_ids: unique(command.project_ids) } : {}),
    updated_at: context.now,
  };
  const change: DecidedChange = { kind: 'workspace', change_type: 'update', id: after.id, name: after.name, ...changedValues(before, after, ['name', 'project_ids']) };
  return workspaceDecision('workspace_update', after, change);
}

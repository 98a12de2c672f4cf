// Deleting one of a person's workspaces.
import type { PersonState } from '../person/person-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import type { DecidedChange } from '../events.js';
import { ownerOf, workspaceDecision } from './workspace-rules.js';

export interface DeleteWorkspaceCommand {
  workspace_id: number;
}

export function decideDeleteWorkspace(command: DeleteWorkspaceCommand, state: PersonState, context: DecisionContext): Decision {
  ownerOf(state, context);
  const workspace = state.workspaces.required(command.workspace_id);
  const change: DecidedChange = { kind: 'workspace', change_type: 'delete', id: workspace.id, name: workspace.name, original_values: { ...workspace } };
  return workspaceDecision('workspace_delete', workspace, change);
}

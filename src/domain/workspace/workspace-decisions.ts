// Deciders for a person's workspaces (facts §12 `workspace`: name, person_id, project_ids): a named set of
// projects one person looks at together. A workspace is its person's own thing, so its writes are events
// of the person's stream (`person-<id>`), never of a project's: no project version moves. Which projects
// the person may put in it depends on other streams (memberships, public projects): the caller reads
// them and hands in the requested ids the person can see (`visible_project_ids`); a project already in
// the workspace stays when the person no longer sees it (reads leave it out while it is hidden), so an
// unrelated rename never fails because of it.
import type { PersonState } from '../person/person-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import { invalidField, invalidParameter, unfound, type ValidationError } from '../errors.js';
import type { EventType, DecidedChange, ResourceRef } from '../events.js';
import { changedValues } from '../changed-values.js';
import type { ResourceDoc } from '../resource-state.js';

export const MAX_WORKSPACE_NAME = 255;
/** The most projects one workspace may list (bounds every read of one). */
export const MAX_WORKSPACE_PROJECTS = 500;

export interface WorkspaceDoc extends ResourceDoc {
  person_id: number;
  name: string;
  project_ids: number[];
  created_at: number;
  updated_at: number;
}

export interface CreateWorkspaceCommand {
  name: string;
  project_ids?: number[];
  /** The requested project ids the person can see now (read by the caller from the projects' streams). */
  visible_project_ids: readonly number[];
}

export interface UpdateWorkspaceCommand {
  workspace_id: number;
  name?: string;
  project_ids?: number[];
  visible_project_ids: readonly number[];
}

export interface DeleteWorkspaceCommand {
  workspace_id: number;
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

export function decideUpdateWorkspace(command: UpdateWorkspaceCommand, state: PersonState, context: DecisionContext): Decision {
  ownerOf(state, context);
  const before = workspaceOf(state, command.workspace_id);
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

export function decideDeleteWorkspace(command: DeleteWorkspaceCommand, state: PersonState, context: DecisionContext): Decision {
  ownerOf(state, context);
  const workspace = workspaceOf(state, command.workspace_id);
  const change: DecidedChange = { kind: 'workspace', change_type: 'delete', id: workspace.id, name: workspace.name, original_values: { ...workspace } };
  return workspaceDecision('workspace_delete', workspace, change);
}

/** The person whose stream this is; only they write their workspaces. */
function ownerOf(state: PersonState, context: DecisionContext): number {
  const personId = state.stream.startsWith('person-') ? Number(state.stream.slice('person-'.length)) : Number.NaN;
  if (!Number.isSafeInteger(personId)) throw new Error(`${state.stream} is not a person stream`);
  if (context.actorId !== personId) throw unfound();
  return personId;
}

/** The person's workspace, or unfound (a workspace is never another person's). */
function workspaceOf(state: PersonState, id: number): WorkspaceDoc {
  const workspace = state.workspaces.get(id);
  if (!workspace) throw unfound();
  return workspace;
}

function nameProblems(name: unknown): ValidationError[] {
  const trimmed = typeof name === 'string' ? name.trim() : '';
  if (trimmed === '') return [{ field: 'name', problem: "Name can't be blank" }];
  if (trimmed.length > MAX_WORKSPACE_NAME) return [{ field: 'name', problem: `'name' parameter must be ${MAX_WORKSPACE_NAME} characters or less.` }];
  return [];
}

/** Projects newly put in the workspace must be ones the person can see; those already in it may stay. */
function projectProblems(ids: readonly number[], previous: readonly number[], visible: readonly number[]): ValidationError[] {
  const requested = unique(ids);
  if (requested.length > MAX_WORKSPACE_PROJECTS) return [{ field: 'project_ids', problem: `A workspace holds at most ${MAX_WORKSPACE_PROJECTS} projects.` }];
  const unseen = requested.filter((id) => !previous.includes(id) && !visible.includes(id));
  if (unseen.length === 0) return [];
  return [{ field: 'project_ids', problem: `Project ${unseen.join(', ')} does not exist or is not visible to you.` }];
}

function unique(ids: readonly number[]): number[] {
  return [...new Set(ids)];
}

function workspaceDecision(type: EventType, workspace: WorkspaceDoc, change: DecidedChange): Decision {
  const ref: ResourceRef = { kind: 'workspace', id: workspace.id, name: workspace.name };
  return { type, data: { changes: [change], primary_resources: [ref] }, subject: { kind: 'workspace', id: workspace.id } };
}

// Deciders for a person's workspaces (facts §12 `workspace`: name, person_id, project_ids): a named set of
// projects one person looks at together. A workspace is its person's own thing, so its writes are events
// of the person's stream (`person-<id>`), never of a project's: no project version moves. Which projects
// the person may put in it depends on other streams (memberships, public projects): the caller reads
// them and hands in the requested ids the person can see (`visible_project_ids`); a project already in
// the workspace stays when the person no longer sees it (reads leave it out while it is hidden), so an
// unrelated rename never fails because of it.
// What its deciders (create-workspace.ts, update-workspace.ts, delete-workspace.ts) share.
import type { PersonState } from '../person/person-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import { unfound, type ValidationError } from '../errors.js';
import type { EventType, DecidedChange, ResourceRef } from '../events.js';
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

/** The person whose stream this is; only they write their workspaces. */
export function ownerOf(state: PersonState, context: DecisionContext): number {
  if (context.actorId !== state.personId) throw unfound();
  return state.personId;
}

export function nameProblems(name: unknown): ValidationError[] {
  const trimmed = typeof name === 'string' ? name.trim() : '';
  if (trimmed === '') return [{ field: 'name', problem: "Name can't be blank" }];
  if (trimmed.length > MAX_WORKSPACE_NAME) return [{ field: 'name', problem: `'name' parameter must be ${MAX_WORKSPACE_NAME} characters or less.` }];
  return [];
}

/** Projects newly put in the workspace must be ones the person can see; those already in it may stay. */
export function projectProblems(ids: readonly number[], previous: readonly number[], visible: readonly number[]): ValidationError[] {
  const requested = unique(ids);
  if (requested.length > MAX_WORKSPACE_PROJECTS) return [{ field: 'project_ids', problem: `A workspace holds at most ${MAX_WORKSPACE_PROJECTS} projects.` }];
  const unseen = requested.filter((id) => !previous.includes(id) && !visible.includes(id));
  if (unseen.length === 0) return [];
  return [{ field: 'project_ids', problem: `Project ${unseen.join(', ')} does not exist or is not visible to you.` }];
}

export function unique(ids: readonly number[]): number[] {
  return [...new Set(ids)];
}

export function workspaceDecision(type: EventType, workspace: WorkspaceDoc, change: DecidedChange): Decision {
  const ref: ResourceRef = { kind: 'workspace', id: workspace.id, name: workspace.name };
  return { type, data: { changes: [change], primary_resources: [ref] }, subject: { kind: 'workspace', id: workspace.id } };
}

// Who a story or an epic concerns, as the notifications reaction needs it (facts §10): its requester,
// owners and followers, its state and name. Folded from the project stream's changes in log order, so a
// replay from the first event gives the same audiences and therefore the same notifications. Pure.
import type { ResourceChange } from '../events.js';

export type AudienceKind = 'story' | 'epic';

export interface Audience {
  id: number;
  project_id: number;
  name: string;
  requested_by_id?: number;
  owner_ids: number[];
  follower_ids: number[];
  current_state?: string;
}

/** The attributes of a story or epic change an audience keeps. */
const KEPT = ['name', 'requested_by_id', 'owner_ids', 'follower_ids', 'current_state'] as const;

export function isAudienceChange(change: ResourceChange): change is ResourceChange & { kind: AudienceKind } {
  return change.kind === 'story' || change.kind === 'epic';
}

/** The audience after one change of its story or epic (null: the story or epic is gone from the project). */
export function foldAudience(before: Audience | null, change: ResourceChange, projectId: number): Audience | null {
  if (change.change_type === 'delete') return null;
  const base: Audience =
    change.change_type === 'create' || before === null
      ? { id: change.id, project_id: projectId, name: '', owner_ids: [], follower_ids: [] }
      : { ...before };
  const values = change.new_values ?? {};
  for (const key of KEPT) {
    if (!(key in values)) continue;
    const value = values[key];
    if (key === 'owner_ids' || key === 'follower_ids') base[key] = idList(value);
    else if (key === 'requested_by_id') {
      if (typeof value === 'number') base.requested_by_id = value;
      else delete base.requested_by_id;
    } else if (typeof value === 'string') base[key] = value;
  }
  if (typeof change.name === 'string') base.name = change.name;
  return base;
}

function idList(value: unknown): number[] {
  return Array.isArray(value) ? value.filter((id): id is number => typeof id === 'number') : [];
}

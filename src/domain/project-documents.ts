// The stored documents of a project stream, typed: what each kind of resource holds under its API
// attribute names. Types only, so that the state accessors (project-state.ts), the rules and the
// counts can all name them without importing one another.
import type { ResourceDoc } from './resource-state.js';

export type StoryType = 'feature' | 'bug' | 'chore' | 'release';
export type StoryState =
  | 'unscheduled'
  | 'unstarted'
  | 'planned'
  | 'started'
  | 'finished'
  | 'delivered'
  | 'accepted'
  | 'rejected';
export type StoryPriority = 'p0' | 'p1' | 'p2' | 'p3' | 'none';
export type ProjectRole = 'owner' | 'member' | 'viewer';
export const PROJECT_ROLES: readonly ProjectRole[] = ['owner', 'member', 'viewer'];

/** The project document: the project resource's stored attributes (API names). */
export interface ProjectDoc extends ResourceDoc {
  name: string;
  point_scale: string;
  bugs_and_chores_are_estimatable: boolean;
  enable_tasks: boolean;
  automatic_planning: boolean;
}

export interface MembershipDoc extends ResourceDoc {
  person_id: number;
  role: ProjectRole;
}

export interface StoryDoc extends ResourceDoc {
  project_id: number;
  name: string;
  description?: string;
  story_type: StoryType;
  current_state: StoryState;
  estimate?: number;
  story_priority: StoryPriority;
  requested_by_id: number;
  owner_ids: number[];
  follower_ids: number[];
  label_ids: number[];
  blocked_story_ids?: number[];
  accepted_at?: number;
  deadline?: number;
  external_id?: string;
  integration_id?: number;
  created_at: number;
  updated_at: number;
  rank: string;
}

export interface LabelDoc extends ResourceDoc {
  project_id: number;
  name: string;
  created_at: number;
  updated_at: number;
  /** Per-state story counts, maintained by every story write (label/label-counts.ts). */
  counts?: StoryCounts;
}

export interface TaskDoc extends ResourceDoc {
  story_id: number;
  description: string;
  complete: boolean;
  position: number;
  created_at: number;
  updated_at: number;
}

export type CountsByState = { kind: 'counts_by_story_state' } & Record<StoryState, number>;

export interface StoryCounts {
  kind: 'story_counts';
  number_of_stories_by_state: CountsByState;
  sum_of_story_estimates_by_state: CountsByState;
  number_of_zero_point_stories_by_state: CountsByState;
}

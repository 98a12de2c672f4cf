// What a story card offers, as Tracker's board did: the next-state buttons of each state, and the point
// scale first for a story that must be estimated before it can start. The server decides every move;
// these only choose which requests to offer.
import type { Project, Story, StoryState } from './types';

export interface StateAction {
  label: string;
  /** The state the button asks for. */
  state: StoryState;
  kind: 'start' | 'finish' | 'deliver' | 'accept' | 'reject' | 'restart';
}

const ACTIONS: Record<StoryState, StateAction[]> = {
  unscheduled: [{ label: 'Start', state: 'started', kind: 'start' }],
  unstarted: [{ label: 'Start', state: 'started', kind: 'start' }],
  planned: [{ label: 'Start', state: 'started', kind: 'start' }],
  started: [{ label: 'Finish', state: 'finished', kind: 'finish' }],
  finished: [{ label: 'Deliver', state: 'delivered', kind: 'deliver' }],
  delivered: [
    { label: 'Accept', state: 'accepted', kind: 'accept' },
    { label: 'Reject', state: 'rejected', kind: 'reject' },
  ],
  rejected: [{ label: 'Restart', state: 'started', kind: 'restart' }],
  accepted: [],
};

/** Whether a story of this type takes an estimate in this project. */
export function isEstimable(project: Pick<Project, 'bugs_and_chores_are_estimatable'>, story: Pick<Story, 'story_type'>): boolean {
  if (story.story_type === 'feature') return true;
  if (story.story_type === 'release') return false;
  return project.bugs_and_chores_are_estimatable;
}

/** A story Tracker asks to estimate before anything else: an estimable story without an estimate. */
export function needsEstimate(project: Pick<Project, 'bugs_and_chores_are_estimatable'>, story: Pick<Story, 'story_type' | 'estimate'>): boolean {
  return isEstimable(project, story) && (story.estimate === undefined || story.estimate === null);
}

export function stateActions(story: Pick<Story, 'current_state' | 'story_type'>): StateAction[] {
  // A release has no work of its own: it is done (accepted) or not, and is finished only once scheduled
  // (Tracker refused to finish one in the Icebox).
  if (story.story_type === 'release') return story.current_state === 'accepted' || story.current_state === 'unscheduled' ? [] : [{ label: 'Finish', state: 'accepted', kind: 'accept' }];
  // A chore has no delivery: Tracker's Finish on a started chore accepts it.
  if (story.story_type === 'chore' && story.current_state === 'started') return [{ label: 'Finish', state: 'accepted', kind: 'accept' }];
  return ACTIONS[story.current_state];
}

/** The project's point scale as numbers. */
export function pointScale(project: Pick<Project, 'point_scale'>): number[] {
  return project.point_scale.split(',').map((value) => Number(value.trim())).filter((value) => Number.isFinite(value));
}

export const STATE_NAMES: Record<StoryState, string> = {
  unscheduled: 'Unscheduled',
  unstarted: 'Unstarted',
  planned: 'Planned',
  started: 'Started',
  finished: 'Finished',
  delivered: 'Delivered',
  accepted: 'Accepted',
  rejected: 'Rejected',
};

export const STORY_TYPES = ['feature', 'bug', 'chore', 'release'] as const;

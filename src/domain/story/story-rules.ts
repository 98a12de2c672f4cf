// The model rules a story must satisfy after every create or update. They are checked on the story as
// it would be stored, so a rule holds no matter which combination of attributes a request changes.
import type { ValidationError } from '../errors.js';
import { pointScaleValues } from '../project/point-scale.js';
import type { ProjectDoc, StoryPriority, StoryState, StoryType } from '../project-documents.js';

export const STORY_TYPES: readonly StoryType[] = ['feature', 'bug', 'chore', 'release'];

/** The eight states, in the order the counts maps and the workflow list them. */
export const STORY_STATES: readonly StoryState[] = [
  'accepted',
  'delivered',
  'finished',
  'started',
  'rejected',
  'planned',
  'unstarted',
  'unscheduled',
];

export const STORY_PRIORITIES: readonly StoryPriority[] = ['p0', 'p1', 'p2', 'p3', 'none'];

/**
 * States an estimable story may only be in when estimated. The real service reported this for started
 * and accepted; finished, delivered and rejected follow the same message pattern and can only be
 * reached through started, so Storyline applies the rule to all five.
 */
export const STATES_REQUIRING_ESTIMATE: readonly StoryState[] = [
  'started',
  'finished',
  'delivered',
  'accepted',
  'rejected',
];

/** States in which a story is being worked on (it belongs to the Current iteration). */
export const IN_PROGRESS_STATES: readonly StoryState[] = ['started', 'finished', 'delivered', 'rejected'];

/**
 * A release is a marker, not work: it can wait in the Icebox or Backlog (or be planned into Current in
 * a manually planned project) and be accepted when shipped. The real service had no started state for
 * releases and its Finish button marked them done; Storyline records done as `accepted`.
 */
export const RELEASE_STATES: readonly StoryState[] = ['unscheduled', 'unstarted', 'planned', 'accepted'];

/** Bounds for a client-supplied created_at / accepted_at: from 2005-01-01T00:00:00Z to now. */
export const EARLIEST_STORY_TIME = Date.UTC(2005, 0, 1);

export function isEstimable(project: ProjectDoc, storyType: StoryType): boolean {
  if (storyType === 'feature') return true;
  if (storyType === 'release') return false;
  return project.bugs_and_chores_are_estimatable === true;
}

/** The attributes the rules look at, as they would be stored. */
export interface StoryRuleView {
  name: string;
  story_type: StoryType;
  current_state: StoryState;
  story_priority: StoryPriority;
  estimate?: number;
  deadline?: number;
  accepted_at?: number;
}

export interface RuleScope {
  /**
   * Whether the write sets the estimate or the story type. Only then are the estimate's validity and
   * estimability checked, so that a later change of the project's point scale or of its bug and chore
   * setting does not make every unrelated edit of an older story fail. The rule that stories in
   * worked-on states must be estimated is always checked (the real service did the same).
   */
  estimateTouched: boolean;
}

/** Every rule the story breaks, one validation error per broken rule. */
export function storyRuleViolations(project: ProjectDoc, story: StoryRuleView, scope: RuleScope): ValidationError[] {
  const problems: ValidationError[] = [];
  if (!STORY_TYPES.includes(story.story_type)) {
    problems.push({ field: 'story_type', problem: `story_type must be one of ${STORY_TYPES.join(', ')}` });
  }
  if (!STORY_STATES.includes(story.current_state)) {
    problems.push({ field: 'current_state', problem: `current_state must be one of ${STORY_STATES.join(', ')}` });
  }
  if (!STORY_PRIORITIES.includes(story.story_priority)) {
    problems.push({
      field: 'story_priority',
      problem: `story_priority must be one of ${STORY_PRIORITIES.join(', ')}`,
    });
  }
  // The remaining rules read the enumerations; with an unknown value they would only add noise.
  if (problems.length > 0) return problems;
  if (typeof story.name !== 'string' || story.name.trim() === '') {
    problems.push({ field: 'name', problem: "Name can't be blank" });
  }

  problems.push(...estimateViolations(project, story, scope));
  if (story.story_type === 'release' && !RELEASE_STATES.includes(story.current_state)) {
    problems.push({
      field: 'current_state',
      problem: `Releases can only be in the ${RELEASE_STATES.join(', ')} states.`,
    });
  }
  if (story.current_state === 'planned' && project.automatic_planning !== false) {
    problems.push({
      field: 'current_state',
      problem: 'The planned state is only available in projects with automatic planning turned off.',
    });
  }
  if (story.deadline !== undefined && story.story_type !== 'release') {
    problems.push({ field: 'deadline', problem: 'Only releases can have a deadline.' });
  }
  if (story.accepted_at !== undefined && story.current_state !== 'accepted') {
    problems.push({ field: 'accepted_at', problem: 'Only accepted stories can have an accepted_at time.' });
  }
  return problems;
}

function estimateViolations(project: ProjectDoc, story: StoryRuleView, scope: RuleScope): ValidationError[] {
  const estimable = isEstimable(project, story.story_type);
  if (story.estimate === undefined) {
    if (estimable && STATES_REQUIRING_ESTIMATE.includes(story.current_state)) {
      return [{ field: 'estimate', problem: `Stories in the ${story.current_state} state must be estimated.` }];
    }
    return [];
  }
  if (!scope.estimateTouched) return [];
  if (!estimable) {
    const problem =
      story.story_type === 'release'
        ? 'Releases cannot be estimated.'
        : 'Bugs and chores cannot be estimated in this project.';
    return [{ field: 'estimate', problem }];
  }
  // Compared numerically: an estimate of 0.5 matches a scale written "0,0.50,1".
  if (!Number.isFinite(story.estimate) || !pointScaleValues(project.point_scale).includes(story.estimate)) {
    return [
      {
        field: 'estimate',
        problem: `${story.estimate} is not a valid estimate for this project's point scale (${project.point_scale}).`,
      },
    ];
  }
  return [];
}

/** A problem with a client-supplied time, or null when it lies within [2005-01-01, now]. */
export function storyTimeProblem(field: string, value: number, now: number): ValidationError | null {
  if (!Number.isFinite(value) || value < EARLIEST_STORY_TIME || value > now) {
    return { field, problem: `${field} must lie between 2005-01-01T00:00:00Z and the current time.` };
  }
  return null;
}

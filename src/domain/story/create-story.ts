// Creating a story: defaults (unscheduled feature, priority p3, requested by the caller), nested task,
// label, comment, blocker and review creates, a position in the one project order, and the rules every
// story must satisfy.
import type { ProjectState } from '../project-state.js';
import { blockedStoryChanges, blockerCreateChange, newBlockers } from '../blocker/blocker-changes.js';
import type { NewBlocker } from '../blocker/blocker-changes.js';
import { writeComments } from '../comment/comment-writes.js';
import type { NewComment } from '../comment/comment-writes.js';
import { newReviews, type NewReview } from '../review/review-rules.js';
import { reviewCreateChange, reviewTypeName } from '../review/review-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import { invalidParameter } from '../errors.js';
import type { ValidationError } from '../errors.js';
import type { DecidedChange } from '../events.js';
import { resolveLabels } from '../label/label-references.js';
import type { LabelReference } from '../label/label-references.js';
import type { StoryDoc, StoryPriority, StoryState, StoryType, TaskDoc } from '../project-documents.js';
import { assertTaskDescription, assertTasksEnabled } from '../task/task-rules.js';
import { taskCreateChange } from '../task/task-changes.js';
import { storyRef, storyWriteChanges } from './story-changes.js';
import { bandOf, hasPositionRequest, rankInSlot, requestedSlot, ruledSlot, slotNeighbours } from './story-order.js';
import type { PositionRequest } from './story-order.js';
import { followersAfter, nonMemberProblems, requestedOwners, unique } from './story-people.js';
import { storyRuleViolations, storyTimeProblem } from './story-rules.js';

export interface NewTaskInput {
  description: string;
  complete?: boolean;
}

/** The attributes a request may set on a story, typed (times as ms); creates and updates share them. */
export interface StoryAttributes extends PositionRequest {
  description?: string | null;
  story_type?: StoryType;
  current_state?: StoryState;
  estimate?: number | null;
  story_priority?: StoryPriority;
  requested_by_id?: number;
  owner_ids?: number[];
  owned_by_id?: number | null;
  follower_ids?: number[];
  /** label_ids and labels together give the story's labels (on update: replace them). */
  label_ids?: number[];
  /** Names or {id} / {name} objects; unknown names create labels. */
  labels?: LabelReference[];
  accepted_at?: number | null;
  deadline?: number | null;
  external_id?: string | null;
  integration_id?: number | null;
}

/** A story create request. Absent keys take the defaults. */
export interface CreateStoryInput extends StoryAttributes {
  name: string;
  /** Created in order, at positions 1..n. */
  tasks?: NewTaskInput[];
  /** Created with the story, in the same event; their writers follow the story. */
  comments?: NewComment[];
  /** Created with the story, in the same event. */
  blockers?: NewBlocker[];
  /** Created with the story, in the same event. */
  reviews?: NewReview[];
  created_at?: number;
}

export function decideCreateStory(input: CreateStoryInput, state: ProjectState, context: DecisionContext): Decision {
  const project = state.project();
  const problems: ValidationError[] = [];
  const now = context.now;
  const createdAt = input.created_at ?? now;
  const timeProblem = input.created_at !== undefined ? storyTimeProblem('created_at', createdAt, now) : null;
  if (timeProblem) problems.push(timeProblem);
  const requesterId = input.requested_by_id ?? context.actorId;
  if (requesterId === null) problems.push({ field: 'requested_by_id', problem: 'A story needs a requester.' });

  const currentState = input.current_state ?? 'unscheduled';
  const acceptedAt = input.accepted_at ?? (currentState === 'accepted' ? now : null);
  if (typeof input.accepted_at === 'number') {
    const acceptedProblem = storyTimeProblem('accepted_at', input.accepted_at, now);
    if (acceptedProblem) problems.push(acceptedProblem);
  }
  const owners = requestedOwners([], input.owner_ids, input.owned_by_id);
  // Neither requesting nor owning makes a follower (issue 11 item 5: recorded `follower_ids: []`).
  const followers = unique(input.follower_ids ?? []);
  const labels = resolveLabels(state, input.label_ids ?? [], input.labels ?? [], context);

  const story: StoryDoc = {
    id: context.nextId('story'),
    project_id: state.projectId,
    name: input.name,
    ...optional('description', input.description || null),
    story_type: input.story_type ?? 'feature',
    current_state: currentState,
    ...optional('estimate', input.estimate),
    story_priority: input.story_priority ?? 'p3',
    requested_by_id: requesterId ?? 0,
    owner_ids: owners,
    follower_ids: followers,
    label_ids: labels.labelIds,
    blocked_story_ids: [],
    ...optional('accepted_at', acceptedAt),
    ...optional('deadline', input.deadline),
    ...optional('external_id', input.external_id),
    ...optional('integration_id', input.integration_id),
    created_at: createdAt,
    updated_at: now,
    rank: '',
  };
  problems.push(
    ...storyRuleViolations(project, story, { estimateTouched: true }),
    ...nonMemberProblems(state, 'requested_by_id', requesterId === null ? [] : [requesterId]),
    ...nonMemberProblems(state, 'owner_ids', owners),
    ...nonMemberProblems(state, 'follower_ids', unique(input.follower_ids ?? [])),
  );
  if (problems.length > 0) throw invalidParameter(problems);

  // A new story always gets a slot: with no position it follows the placement rules.
  const slot = hasPositionRequest(input) ? requestedSlot(state, null, input) : ruledSlot(state, null, currentState)!;
  story.rank = rankInSlot(bandOf(currentState), slot);

  const tasks = newTasks(state, story, input.tasks ?? [], context);
  const comments = writeComments(state, { kind: 'story', id: story.id }, input.comments ?? [], 'comments', context);
  story.follower_ids = followersAfter(story.follower_ids, comments.followerIds);
  const blockers = newBlockers(story.id, input.blockers ?? [], 'blockers', context);
  const reviews = newReviews(state, story.id, input.reviews ?? [], 'reviews', context);
  const changes: DecidedChange[] = [
    ...storyWriteChanges(state, {
      before: null,
      after: story,
      createdLabels: labels.created,
      positionBefore: { before_id: null, after_id: null },
      positionAfter: slotNeighbours(slot),
    }),
    ...tasks.map(taskCreateChange),
    ...comments.changes,
    ...blockers.map(blockerCreateChange),
    ...blockedStoryChanges(state, blockers.map((blocker) => ({ before: null, after: blocker })), now),
    ...reviews.map((review) => reviewCreateChange(review, reviewTypeName(state, review))),
  ];
  return { type: 'story_create', data: { changes, primary_resources: [storyRef(story)] }, subject: { kind: 'story', id: story.id } };
}

function newTasks(state: ProjectState, story: StoryDoc, inputs: readonly NewTaskInput[], context: DecisionContext): TaskDoc[] {
  if (inputs.length === 0) return [];
  assertTasksEnabled(state.project(), 'tasks');
  return inputs.map((input, i) => {
    assertTaskDescription(input.description, 'tasks');
    return {
      id: context.nextId('task'),
      story_id: story.id,
      description: input.description,
      complete: input.complete ?? false,
      position: i + 1,
      created_at: context.now,
      updated_at: context.now,
    };
  });
}

/** `{ [key]: value }` when the value is set, `{}` when it is null or absent (nulls are not stored). */
export function optional<K extends string, V>(key: K, value: V | null | undefined): { [P in K]?: V } {
  return value === null || value === undefined ? {} : ({ [key]: value } as { [P in K]?: V });
}

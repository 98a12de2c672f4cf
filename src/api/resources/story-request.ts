// The bodies of story writes: JSON schemas (ajv, compiled once) and their conversion to the deciders'
// typed inputs. Numbers, integers and booleans are coerced from strings as the real service accepted
// them (`"estimate": "2"`, `"owned_by_id": "5"`); datetimes are ISO 8601 or integer ms. Enumerations,
// point scales and the other model rules are the domain's (src/domain/story/story-rules.ts). Text
// lengths and list lengths are bounded by the one table of limits (src/domain/input-limits.ts).
import type { SchemaObject } from 'ajv';
import { LIST_LIMITS, TEXT_LIMITS } from '../../domain/input-limits.js';
import { datetimeParameter } from '../datetime-parameter.js';
import type { LabelReference } from '../../domain/label/label-references.js';
import type { CreateStoryInput, NewTaskInput } from '../../domain/story/create-story.js';
import type { StoryGroup, UpdateStoryInput } from '../../domain/story/update-story.js';
import type { StoryPriority, StoryState, StoryType } from '../../domain/project-documents.js';
import type { NewBlocker } from '../../domain/blocker/blocker-changes.js';
import type { ReadOnlyCollection } from '../../ports/read-store.js';
import { requestSchema, text } from '../request-schema.js';
import { NEW_BLOCKER } from './blockers.js';
import { NEW_REVIEW } from './reviews.js';
import type { NewReview } from '../../domain/review/review-rules.js';
import { NEW_COMMENT, newCommentsOf } from './comment-request.js';
import type { CommentBody } from './comment-request.js';

const integer = { type: 'integer' } as const;
const nullableInteger = { type: ['integer', 'null'] } as const;
const integers = (maxItems: number) => ({ type: 'array', items: integer, maxItems }) as const;
const datetime = { type: ['integer', 'string', 'null'] } as const;
const labelName = text(TEXT_LIMITS.label_name);
const labelReference = {
  anyOf: [labelName, { type: 'object', properties: { id: integer, name: labelName } }],
} as const;

/** Attributes shared by create and update bodies. */
const STORY_ATTRIBUTES = {
  name: text(TEXT_LIMITS.story_name),
  description: text(TEXT_LIMITS.story_description, true),
  story_type: text(TEXT_LIMITS.short_text),
  current_state: text(TEXT_LIMITS.short_text),
  estimate: { type: ['number', 'null'] },
  story_priority: text(TEXT_LIMITS.short_text),
  requested_by_id: integer,
  owner_ids: integers(LIST_LIMITS.owner_ids),
  owned_by_id: nullableInteger,
  follower_ids: integers(LIST_LIMITS.follower_ids),
  label_ids: integers(LIST_LIMITS.story_labels),
  labels: { type: 'array', items: labelReference, maxItems: LIST_LIMITS.story_labels },
  accepted_at: datetime,
  deadline: datetime,
  external_id: text(TEXT_LIMITS.external_id, true),
  integration_id: nullableInteger,
  before_id: nullableInteger,
  after_id: nullableInteger,
} as const;

const NEW_TASK: SchemaObject = {
  type: 'object',
  // Nested creates must not carry ids.
  properties: { description: text(TEXT_LIMITS.task_description), complete: { type: 'boolean' }, position: integer, id: false },
  required: ['description'],
};

/** The body of a story create (the app runs it: routes declare it as their `input.body`). */
export const checkStoryCreate = requestSchema<Record<string, unknown>>({
  type: 'object',
  properties: {
    ...STORY_ATTRIBUTES,
    created_at: datetime,
    tasks: { type: 'array', items: NEW_TASK, maxItems: LIST_LIMITS.story_tasks },
    comments: { type: 'array', items: NEW_COMMENT, maxItems: LIST_LIMITS.nested_comments },
    blockers: { type: 'array', items: NEW_BLOCKER, maxItems: LIST_LIMITS.nested_blockers },
    reviews: { type: 'array', items: NEW_REVIEW, maxItems: LIST_LIMITS.nested_reviews },
    // No source records how these were created beyond their names: refused, never dropped.
    pull_requests: false,
    branches: false,
  },
  required: ['name'],
});

/** The body of a story update (the app runs it: routes declare it as their `input.body`). */
export const checkStoryUpdate = requestSchema<Record<string, unknown>>({
  type: 'object',
  properties: {
    ...STORY_ATTRIBUTES,
    group: { enum: ['scheduled', 'unscheduled', 'current'] },
    project_id: integer,
    comment: {
      type: 'object',
      properties: { text: text(TEXT_LIMITS.comment_text), file_attachments: { type: 'array', maxItems: LIST_LIMITS.comment_attachments } },
    },
  },
});

/** Keys of an update body that are story attributes (a move with any of them is refused). */
export const UPDATE_KEYS: readonly string[] = [...Object.keys(STORY_ATTRIBUTES), 'group', 'comment'];

/** The create body checked by checkStoryCreate; nested comments get the people their texts mention (one read of `people`). */
export async function createStoryInput(checked: Record<string, unknown>, people: ReadOnlyCollection): Promise<CreateStoryInput> {
  const input = { ...common(checked) } as CreateStoryInput;
  if (checked.created_at !== undefined && checked.created_at !== null) {
    input.created_at = datetimeParameter('created_at', checked.created_at)!;
  }
  if (checked.tasks !== undefined) input.tasks = checked.tasks as NewTaskInput[];
  if (checked.comments !== undefined) input.comments = await newCommentsOf(people, checked.comments as CommentBody[]);
  if (checked.blockers !== undefined) input.blockers = checked.blockers as NewBlocker[];
  if (checked.reviews !== undefined) input.reviews = checked.reviews as NewReview[];
  return input;
}

/** The update body checked by checkStoryUpdate (with `project_id` taken out: the caller decides whether it is a move). */
export function updateStoryInput(storyId: number, checked: Record<string, unknown>): { input: UpdateStoryInput; projectId?: number } {
  const input = { ...common(checked), story_id: storyId } as UpdateStoryInput;
  if (checked.group !== undefined) input.group = checked.group as StoryGroup;
  if (checked.comment !== undefined) input.comment = checked.comment as UpdateStoryInput['comment'];
  const projectId = checked.project_id as number | undefined;
  return projectId === undefined ? { input } : { input, projectId };
}

/** The attributes both bodies share, typed; only keys the body holds are set. */
function common(checked: Record<string, unknown>): Partial<CreateStoryInput> {
  const input: Record<string, unknown> = {};
  for (const key of Object.keys(STORY_ATTRIBUTES)) {
    if (!(key in checked)) continue;
    const value = checked[key];
    input[key] = key === 'accepted_at' || key === 'deadline' ? datetimeParameter(key, value) : value;
  }
  return input as Partial<CreateStoryInput> & {
    story_type?: StoryType;
    current_state?: StoryState;
    story_priority?: StoryPriority;
    labels?: LabelReference[];
  };
}

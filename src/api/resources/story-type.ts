// How stories (and releases, which are stories of type release) are rendered: the resource types the
// serializer uses, with batch loaders (one read per association per response).
//
// People nested in stories (owners, owned_by, requested_by, followers) show their email by the one rule
// of src/queries/email-visibility.ts, evaluated for the story's project (so the answer depends only on
// the caller's role and stays cacheable by (project, version, role)).
import type { CycleTimeDetails } from '../../domain/iteration/cycle-time.js';
import type { Doc, ReadOnlyCollection } from '../../ports/read-store.js';
import type { BlockerReadDoc, CommentReadDoc, LabelReadDoc, ReviewReadDoc, StoryReadDoc, TaskReadDoc } from '../../projections/documents.js';
import type { PeopleAsSeen } from '../../queries/email-visibility.js';
import type { StoryPlanning } from '../../queries/iterations/iterations-query.js';
import { orderedStoryIds } from '../../queries/story-lists.js';
import { storyUrl } from './web-addresses.js';
import { commentsAssociation } from './comment-type.js';
import type { RenderScope } from '../render-scope.js';
import type { Association, LoadContext, ResourceType } from '../resource-type.js';
import { STORY_PRIORITIES, STORY_STATES, STORY_TYPES } from '../../domain/story/story-rules.js';

export interface StoryTypeDeps {
  stories: ReadOnlyCollection<StoryReadDoc>;
  labels: ReadOnlyCollection<LabelReadDoc>;
  tasks: ReadOnlyCollection<TaskReadDoc>;
  comments: ReadOnlyCollection<CommentReadDoc>;
  blockers: ReadOnlyCollection<BlockerReadDoc>;
  reviews: ReadOnlyCollection<ReviewReadDoc>;
  people: PeopleAsSeen;
  siteUrl: string;
  /** Where the project's stories in Current and the Backlog are planned at `now` (queries/iterations). */
  planning(projectId: number, now: number): Promise<ReadonlyMap<number, StoryPlanning>>;
  /** Each story's cycle time details at `now`, as its iteration's details give them (queries/analytics). */
  cycleTimeDetails(storyIds: readonly number[], now: number): Promise<ReadonlyMap<number, CycleTimeDetails>>;
}

/** Any JSON array (pull requests and branches: always empty, see below). */
const ANY_LIST = { type: 'array' } as const;

export function storyResourceType(deps: StoryTypeDeps): ResourceType<StoryReadDoc> {
  return {
    name: 'story',
    kind: 'story',
    attributes: {
      id: 'integer', project_id: 'integer', name: 'string', description: 'string', story_type: { enum: STORY_TYPES },
      current_state: { enum: STORY_STATES }, estimate: 'number', accepted_at: 'datetime', deadline: 'datetime',
      requested_by_id: 'integer', owner_ids: 'integer[]', follower_ids: 'integer[]', label_ids: 'integer[]',
      blocked_story_ids: 'integer[]', created_at: 'datetime', updated_at: 'datetime', story_priority: { enum: STORY_PRIORITIES },
      external_id: 'string', integration_id: 'integer', task_ids: 'integer[]', comment_ids: 'integer[]', blocker_ids: 'integer[]',
      review_ids: 'integer[]', url: 'string', owned_by_id: 'integer', pull_requests: ANY_LIST, pull_request_ids: 'integer[]',
      branches: ANY_LIST, branch_ids: 'integer[]', before_id: 'integer', after_id: 'integer', planned_iteration_number: 'integer',
      projected_completion: 'datetime',
    },
    defaults: [
      'kind', 'id', 'project_id', 'name', 'description', 'story_type', 'current_state', 'estimate', 'accepted_at',
      'deadline', 'requested_by_id', 'owned_by_id', 'owner_ids', 'labels', 'created_at', 'updated_at', 'url',
      'story_priority', 'external_id', 'integration_id',
    ],
    associations: {
      labels: labelsAssociation(deps.labels),
      owners: peopleAssociation(deps, 'owner_ids', (doc) => idList(doc.owner_ids)),
      followers: peopleAssociation(deps, 'follower_ids', (doc) => idList(doc.follower_ids)),
      owned_by: personAssociation(deps, 'owned_by_id', (doc) => idList(doc.owner_ids)[0]),
      requested_by: personAssociation(deps, 'requested_by_id', (doc) => doc.requested_by_id),
      tasks: {
        type: 'task',
        many: true,
        ids: 'task_ids',
        idsFromLoad: true,
        async load(docs) {
          const all = await deps.tasks.find({ story_id: { $in: docs.map((doc) => doc.id) } }, { sort: { position: 1 } });
          return docs.map((doc) => all.filter((task) => task.story_id === doc.id && task.project_id === doc.project_id));
        },
      },
      comments: commentsAssociation(deps.comments, 'story_id'),
      // facts §8: the row the story's iteration's cycle_time_details give it (nested fields apply)
      cycle_time_details: {
        type: 'cycle_time_details',
        async load(docs, ctx) {
          const details = await deps.cycleTimeDetails(docs.map((doc) => doc.id), ctx.now);
          return docs.map((doc) => (details.get(doc.id) ?? null) as Doc | null);
        },
      },
      blockers: storyChildrenAssociation('blocker', 'blocker_ids', deps.blockers),
      reviews: storyChildrenAssociation('review', 'review_ids', deps.reviews),
    },
    computed: {
      url: storyUrls(deps.siteUrl),
      owned_by_id: async (docs) => docs.map((doc) => idList(doc.owner_ids)[0] ?? null),
      // Pull requests and branches cannot be created (a story create naming them is refused), so every
      // story has none; a client asking for them gets the empty lists the service gave.
      pull_requests: noneOf,
      pull_request_ids: noneOf,
      branches: noneOf,
      branch_ids: noneOf,
      before_id: async (docs, ctx) => (await neighboursOf(deps.stories, docs, ctx.scope)).map((pair) => pair.before_id),
      after_id: async (docs, ctx) => (await neighboursOf(deps.stories, docs, ctx.scope)).map((pair) => pair.after_id),
      planned_iteration_number: async (docs, ctx) => (await planningOf(deps, docs, ctx)).map((planned) => planned?.planned_iteration_number ?? null),
      projected_completion: async (docs, ctx) => (await planningOf(deps, docs, ctx)).map((planned) => planned?.projected_completion ?? null),
    },
    movesWithClock: ['cycle_time_details'],
  };
}

/** Each story's planning (none outside Current and the Backlog), one plan per project in the response. */
function planningOf(deps: StoryTypeDeps, docs: readonly StoryReadDoc[], ctx: LoadContext): Promise<Array<StoryPlanning | undefined>> {
  return ctx.scope.memo(docs, 'story-planning', async () => {
    const projectIds = [...new Set(docs.map((doc) => doc.project_id))];
    const plans = new Map(await Promise.all(projectIds.map(async (id) => [id, await deps.planning(id, ctx.now)] as const)));
    return docs.map((doc) => plans.get(doc.project_id)?.get(doc.id));
  });
}

/** A release is a story of type release, shown with the release key set (facts §12). */
export function releaseResourceType(deps: Pick<StoryTypeDeps, 'labels' | 'siteUrl'>): ResourceType<StoryReadDoc> {
  return {
    name: 'release',
    kind: 'release',
    attributes: {
      id: 'integer', project_id: 'integer', name: 'string', description: 'string', current_state: { enum: STORY_STATES },
      deadline: 'datetime', accepted_at: 'datetime', created_at: 'datetime', updated_at: 'datetime', url: 'string', label_ids: 'integer[]',
    },
    defaults: ['kind', 'id', 'created_at', 'updated_at', 'name', 'current_state', 'url', 'project_id', 'labels', 'deadline'],
    associations: { labels: labelsAssociation(deps.labels) },
    computed: { url: storyUrls(deps.siteUrl) },
  };
}

/** Blockers or reviews of each story (they live inside it), oldest first: one read for the whole response. */
function storyChildrenAssociation(type: string, ids: string, children: ReadOnlyCollection<BlockerReadDoc | ReviewReadDoc>): Association<StoryReadDoc> {
  return {
    type,
    many: true,
    ids,
    idsFromLoad: true,
    async load(docs) {
      const all = await children.find({ story_id: { $in: docs.map((doc) => doc.id) } }, { sort: { created_at: 1, id: 1 } });
      return docs.map((doc) => all.filter((child) => child.story_id === doc.id && child.project_id === doc.project_id));
    },
  };
}

async function noneOf(docs: readonly StoryReadDoc[]): Promise<readonly unknown[]> {
  return docs.map(() => []);
}

function storyUrls(siteUrl: string) {
  return async (docs: readonly StoryReadDoc[]) => docs.map((doc) => storyUrl(siteUrl, doc.id));
}

/**
 * Neighbours of each story in its project's order (`after_id` above, `before_id` below), from one
 * ordered read per project in the batch, shared by before_id and after_id through the response's scope.
 */
function neighboursOf(stories: ReadOnlyCollection<StoryReadDoc>, docs: readonly StoryReadDoc[], scope: RenderScope) {
  return scope.memo(docs, 'story-neighbours', async () => {
    const projectIds = [...new Set(docs.map((doc) => doc.project_id))];
    const positions = new Map<number, { ids: number[]; index: Map<number, number> }>();
    for (const projectId of projectIds) {
      const ordered = await orderedStoryIds(stories, projectId);
      positions.set(projectId, { ids: ordered, index: new Map(ordered.map((id, i) => [id, i])) });
    }
    return docs.map((doc) => {
      const order = positions.get(doc.project_id)!;
      const at = order.index.get(doc.id);
      if (at === undefined) return { before_id: null, after_id: null };
      return { after_id: order.ids[at - 1] ?? null, before_id: order.ids[at + 1] ?? null };
    });
  });
}

export function labelsAssociation(labels: ReadOnlyCollection<LabelReadDoc>): Association<StoryReadDoc> {
  return {
    type: 'label',
    many: true,
    ids: 'label_ids',
    alternative: true,
    async load(docs) {
      const projectIds = [...new Set(docs.map((doc) => doc.project_id))];
      const found = await labels.find({ project_id: { $in: projectIds } });
      const byId = new Map(found.map((label) => [label.id, label]));
      return docs.map((doc) => idList(doc.label_ids).flatMap((id) => byId.get(id) ?? []));
    },
  };
}

function peopleAssociation(deps: Pick<StoryTypeDeps, 'people'>, ids: string, idsOf: (doc: StoryReadDoc) => number[]): Association<StoryReadDoc> {
  return {
    type: 'person',
    many: true,
    ids,
    async load(docs, ctx) {
      const found = await peopleById(deps.people, docs.flatMap(idsOf), ctx);
      return docs.map((doc) => idsOf(doc).flatMap((id) => found.get(id) ?? []));
    },
  };
}

function personAssociation(deps: Pick<StoryTypeDeps, 'people'>, ids: string, idOf: (doc: StoryReadDoc) => number | undefined): Association<StoryReadDoc> {
  return {
    type: 'person',
    ids,
    alternative: true,
    async load(docs, ctx) {
      const found = await peopleById(deps.people, docs.map(idOf), ctx);
      return docs.map((doc) => found.get(Number(idOf(doc))) ?? null);
    },
  };
}

/** People by id as the caller sees them in a response about the request's project. */
export function peopleById(people: PeopleAsSeen, ids: readonly unknown[], ctx: Pick<LoadContext, 'actor' | 'project'>): Promise<Map<number, Doc>> {
  const project = ctx.project ? { id: ctx.project.id, role: ctx.project.role } : null;
  return people.byIds({ actorId: ctx.actor?.id ?? null, project }, ids);
}

function idList(value: unknown): number[] {
  return Array.isArray(value) ? (value as number[]) : [];
}

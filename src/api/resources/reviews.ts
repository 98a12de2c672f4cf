// Tracker's code reviews: a project's review types and its stories' reviews.
//
//   GET    /projects/:project_id/review_types                                 readers; by id; not paginated
//   POST   /projects/:project_id/review_types                                 writers; `name`, `hidden`
//   GET    /projects/:project_id/review_types/:review_type_id                 readers
//   PUT    /projects/:project_id/review_types/:review_type_id                 writers; `name`, `hidden`
//   DELETE /projects/:project_id/review_types/:review_type_id                 writers; its reviews go with it
//   GET    /projects/:project_id/stories/:story_id/reviews                    readers; oldest first
//   POST   /projects/:project_id/stories/:story_id/reviews                    writers; `review_type_id`, `reviewer_id`, `status`
//   GET    /projects/:project_id/stories/:story_id/reviews/:review_id         readers
//   PUT    /projects/:project_id/stories/:story_id/reviews/:review_id         writers; `review_type_id`, `reviewer_id`, `status`
//   DELETE /projects/:project_id/stories/:story_id/reviews/:review_id         writers
//
// Key sets as recorded (facts §12): review_type `kind, id, project_id, name, hidden, created_at,
// updated_at`; review `kind, id, story_id, review_type_id, reviewer_id, status, created_at, updated_at`,
// with `review_type` (recorded beside `review_type_id` with `:default,review_type`) and `reviewer` nested
// on request. A new project starts with Tracker's four default types (domain/review/review-state.ts).
import { decideCreateReview } from '../../domain/review/create-review.js';
import { decideDeleteReview } from '../../domain/review/delete-review.js';
import { decideUpdateReview } from '../../domain/review/update-review.js';
import { type NewReview } from '../../domain/review/review-rules.js';
import { decideCreateReviewType } from '../../domain/review/create-review-type.js';
import { decideDeleteReviewType } from '../../domain/review/delete-review-type.js';
import { decideUpdateReviewType } from '../../domain/review/update-review-type.js';
import { REVIEW_STATUSES } from '../../domain/review/review-state.js';
import { streams } from '../../domain/events.js';
import { TEXT_LIMITS } from '../../domain/input-limits.js';
import type { ReadOnlyCollection } from '../../ports/read-store.js';
import type { PeopleAsSeen } from '../../queries/email-visibility.js';
import { commandMeta } from '../command-meta.js';
import { apiError } from '../error-catalogue.js';
import { idParam } from '../project-authorization.js';
import { requestSchema, text } from '../request-schema.js';
import type { Association, ResourceType } from '../resource-type.js';
import type { ApiRequest, RouteDefinition } from '../route-table.js';
import type { ResourceDeps, ResourceModule } from './resource-module.js';
import { storyChildRoutes } from './story-child-routes.js';
import { peopleById } from './story-type.js';
import type { ReviewReadDoc, ReviewTypeReadDoc } from '../../projections/documents.js';

const REVIEW_TYPE_ATTRIBUTES = {
  id: 'integer', project_id: 'integer', name: 'string', hidden: 'boolean', created_at: 'datetime', updated_at: 'datetime',
} as const;
const REVIEW_ATTRIBUTES = {
  id: 'integer', story_id: 'integer', review_type_id: 'integer', reviewer_id: 'integer', status: { enum: REVIEW_STATUSES },
  created_at: 'datetime', updated_at: 'datetime',
} as const;

export const reviewTypeType: ResourceType = {
  name: 'review_type',
  kind: 'review_type',
  attributes: REVIEW_TYPE_ATTRIBUTES,
  defaults: ['kind', ...Object.keys(REVIEW_TYPE_ATTRIBUTES)],
};

function reviewType(reviewTypes: ReadOnlyCollection<ReviewTypeReadDoc>, people: PeopleAsSeen): ResourceType<ReviewReadDoc> {
  const nestedType: Association<ReviewReadDoc> = {
    type: 'review_type',
    ids: 'review_type_id',
    async load(docs) {
      const found = await reviewTypes.find({ id: { $in: [...new Set(docs.map((doc) => doc.review_type_id))] } });
      const byId = new Map(found.map((type) => [type.id, type]));
      return docs.map((doc) => byId.get(doc.review_type_id) ?? null);
    },
  };
  const reviewer: Association<ReviewReadDoc> = {
    type: 'person',
    ids: 'reviewer_id',
    alternative: true,
    async load(docs, ctx) {
      const found = await peopleById(people, docs.map((doc) => doc.reviewer_id), ctx);
      return docs.map((doc) => found.get(doc.reviewer_id) ?? null);
    },
  };
  return {
    name: 'review',
    kind: 'review',
    attributes: REVIEW_ATTRIBUTES,
    defaults: ['kind', ...Object.keys(REVIEW_ATTRIBUTES)],
    associations: { review_type: nestedType, reviewer },
  };
}

const checkCreateType = requestSchema<{ name: string; hidden?: boolean }>({
  type: 'object',
  properties: { name: text(TEXT_LIMITS.review_type_name), hidden: { type: 'boolean' } },
  required: ['name'],
  additionalProperties: false,
});
const checkUpdateType = requestSchema<{ name?: string; hidden?: boolean }>({
  type: 'object',
  properties: { name: text(TEXT_LIMITS.review_type_name), hidden: { type: 'boolean' } },
  additionalProperties: false,
});

const REVIEW_PROPERTIES = {
  review_type_id: { type: 'integer' },
  reviewer_id: { type: ['integer', 'null'] },
  status: { enum: [...REVIEW_STATUSES] },
};

/** A new review (POST, or one of a story create's nested `reviews`): no id. */
export const NEW_REVIEW = { type: 'object', properties: { ...REVIEW_PROPERTIES, id: false }, required: ['review_type_id'], additionalProperties: false };

const checkCreateReview = requestSchema<NewReview>(NEW_REVIEW);
const checkUpdateReview = requestSchema<Partial<NewReview>>({ type: 'object', properties: REVIEW_PROPERTIES, additionalProperties: false });

export function reviewResources(deps: ResourceDeps): ResourceModule {
  const reviewTypes = deps.read('review_types');
  const { writer } = deps;

  async function pathReviewType(req: ApiRequest): Promise<ReviewTypeReadDoc> {
    const found = await reviewTypes.findOne({ id: idParam(req.params['review_type_id']), project_id: req.project!.id });
    if (!found) throw apiError('unfound_resource');
    return found;
  }

  const typeRoutes: RouteDefinition[] = [
    {
      method: 'GET',
      path: '/projects/:project_id/review_types',
      access: 'project:read',
      cacheable: true,
      answers: { type: 'review_type', list: true },
      summary: "A project's review types",
      handle: async (req) => ({ kind: 'resource', type: 'review_type', value: await reviewTypes.find({ project_id: req.project!.id }, { sort: { id: 1 } }) }),
    },
    {
      method: 'POST',
      path: '/projects/:project_id/review_types',
      access: 'project:write',
      input: { body: checkCreateType },
      answers: { type: 'review_type', created: true },
      summary: 'Create a review type',
      async handle(req) {
        const { doc, version } = await writer.onProject(req.project!.id, decideCreateReviewType, checkCreateType.read(req), commandMeta(req));
        return { kind: 'resource', type: 'review_type', value: doc, created: true, projectVersion: version };
      },
    },
    {
      method: 'GET',
      path: '/projects/:project_id/review_types/:review_type_id',
      access: 'project:read',
      cacheable: true,
      answers: { type: 'review_type' },
      summary: 'A review type',
      handle: async (req) => ({ kind: 'resource', type: 'review_type', value: await pathReviewType(req) }),
    },
    {
      method: 'PUT',
      path: '/projects/:project_id/review_types/:review_type_id',
      access: 'project:write',
      input: { body: checkUpdateType },
      answers: { type: 'review_type' },
      summary: 'Change a review type (name, hidden)',
      async handle(req) {
        const current = await pathReviewType(req);
        const command = { ...checkUpdateType.read(req), review_type_id: current.id };
        const { doc, version } = await writer.onProject(req.project!.id, decideUpdateReviewType, command, commandMeta(req));
        return { kind: 'resource', type: 'review_type', value: doc, projectVersion: version };
      },
    },
    {
      method: 'DELETE',
      path: '/projects/:project_id/review_types/:review_type_id',
      access: 'project:write',
      answers: 'empty',
      summary: 'Delete a review type (its reviews go with it)',
      async handle(req) {
        const current = await pathReviewType(req);
        const outcome = await writer.execute(streams.project(req.project!.id), decideDeleteReviewType, { review_type_id: current.id }, commandMeta(req));
        return { kind: 'empty', projectVersion: outcome.version };
      },
    },
  ];

  const reviewRoutes = storyChildRoutes(
    {
      type: 'review',
      names: { one: 'review', many: 'reviews' },
      segment: 'reviews',
      idParam: 'review_id',
      stories: deps.read('stories'),
      children: deps.read('reviews'),
      order: { created_at: 1, id: 1 },
      checkCreate: checkCreateReview,
      checkUpdate: checkUpdateReview,
      decideCreate: decideCreateReview,
      decideUpdate: decideUpdateReview,
      decideDelete: decideDeleteReview,
    },
    writer,
  );
  return { reference: { tag: 'Reviews', description: "Review types of a project and the reviews of its stories." }, routes: [...typeRoutes, ...reviewRoutes], types: [reviewTypeType, reviewType(reviewTypes, deps.queries.people)] };
}

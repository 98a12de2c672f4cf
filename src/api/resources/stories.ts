// Stories, their owners and their labels.
//
//   GET    /projects/:project_id/stories                      readers; filters (story-list-query.ts), `filter`
//                                                            (the search grammar, queries/search/); priority order; paginated;
//                                                            a member's GET is their view of the project (last_viewed_at)
//   POST   /projects/:project_id/stories                      writers; nested tasks, labels by name or id
//   GET    /projects/:project_id/stories/bulk?ids=1,2         readers; at most 500 ids, unknown ids skipped
//   GET    /projects/:project_id/stories/:story_id            readers
//   PUT    /projects/:project_id/stories/:story_id            writers; `project_id` of another project moves it
//   DELETE /projects/:project_id/stories/:story_id            writers
//   GET | PUT | DELETE /stories/:story_id                     the same, the project found from the story
//   GET    /projects/:project_id/stories/:story_id/owners     readers; array of person
//   POST   /projects/:project_id/stories/:story_id/owners     writers; body `id` (person id); the person
//   DELETE /projects/:project_id/stories/:story_id/owners/:person_id
//   GET    /projects/:project_id/stories/:story_id/labels     readers; array of label
//   POST   /projects/:project_id/stories/:story_id/labels     writers; body `id` or `name`; the label
//   DELETE /projects/:project_id/stories/:story_id/labels/:label_id   the removed label
//
// A move (PUT with another `project_id`) needs write access to both projects and carries no other
// attribute (send those in a separate PUT); see src/commands/story-move.ts for its two events.
import { invalidField } from '../../domain/errors.js';
import { normalizedLabelName } from '../../domain/project-state.js';
import { streams } from '../../domain/events.js';
import { decideCreateStory } from '../../domain/story/create-story.js';
import { decideDeleteStory } from '../../domain/story/delete-story.js';
import { decideAddStoryLabel } from '../../domain/story/add-story-label.js';
import { decideAddStoryOwner } from '../../domain/story/add-story-owner.js';
import { decideRemoveStoryLabel } from '../../domain/story/remove-story-label.js';
import { decideRemoveStoryOwner } from '../../domain/story/remove-story-owner.js';
import { decideUpdateStory } from '../../domain/story/update-story.js';
import { moveStory } from '../../commands/story-move.js';
import { commandMeta } from '../command-meta.js';
import type { Doc } from '../../ports/read-store.js';
import { isXhr, missingCredentials } from '../authentication.js';
import { apiError } from '../error-catalogue.js';
import { idParam } from '../project-authorization.js';
import { TEXT_LIMITS } from '../../domain/input-limits.js';
import { requestSchema, text } from '../request-schema.js';
import type { ApiRequest, ApiResult, ProjectAccessLevel, RouteDefinition, RouteRequest } from '../route-table.js';
import type { ResourceDeps, ResourceModule } from './resource-module.js';
import { STORY_LIST_PARAMETERS, storyListQuery } from './story-list-query.js';
import { storyList } from '../../queries/story-lists.js';
import { searcherCacheVariant, searcherOf } from './searcher-of-request.js';
import { checkStoryCreate, checkStoryUpdate, createStoryInput, updateStoryInput, UPDATE_KEYS } from './story-request.js';
import { peopleById, storyResourceType } from './story-type.js';
import { analyticsReads, storiesCycleTimeDetails } from '../../queries/analytics/analytics-query.js';
import { storyPlanning } from '../../queries/iterations/iterations-query.js';
import { currentIterationVariant } from './iterations.js';
import type { StoryReadDoc } from '../../projections/documents.js';

const PLANNING_FIELDS = /planned_iteration_number|projected_completion/;

export const MAX_BULK_IDS = 500;

const checkOwnerBody = requestSchema<{ id: number }>({ type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] });
const checkLabelBody = requestSchema<{ id?: number; name?: string }>({
  type: 'object',
  properties: { id: { type: 'integer' }, name: text(TEXT_LIMITS.label_name) },
});

export function storyResources(deps: ResourceDeps): ResourceModule {
  const stories = deps.read('stories');
  const labels = deps.read('labels');
  const people = deps.read('people');
  const { writer } = deps;
  const iterationReads = analyticsReads(deps.read, deps.readModelChanges);
  /** Planning fields move with the current iteration, which the project version does not count. */
  const cacheVariant = (req: ApiRequest) => (PLANNING_FIELDS.test(req.query['fields'] ?? '') ? currentIterationVariant(iterationReads, req) : Promise.resolve(''));
  /** A `filter` search depends on the caller (time zone, is:following) and on today (relative dates, done stories). */
  const listCacheVariant = async (req: ApiRequest) => `${await cacheVariant(req)}|${await searcherCacheVariant(iterationReads, req, 'filter')}`;
  const listReads = { stories, labels, searches: deps.queries.searches, iterations: iterationReads };
  const storyType = storyResourceType({
    stories,
    labels,
    tasks: deps.read('tasks'),
    comments: deps.read('comments'),
    blockers: deps.read('blockers'),
    reviews: deps.read('reviews'),
    people: deps.queries.people,
    siteUrl: deps.settings.siteUrl,
    planning: (projectId, now) => storyPlanning(iterationReads, projectId, now),
    cycleTimeDetails: (storyIds, now) => storiesCycleTimeDetails(iterationReads, storyIds, now),
  });

  const story = (value: Doc, projectVersion?: number, created = false): ApiResult => ({
    kind: 'resource',
    type: 'story',
    value,
    projectId: Number(value.project_id),
    ...(projectVersion !== undefined ? { projectVersion } : {}),
    ...(created ? { created: true } : {}),
  });

  /** The story of the path, in the project the route's declared access resolved. */
  async function pathStory(req: ApiRequest): Promise<StoryReadDoc> {
    const found = await stories.findOne({ id: idParam(req.params['story_id']), project_id: req.project!.id });
    if (!found) throw apiError('unfound_resource');
    return found;
  }

  /**
   * The project of `/stories/:story_id`, for the access the bare story routes declare. The rules are the
   * project-scoped path's: anonymous callers read stories of public projects, and get 401 for any other
   * id, existing or not, so they cannot probe which stories exist.
   */
  const storyProject = (level: ProjectAccessLevel) => ({
    level,
    async of(req: RouteRequest): Promise<number> {
      const found = await stories.findOne({ id: idParam(req.params['story_id']) });
      if (!found) throw req.actor ? apiError('unfound_resource') : missingCredentials(isXhr(req));
      return Number(found.project_id);
    },
  });

  async function list(req: ApiRequest): Promise<ApiResult> {
    const { criteria, page } = storyListQuery(req.query, searcherOf(req, deps.settings.searchWork));
    return { kind: 'resource', type: 'story', ...(await storyList(listReads, req.project!.id, criteria, page)) };
  }

  async function bulk(req: ApiRequest): Promise<ApiResult> {
    const text = req.query['ids'];
    if (text === undefined || text.trim() === '') throw invalidField('ids', 'this endpoint requires the parameter: ids');
    const parts = text.split(',').map((part) => part.trim());
    if (parts.some((part) => !/^[0-9]{1,16}$/.test(part))) throw invalidField('ids', "'ids' must be story ids separated by commas");
    const ids = [...new Set(parts.map(Number))];
    if (ids.length > MAX_BULK_IDS) throw invalidField('ids', `'ids' can hold at most ${MAX_BULK_IDS} ids`);
    const found = new Map((await stories.find({ id: { $in: ids }, project_id: req.project!.id })).map((doc) => [doc.id, doc]));
    return { kind: 'resource', type: 'story', value: ids.flatMap((id) => found.get(id) ?? []) };
  }

  async function update(req: ApiRequest, current: StoryReadDoc): Promise<ApiResult> {
    const projectId = current.project_id;
    const { input, projectId: targetId } = updateStoryInput(current.id, checkStoryUpdate.read(req));
    if (targetId === undefined || targetId === projectId) {
      const { doc, version } = await writer.onProject(projectId, decideUpdateStory, input, commandMeta(req));
      return story(doc, version);
    }
    const extra = Object.keys(req.body).filter((key) => UPDATE_KEYS.includes(key));
    if (extra.length > 0) {
      throw invalidField('project_id', `A move to another project takes no other attribute; send ${extra.join(', ')} in a separate request.`);
    }
    await req.accessTo(targetId, 'project:write');
    const { doc, version } = await moveStory({ commands: deps.commands, writer, stories }, projectId, targetId, current.id, commandMeta(req));
    return story(doc, version);
  }

  async function remove(req: ApiRequest, current: StoryReadDoc): Promise<ApiResult> {
    const stream = streams.project(current.project_id);
    const outcome = await writer.execute(stream, decideDeleteStory, { story_id: current.id }, commandMeta(req));
    return { kind: 'empty', projectVersion: outcome.version };
  }

  const routes: RouteDefinition[] = [
    {
      method: 'GET',
      path: '/projects/:project_id/stories',
      access: 'project:read',
      cacheable: true,
      cacheVariant: listCacheVariant,
      countsAsView: true,
      input: { query: STORY_LIST_PARAMETERS },
      answers: { type: 'story', list: true, paginated: true },
      summary: "A project's stories in priority order, filtered or searched",
      handle: list,
    },
    {
      method: 'POST',
      path: '/projects/:project_id/stories',
      access: 'project:write',
      input: { body: checkStoryCreate },
      answers: { type: 'story', created: true },
      summary: 'Create a story (with tasks, labels, comments, blockers, reviews)',
      async handle(req) {
        const input = await createStoryInput(checkStoryCreate.read(req), people);
        const { doc, version } = await writer.onProject(req.project!.id, decideCreateStory, input, commandMeta(req));
        return story(doc, version, true);
      },
    },
    {
      method: 'GET',
      path: '/projects/:project_id/stories/bulk',
      access: 'project:read',
      cacheable: true,
      cacheVariant,
      input: {
        query: {
          type: 'object',
          properties: { ids: { type: 'string', description: `Story ids separated by commas (at most ${MAX_BULK_IDS}); unknown ids are skipped.`, examples: ['501,502'] } },
          required: ['ids'],
        },
      },
      answers: { type: 'story', list: true },
      summary: 'Stories of a project by id',
      handle: bulk,
    },
    {
      method: 'GET',
      path: '/projects/:project_id/stories/:story_id',
      access: 'project:read',
      cacheable: true,
      cacheVariant,
      answers: { type: 'story' },
      summary: 'A story',
      handle: async (req) => story(await pathStory(req)),
    },
    {
      method: 'PUT',
      path: '/projects/:project_id/stories/:story_id',
      access: 'project:write',
      input: { body: checkStoryUpdate },
      answers: { type: 'story' },
      summary: 'Change a story, move it in the order, or move it to another project (project_id alone)',
      handle: async (req) => update(req, await pathStory(req)),
    },
    {
      method: 'DELETE',
      path: '/projects/:project_id/stories/:story_id',
      access: 'project:write',
      answers: 'empty',
      summary: 'Delete a story',
      handle: async (req) => remove(req, await pathStory(req)),
    },
    {
      method: 'GET',
      path: '/stories/:story_id',
      access: 'public',
      project: storyProject('project:read'),
      answers: { type: 'story' },
      summary: 'A story by id alone',
      handle: async (req) => story(await pathStory(req)),
    },
    {
      method: 'PUT',
      path: '/stories/:story_id',
      access: 'person',
      project: storyProject('project:write'),
      input: { body: checkStoryUpdate },
      answers: { type: 'story' },
      summary: 'Change a story by id alone',
      handle: async (req) => update(req, await pathStory(req)),
    },
    {
      method: 'DELETE',
      path: '/stories/:story_id',
      access: 'person',
      project: storyProject('project:write'),
      answers: 'empty',
      summary: 'Delete a story by id alone',
      handle: async (req) => remove(req, await pathStory(req)),
    },
    {
      method: 'GET',
      path: '/projects/:project_id/stories/:story_id/owners',
      access: 'project:read',
      cacheable: true,
      answers: { type: 'person', list: true },
      summary: "A story's owners",
      async handle(req) {
        const ownerIds = (await pathStory(req)).owner_ids ?? [];
        const found = await peopleById(deps.queries.people, ownerIds, req);
        return { kind: 'resource', type: 'person', value: ownerIds.flatMap((id) => found.get(id) ?? []) };
      },
    },
    {
      method: 'POST',
      path: '/projects/:project_id/stories/:story_id/owners',
      access: 'project:write',
      input: { body: checkOwnerBody },
      answers: { type: 'person', created: true },
      summary: 'Add an owner to a story',
      async handle(req) {
        const current = await pathStory(req);
        const { id: personId } = checkOwnerBody.read(req);
        const { version } = await writer.onProject(req.project!.id, decideAddStoryOwner, { story_id: current.id, person_id: personId }, commandMeta(req));
        const found = await peopleById(deps.queries.people, [personId], req);
        const person = found.get(personId);
        if (!person) throw apiError('unfound_resource');
        return { kind: 'resource', type: 'person', value: person, created: true, projectVersion: version };
      },
    },
    {
      method: 'DELETE',
      path: '/projects/:project_id/stories/:story_id/owners/:person_id',
      access: 'project:write',
      answers: 'empty',
      summary: 'Remove an owner from a story',
      async handle(req) {
        const current = await pathStory(req);
        const personId = idParam(req.params['person_id']);
        const { version } = await writer.onProject(req.project!.id, decideRemoveStoryOwner, { story_id: current.id, person_id: personId }, commandMeta(req));
        return { kind: 'empty', projectVersion: version };
      },
    },
    {
      method: 'GET',
      path: '/projects/:project_id/stories/:story_id/labels',
      access: 'project:read',
      cacheable: true,
      answers: { type: 'label', list: true },
      summary: "A story's labels",
      async handle(req) {
        const labelIds = (await pathStory(req)).label_ids ?? [];
        const found = new Map((await labels.find({ project_id: req.project!.id, id: { $in: labelIds } })).map((label) => [label.id, label]));
        return { kind: 'resource', type: 'label', value: labelIds.flatMap((id) => found.get(id) ?? []) };
      },
    },
    {
      method: 'POST',
      path: '/projects/:project_id/stories/:story_id/labels',
      access: 'project:write',
      input: { body: checkLabelBody },
      answers: { type: 'label', created: true },
      summary: 'Add a label to a story (by id, or by name: made when new)',
      async handle(req) {
        const current = await pathStory(req);
        const body = checkLabelBody.read(req);
        if (body.id === undefined && body.name === undefined) {
          throw invalidField('name', 'this endpoint requires one of the following parameters: id, name');
        }
        const reference = body.id !== undefined ? { id: body.id } : body.name!;
        const { version } = await writer.onProject(req.project!.id, decideAddStoryLabel, { story_id: current.id, label: reference }, commandMeta(req));
        const label = await labels.findOne(
          body.id !== undefined ? { id: body.id, project_id: req.project!.id } : { project_id: req.project!.id, name: normalizedLabelName(body.name!) },
        );
        if (!label) throw apiError('unfound_resource');
        return { kind: 'resource', type: 'label', value: label, created: true, projectVersion: version };
      },
    },
    {
      method: 'DELETE',
      path: '/projects/:project_id/stories/:story_id/labels/:label_id',
      access: 'project:write',
      answers: { type: 'label' },
      summary: 'Remove a label from a story (the label stays in the project)',
      async handle(req) {
        const current = await pathStory(req);
        const labelId = idParam(req.params['label_id']);
        const { version } = await writer.onProject(req.project!.id, decideRemoveStoryLabel, { story_id: current.id, label_id: labelId }, commandMeta(req));
        const label = await labels.findOne({ id: labelId, project_id: req.project!.id });
        if (!label) throw apiError('unfound_resource');
        return { kind: 'resource', type: 'label', value: label, projectVersion: version };
      },
    },
  ];
  return { reference: { tag: 'Stories', description: "Stories, their owners and labels; listing, filtering, moving." }, routes, types: [storyType] };
}

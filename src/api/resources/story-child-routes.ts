// The resources that live inside a story and are addressed by its path (tasks, blockers):
//
//   GET    /projects/:project_id/stories/:story_id/<segment>              readers; the story's children, in `order`
//   POST   /projects/:project_id/stories/:story_id/<segment>              writers
//   GET    /projects/:project_id/stories/:story_id/<segment>/:<idParam>   readers
//   PUT    /projects/:project_id/stories/:story_id/<segment>/:<idParam>   writers
//   DELETE /projects/:project_id/stories/:story_id/<segment>/:<idParam>   writers
//
// The story of the path must be in the route's project and the child in that story (unfound otherwise);
// each write is its resource's decider on the project stream, answered with the child as it was written.
import type { ResourceWriter } from '../../commands/resource-writer.js';
import type { Decider } from '../../domain/decision.js';
import { streams } from '../../domain/events.js';
import type { ReadOnlyCollection, SortSpec } from '../../ports/read-store.js';
import type { BlockerReadDoc, ReviewReadDoc, StoryReadDoc, TaskReadDoc } from '../../projections/documents.js';
import { commandMeta } from '../command-meta.js';
import { apiError } from '../error-catalogue.js';
import { idParam } from '../project-authorization.js';
import type { Checker } from '../request-schema.js';
import type { ApiRequest, RouteDefinition } from '../route-table.js';

/** The documents of a story's children: tasks, blockers, reviews. */
type StoryChildReadDoc = TaskReadDoc | BlockerReadDoc | ReviewReadDoc;

/** The story and the child a command addresses: `{ story_id, <idParam>: id }`. */
type ChildKey<K extends string> = { story_id: number } & Record<K, number>;

export interface StoryChildResource<K extends string, Create, Update> {
  /** The resource type the routes answer (`task`, `blocker`). */
  type: string;
  /** What the reference calls one and several of them. */
  names: { one: string; many: string };
  /** The path segment after the story (`tasks`, `blockers`). */
  segment: string;
  /** The path parameter of one child, also its key in the update and delete commands (`task_id`). */
  idParam: K;
  stories: ReadOnlyCollection<StoryReadDoc>;
  children: ReadOnlyCollection<StoryChildReadDoc>;
  /** The order of the list. */
  order: SortSpec;
  checkCreate: Checker<Create>;
  checkUpdate: Checker<Update>;
  decideCreate: Decider<Create & { story_id: number }>;
  decideUpdate: Decider<Update & ChildKey<K>>;
  decideDelete: Decider<ChildKey<K>>;
}

export function storyChildRoutes<K extends string, Create, Update>(resource: StoryChildResource<K, Create, Update>, writer: ResourceWriter): RouteDefinition[] {
  const { type, idParam: childParam, stories, children, names } = resource;

  async function storyIdOf(req: ApiRequest): Promise<number> {
    const story = await stories.findOne({ id: idParam(req.params['story_id']), project_id: req.project!.id });
    if (!story) throw apiError('unfound_resource');
    return story.id;
  }

  async function childOf(req: ApiRequest): Promise<StoryChildReadDoc> {
    const found = await children.findOne({ id: idParam(req.params[childParam]), story_id: await storyIdOf(req), project_id: req.project!.id });
    if (!found) throw apiError('unfound_resource');
    return found;
  }

  const keyOf = (child: StoryChildReadDoc) => ({ story_id: child.story_id, [childParam]: child.id }) as ChildKey<K>;
  const base = `/projects/:project_id/stories/:story_id/${resource.segment}`;
  return [
    {
      method: 'GET',
      path: base,
      access: 'project:read',
      cacheable: true,
      answers: { type, list: true },
      summary: `A story's ${names.many}`,
      async handle(req) {
        const value = await children.find({ story_id: await storyIdOf(req), project_id: req.project!.id }, { sort: resource.order });
        return { kind: 'resource', type, value };
      },
    },
    {
      method: 'POST',
      path: base,
      access: 'project:write',
      input: { body: resource.checkCreate },
      answers: { type, created: true },
      summary: `Add a ${names.one} to a story`,
      async handle(req) {
        const command = { ...resource.checkCreate.read(req), story_id: await storyIdOf(req) };
        const { doc, version } = await writer.onProject(req.project!.id, resource.decideCreate, command, commandMeta(req));
        return { kind: 'resource', type, value: doc, created: true, projectVersion: version };
      },
    },
    {
      method: 'GET',
      path: `${base}/:${childParam}`,
      access: 'project:read',
      cacheable: true,
      answers: { type },
      summary: `A ${names.one} of a story`,
      handle: async (req) => ({ kind: 'resource', type, value: await childOf(req) }),
    },
    {
      method: 'PUT',
      path: `${base}/:${childParam}`,
      access: 'project:write',
      input: { body: resource.checkUpdate },
      answers: { type },
      summary: `Change a ${names.one}`,
      async handle(req) {
        const current = await childOf(req);
        const command = { ...resource.checkUpdate.read(req), ...keyOf(current) };
        const { doc, version } = await writer.onProject(req.project!.id, resource.decideUpdate, command, commandMeta(req));
        return { kind: 'resource', type, value: doc, projectVersion: version };
      },
    },
    {
      method: 'DELETE',
      path: `${base}/:${childParam}`,
      access: 'project:write',
      answers: 'empty',
      summary: `Delete a ${names.one}`,
      async handle(req) {
        const current = await childOf(req);
        const outcome = await writer.execute(streams.project(req.project!.id), resource.decideDelete, keyOf(current), commandMeta(req));
        return { kind: 'empty', projectVersion: outcome.version };
      },
    },
  ];
}

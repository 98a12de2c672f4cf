// A story's blockers (facts §13: `…/stories/{id}/blockers`): a description, `#<id>` naming a blocking
// story of the project, and `resolved`. The named story's `blocked_story_ids` follows (the deciders).
//
//   GET    /projects/:project_id/stories/:story_id/blockers               readers; oldest first
//   POST   /projects/:project_id/stories/:story_id/blockers               writers; `description`, `resolved`
//   GET    /projects/:project_id/stories/:story_id/blockers/:blocker_id   readers
//   PUT    /projects/:project_id/stories/:story_id/blockers/:blocker_id   writers; `description`, `resolved`
//   DELETE /projects/:project_id/stories/:story_id/blockers/:blocker_id   writers
//
// No source records the blocker's key set; it is rendered with every attribute the service stores.
import { MAX_BLOCKER_DESCRIPTION, decideCreateBlocker, decideDeleteBlocker, decideUpdateBlocker } from '../../domain/blocker/blocker-decisions.js';
import type { NewBlocker } from '../../domain/blocker/blocker-decisions.js';
import { streams } from '../../domain/events.js';
import { commandMeta } from '../command-meta.js';
import { requestSchema, text } from '../request-schema.js';
import type { ResourceType } from '../resource-type.js';
import type { ApiRequest, RouteDefinition } from '../route-table.js';
import type { ResourceDeps, ResourceModule } from './resource-module.js';
import { storyChildPath } from './story-child-path.js';

export const blockerType: ResourceType = {
  name: 'blocker',
  kind: 'blocker',
  attributes: ['id', 'story_id', 'person_id', 'description', 'resolved', 'created_at', 'updated_at'],
  datetimes: ['created_at', 'updated_at'],
  defaults: ['kind', 'id', 'story_id', 'person_id', 'description', 'resolved', 'created_at', 'updated_at'],
};

const BLOCKER_PROPERTIES = { description: text(MAX_BLOCKER_DESCRIPTION), resolved: { type: 'boolean' } };

/** A new blocker (POST, or one of a story create's nested `blockers`): no id. */
export const NEW_BLOCKER = { type: 'object', properties: { ...BLOCKER_PROPERTIES, id: false }, required: ['description'], additionalProperties: false };

const checkCreate = requestSchema<NewBlocker>(NEW_BLOCKER);
const checkUpdate = requestSchema<Partial<NewBlocker>>({ type: 'object', properties: BLOCKER_PROPERTIES, additionalProperties: false });

export function blockerResources(deps: ResourceDeps): ResourceModule {
  const blockers = deps.read('blockers');
  const stories = deps.read('stories');
  const { writer } = deps;

  const path = storyChildPath(stories, blockers);
  const pathStoryId = path.storyId;
  const pathBlocker = (req: ApiRequest) => path.child(req, 'blocker_id');


  const base = '/projects/:project_id/stories/:story_id/blockers';
  const routes: RouteDefinition[] = [
    {
      method: 'GET',
      path: base,
      access: 'project:read',
      cacheable: true,
      async handle(req) {
        const storyId = await pathStoryId(req);
        const value = await blockers.find({ story_id: storyId, project_id: req.project!.id }, { sort: { created_at: 1, id: 1 } });
        return { kind: 'resource', type: 'blocker', value };
      },
    },
    {
      method: 'POST',
      path: base,
      access: 'project:write',
      async handle(req) {
        const storyId = await pathStoryId(req);
        const { doc, version } = await writer.onProject(req.project!.id, decideCreateBlocker, { ...checkCreate(req.body), story_id: storyId }, commandMeta(req));
        return { kind: 'resource', type: 'blocker', value: doc, created: true, projectVersion: version };
      },
    },
    {
      method: 'GET',
      path: `${base}/:blocker_id`,
      access: 'project:read',
      cacheable: true,
      handle: async (req) => ({ kind: 'resource', type: 'blocker', value: await pathBlocker(req) }),
    },
    {
      method: 'PUT',
      path: `${base}/:blocker_id`,
      access: 'project:write',
      async handle(req) {
        const current = await pathBlocker(req);
        const command = { ...checkUpdate(req.body), story_id: Number(current['story_id']), blocker_id: current.id };
        const { doc, version } = await writer.onProject(req.project!.id, decideUpdateBlocker, command, commandMeta(req));
        return { kind: 'resource', type: 'blocker', value: doc, projectVersion: version };
      },
    },
    {
      method: 'DELETE',
      path: `${base}/:blocker_id`,
      access: 'project:write',
      async handle(req) {
        const current = await pathBlocker(req);
        const command = { story_id: Number(current['story_id']), blocker_id: current.id };
        const outcome = await writer.execute(streams.project(req.project!.id), decideDeleteBlocker, command, commandMeta(req));
        return { kind: 'empty', projectVersion: outcome.version };
      },
    },
  ];
  return { routes, types: [blockerType] };
}

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
import { MAX_BLOCKER_DESCRIPTION } from '../../domain/blocker/blocker-changes.js';
import { decideCreateBlocker } from '../../domain/blocker/create-blocker.js';
import { decideDeleteBlocker } from '../../domain/blocker/delete-blocker.js';
import { decideUpdateBlocker } from '../../domain/blocker/update-blocker.js';
import type { NewBlocker } from '../../domain/blocker/blocker-changes.js';
import { requestSchema, text } from '../request-schema.js';
import type { ResourceType } from '../resource-type.js';
import type { ResourceDeps, ResourceModule } from './resource-module.js';
import { storyChildRoutes } from './story-child-routes.js';

export const blockerType: ResourceType = {
  name: 'blocker',
  kind: 'blocker',
  attributes: {
    id: 'integer', story_id: 'integer', person_id: 'integer', description: 'string', resolved: 'boolean', created_at: 'datetime',
    updated_at: 'datetime',
  },
  defaults: ['kind', 'id', 'story_id', 'person_id', 'description', 'resolved', 'created_at', 'updated_at'],
};

const BLOCKER_PROPERTIES = { description: text(MAX_BLOCKER_DESCRIPTION), resolved: { type: 'boolean' } };

/** A new blocker (POST, or one of a story create's nested `blockers`): no id. */
export const NEW_BLOCKER = { type: 'object', properties: { ...BLOCKER_PROPERTIES, id: false }, required: ['description'], additionalProperties: false };

const checkCreate = requestSchema<NewBlocker>(NEW_BLOCKER);
const checkUpdate = requestSchema<Partial<NewBlocker>>({ type: 'object', properties: BLOCKER_PROPERTIES, additionalProperties: false });

export function blockerResources(deps: ResourceDeps): ResourceModule {
  const routes = storyChildRoutes(
    {
      type: 'blocker',
      names: { one: 'blocker', many: 'blockers' },
      segment: 'blockers',
      idParam: 'blocker_id',
      stories: deps.read('stories'),
      children: deps.read('blockers'),
      order: { created_at: 1, id: 1 },
      checkCreate,
      checkUpdate,
      decideCreate: decideCreateBlocker,
      decideUpdate: decideUpdateBlocker,
      decideDelete: decideDeleteBlocker,
    },
    deps.writer,
  );
  return { reference: { tag: 'Blockers', description: "What blocks a story: a description, or another story of the project." }, routes, types: [blockerType] };
}

// The resources that live inside a story and are addressed by its path
// (`/projects/:project_id/stories/:story_id/<children>/:<child>_id`: tasks, blockers): the story of the
// path, checked to be in the route's project, and one child of it, unfound otherwise.
import type { Doc, ReadOnlyCollection } from '../../ports/read-store.js';
import { apiError } from '../error-catalogue.js';
import { idParam } from '../project-authorization.js';
import type { ApiRequest } from '../route-table.js';

export interface StoryChildPath {
  /** The id of the path's story, in the route's project. */
  storyId(req: ApiRequest): Promise<number>;
  /** The child named by the path parameter `param`, in the path's story. */
  child(req: ApiRequest, param: string): Promise<Doc>;
}

export function storyChildPath(stories: ReadOnlyCollection, children: ReadOnlyCollection): StoryChildPath {
  async function storyId(req: ApiRequest): Promise<number> {
    const story = await stories.findOne({ id: idParam(req.params['story_id']), project_id: req.project!.id });
    if (!story) throw apiError('unfound_resource');
    return story.id;
  }
  return {
    storyId,
    async child(req, param) {
      const found = await children.findOne({ id: idParam(req.params[param]), story_id: await storyId(req), project_id: req.project!.id });
      if (!found) throw apiError('unfound_resource');
      return found;
    },
  };
}

// GET /projects/{id}/my/searches: the caller's own saved searches in a project, by id (saved searches
// are private; see domain/saved-search/). Returned as the spec's saved_search (kind, id, project_id,
// name, query); the owner and timestamps the read model keeps are not part of it.
import type { SearchReader } from './search-names.js';

export interface SavedSearch {
  kind: 'saved_search';
  id: number;
  project_id: number;
  name: string;
  query: string;
}

export async function savedSearchesOf(read: SearchReader, projectId: number, ownerId: number): Promise<SavedSearch[]> {
  const docs = await read('saved_searches').find({ project_id: projectId, owner_id: ownerId }, { sort: { id: 1 } });
  return docs.map((doc) => ({ kind: 'saved_search', id: doc.id, project_id: projectId, name: String(doc.name), query: String(doc.query) }));
}

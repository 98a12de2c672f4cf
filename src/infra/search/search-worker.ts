// The search worker (see worker-story-searches.ts): runs the searches of queries/search/ over a
// read-only connection of its own to readmodels.sqlite, reading each logical collection under the
// physical name the call gives, and answers each search as JSON. It keeps the projects' text indexes
// and stories' rows between searches, brought up to date from the documents each call says were
// written since the previous one (kept-project-indexes.ts).
import { workerData } from 'node:worker_threads';
import type { ReadModelName, ReadModels } from '../../projections/documents.js';
import type { SearchCollection, SearchReader } from '../../queries/search/search-names.js';
import { searchesOver, type StorySearches } from '../../queries/search/search-project.js';
import { STORY_WORDS } from '../../projections/search/story-words-projection.js';
import { DEFAULT_READ_CACHE_BYTES, openSqliteReadStore } from '../read-store/sqlite-read-store.js';
import { KeptProjectIndexes } from './kept-project-indexes.js';
import { refreshedTextIndex } from '../../queries/search/search-names.js';
import { refreshedStoryRows, type ProjectStoryRows } from '../../queries/search/search-sets.js';
import type { ProjectTextIndex } from '../../queries/search/search-text-index.js';
import { compileFilter } from '../read-store/memory-filter.js';
import { answerCalls } from '../worker-calls.js';
import type { LiveCollectionNames, SearchWorkerCall, SearchWorkerData } from './worker-story-searches.js';

const { readModelsPath, cacheBytes } = workerData as SearchWorkerData;
// A file that cannot be opened fails the worker (the parent answers 503; its next call starts a fresh one).
const store = openSqliteReadStore({ path: readModelsPath, readOnly: true, cacheBytes });
// The projects' text indexes and stories' rows, kept within a budget as large as the document cache's.
const kept = new KeptProjectIndexes(cacheBytes ?? DEFAULT_READ_CACHE_BYTES);

/** The live read models under the names the serving thread reads them by. */
function readerOf(names: LiveCollectionNames): SearchReader {
  return <N extends ReadModelName>(logical: N): SearchCollection<ReadModels[N]> => {
    const physical = names[logical];
    if (physical === undefined) throw new Error(`no live collection ${logical}`);
    return store.collection(physical) as unknown as SearchCollection<ReadModels[N]>;
  };
}

function searchesOf(names: LiveCollectionNames): StorySearches {
  const [words, stories] = [names[STORY_WORDS], names['stories']];
  const read = readerOf(names);
  return searchesOver(read, {
    test: compileFilter,
    texts: words === undefined ? null : kept.of('text index', words, (index: ProjectTextIndex, projectId, ids) => refreshedTextIndex(read, index, projectId, ids)),
    rows: stories === undefined ? null : kept.of('story rows', stories, (rows: ProjectStoryRows, projectId, ids) => refreshedStoryRows(read, rows, projectId, ids)),
  });
}

answerCalls<SearchWorkerCall, string | null>(async (call) => {
  // Before anything else of the call: its search must see what was written before it was sent.
  if ('writes' in call) for (const { collection, ids } of call.writes) kept.note(collection, ids);
  switch (call.call) {
    case 'search':
      return JSON.stringify(await searchesOf(call.names).search(call.request));
    case 'storyPage':
      return JSON.stringify(await searchesOf(call.names).storyPage(call.request, call.page));
    case 'close':
      await store.close();
      return null;
  }
});

// The search worker (see worker-story-searches.ts): runs the searches of queries/search/ over a
// read-only connection of its own to readmodels.sqlite, reading each logical collection under the
// physical name the call gives, and answers each search as JSON.
import { workerData } from 'node:worker_threads';
import type { ReadModelName, ReadModels } from '../../projections/documents.js';
import type { SearchCollection, SearchReader } from '../../queries/search/search-names.js';
import { searchesOver } from '../../queries/search/search-project.js';
import { openSqliteReadStore } from '../read-store/sqlite-read-store.js';
import { answerCalls } from '../worker-calls.js';
import type { LiveCollectionNames, SearchWorkerCall, SearchWorkerData } from './worker-story-searches.js';

const { readModelsPath, cacheBytes } = workerData as SearchWorkerData;
// A file that cannot be opened fails the worker (the parent answers 503; its next call starts a fresh one).
const store = openSqliteReadStore({ path: readModelsPath, readOnly: true, cacheBytes });

/** The live read models under the names the serving thread reads them by. */
function readerOf(names: LiveCollectionNames): SearchReader {
  return <N extends ReadModelName>(logical: N): SearchCollection<ReadModels[N]> => {
    const physical = names[logical];
    if (physical === undefined) throw new Error(`no live collection ${logical}`);
    return store.collection(physical) as unknown as SearchCollection<ReadModels[N]>;
  };
}

answerCalls<SearchWorkerCall, string | null>(async (call) => {
  switch (call.call) {
    case 'search':
      return JSON.stringify(await searchesOver(readerOf(call.names)).search(call.request));
    case 'storyPage':
      return JSON.stringify(await searchesOver(readerOf(call.names)).storyPage(call.request, call.page));
    case 'close':
      await store.close();
      return null;
  }
});

// Which blob store a configuration opens, for the composition root: GridFS in the MongoDB database
// when STORYLINE_MONGO_URL is set (uploads then live beside the read models), else files under
// `<STORYLINE_DATA>/uploads`. With the in-memory data directory of tests (`:memory:`) the files go to a
// private temporary directory that closing the store removes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BlobStore } from '../../ports/blob-store.js';
import type { StorylineConfig } from '../config.js';
import { openFileBlobStore } from './file-blob-store.js';

export const UPLOADS_DIRECTORY = 'uploads';

export async function openBlobStore(config: Pick<StorylineConfig, 'dataDir' | 'mongoUrl' | 'mongoDbName'>): Promise<BlobStore> {
  if (config.mongoUrl) {
    const { openGridFsBlobStore } = await import('./gridfs-blob-store.js');
    return openGridFsBlobStore({ url: config.mongoUrl, dbName: config.mongoDbName });
  }
  if (config.dataDir !== ':memory:') return openFileBlobStore(join(config.dataDir, UPLOADS_DIRECTORY));
  const root = mkdtempSync(join(tmpdir(), 'storyline-uploads-'));
  const store = await openFileBlobStore(root);
  return {
    ...store,
    async close() {
      await store.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

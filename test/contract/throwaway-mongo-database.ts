// A store opened on a MongoDB database of its own, dropped when the contract suite disposes of it, so
// runs against a shared server never see each other's documents.
import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';

export async function onThrowawayMongoDatabase<S extends { close(): Promise<void> }>(
  url: string,
  prefix: string,
  open: (dbName: string) => Promise<S>,
): Promise<{ store: S; dispose(): Promise<void> }> {
  const dbName = `${prefix}_${randomUUID().replaceAll('-', '')}`;
  const store = await open(dbName);
  return {
    store,
    async dispose() {
      await store.close();
      const client = await MongoClient.connect(url);
      await client.db(dbName).dropDatabase();
      await client.close();
    },
  };
}

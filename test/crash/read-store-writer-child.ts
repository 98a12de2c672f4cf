// Child process of the read-store restart test: opens the SQLite read store at `path` as a process of
// the boot `bootId`, writes `documents` documents to `stories` in one commit each, then either closes
// cleanly or kills itself with SIGKILL (the file left open, its writes never synced).
import { openSqliteReadStore } from '../../src/infra/read-store/sqlite-read-store.js';

interface WriterChildOptions {
  path: string;
  bootId: string;
  documents: number;
  end: 'close' | 'kill';
}

const options = JSON.parse(process.argv[2] ?? '{}') as WriterChildOptions;
const store = openSqliteReadStore({ path: options.path, bootId: options.bootId });
for (let id = 1; id <= options.documents; id++) await store.collection('stories').write([{ op: 'insert', doc: { id, name: `story ${id}` } }]);
if (options.end === 'close') await store.close();
else process.kill(process.pid, 'SIGKILL');

// The audit tools against the raw rates of the same log, in one run on one disk:
//   (a) raw read: the log's rows read with better-sqlite3 in batches (raw arrays, nothing else), and the
//       same plus JSON.parse of data and meta (replay-bench's floor);
//   (b) `storyline verify`'s walk (verifyLog): every row's chain hash recomputed and compared;
//   (c) export of the whole log to NDJSON, and import of that file into an empty log;
//   (d) replay of the read models (replay-bench's), the yardstick of (c).
// Also reported: chaining the same log written without hashes (the upgrade at open), not a target.
// (a) and (b) are each the fastest of three alternated rounds.
// Targets: (b) >= 50% of (a) raw read; (c) export and import each within 2x the replay time.
// REPLAY_BENCH_EVENTS sets the log size, as for replay-bench (default 1,000,000).
import { closeSync, fsyncSync, mkdtempSync, openSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { VERIFY_BATCH, verifyLog } from '../src/infra/event-store/chain-verifier.js';
import { openSqliteEventStore } from '../src/infra/event-store/sqlite-event-store.js';
import { openSqliteBulkLoad } from '../src/infra/event-store/sqlite-bulk-load.js';
import { exportLog } from '../src/infra/export/log-export.js';
import { importLog } from '../src/infra/export/log-import.js';
import { buildFixture, rawReadAndParse, replay } from './replay-bench.js';

/** Raw reads and verify read the log in the same batches (verify's: small batches keep the garbage young). */
const BATCH = VERIFY_BATCH;
/** Rounds of raw read and of verify, alternated; the fastest of each is reported. */
const ROUNDS = 3;

/** The rows, read the fastest way better-sqlite3 offers, in verify's batch size; nothing else. */
function rawRead(path: string): { events: number; ms: number } {
  const db = new Database(path, { readonly: true });
  const select = db
    .prepare<[number, number], [number, string, string, number, string, string, string, string]>(
      'SELECT position, id, stream, version, type, data, meta, hash FROM events WHERE position > ? ORDER BY position ASC LIMIT ?',
    )
    .raw(true);
  const started = performance.now();
  let events = 0;
  let bytes = 0;
  for (let after = 0; ; ) {
    const rows = select.all(after, BATCH);
    if (rows.length === 0) break;
    for (const row of rows) bytes += row[5].length;
    events += rows.length;
    after = rows[rows.length - 1]![0];
  }
  const ms = performance.now() - started;
  db.close();
  if (bytes === 0) throw new Error('nothing was read');
  return { events, ms };
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

const rate = (events: number, ms: number) => Math.round((events * 1000) / ms);
const figure = (label: string, events: number, ms: number) =>
  console.log(`  ${label.padEnd(28)}: ${rate(events, ms).toLocaleString('en').padStart(9)} events/s (${events} events in ${ms.toFixed(0)} ms)`);

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'storyline-verify-'));
  try {
    const path = join(dir, 'events.sqlite');
    const built = performance.now();
    await buildFixture(path);
    console.log(`verify bench: log written in ${((performance.now() - built) / 1000).toFixed(1)} s without hashes (not measured)`);

    const upgrade = await timed(async () => {
      const store = await openSqliteEventStore({ path });
      const chained = store.chainedOnOpen;
      await store.close();
      return chained;
    });
    figure('chaining at upgrade (open)', upgrade.value, upgrade.ms);

    rawRead(path); // warm the page cache and the JIT for every measurement alike
    const parsed = rawReadAndParse(path);
    const store = await openSqliteEventStore({ path });
    await verifyLog(store, BATCH);
    // Raw read and verify alternated, each the fastest of ROUNDS: on a machine shared with other work
    // the slowest rounds measure the neighbours, not the code.
    let raw = rawRead(path);
    let verified = await timed(() => verifyLog(store, BATCH));
    for (let round = 1; round < ROUNDS; round++) {
      const rawAgain = rawRead(path);
      if (rawAgain.ms < raw.ms) raw = rawAgain;
      const again = await timed(() => verifyLog(store, BATCH));
      if (again.ms < verified.ms) verified = again;
    }
    if (!verified.value.ok) throw new Error('the fixture does not verify');
    const exportFile = join(dir, 'export.ndjson');
    const exported = await timed(() => exportLog(store, exportFile));
    await store.close();

    // As `storyline import` does: a bulk load (commits not synced), closed, then the file synced.
    const imported = await timed(async () => {
      const importedPath = join(dir, 'imported.sqlite');
      const target = openSqliteBulkLoad(importedPath);
      const report = await importLog(target, exportFile);
      target.close();
      const fd = openSync(importedPath, 'r');
      fsyncSync(fd);
      closeSync(fd);
      return report;
    });
    const replayed = await replay(path);

    figure('(a) raw read', raw.events, raw.ms);
    figure('(a) raw read + JSON.parse', parsed.events, parsed.ms);
    figure('(b) verify', verified.value.summary.events, verified.ms);
    console.log(`  verify / raw read            : ${((100 * raw.ms) / verified.ms).toFixed(0)}% (target >= 50%); / raw read + parse: ${((100 * parsed.ms) / verified.ms).toFixed(0)}%`);
    figure('(c) export', exported.value.events, exported.ms);
    figure('(c) import', imported.value.events, imported.ms);
    figure('(d) replay (resources)', replayed.events, replayed.ms);
    console.log(`  export / replay time         : ${(exported.ms / replayed.ms).toFixed(2)}x; import / replay time: ${(imported.ms / replayed.ms).toFixed(2)}x (target <= 2x each); file ${(statSync(exportFile).size / 1e6).toFixed(0)} MB`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();

// `storyline import`: an export file (ndjson-log.ts) appended, in its order, into a fresh embedded log
// (sqlite-bulk-load.ts), so every event gets back its stream, version, position, id and hash.
//
// Two threads share the work: a worker reads the file, parses each line and checks it against its
// stream's hash chain (import-reader.ts); this thread writes the batches it posts and, once the file is
// read, has the bulk load build its indexes. The first line that is malformed or breaks its chain stops
// the import, naming the line, and so does a file without the export's trailer or that does not match
// it, naming what differs; two events given the same id (a file written by hand: the same command_id
// in two places) are refused when the id index is built. Data and meta are stored as the line's own text
// when that text carries the hash (every export's lines: no re-encoding), else as JSON.stringify writes
// them (a file another tool re-serialised). Memory holds a few batches, one line and one entry per stream.
import { on } from 'node:events';
import { closeSync, fsyncSync, openSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { UNFINISHED_IMPORT, storeFiles } from '../data-directory.js';
import type { LogSummary } from '../event-store/log-summary.js';
import { dataProblem } from './ndjson-log.js';
import { unpackEventBatch, type PackedEventBatch, type ReadEvent } from './packed-event-batch.js';

/** A file or target the import will not take; the message says why (and which line). */
export class ImportRefused extends Error {}

/** Events per batch the reader posts and the bulk load writes in one transaction (about 7 MB of events). */
const IMPORT_BATCH = 10_000;

/** Batches the reader may post before the writer has taken them: bounds memory when the writer is the slower. */
const BATCHES_AHEAD = 4;

/** What was imported (its count, each stream's head, the sequence hash: verify's summary) and how long it took. */
export interface ImportReport extends LogSummary {
  ms: number;
}

/** Where an import writes: a fresh embedded log (sqlite-bulk-load.ts), or an event store through its port (event-store-import.ts). */
export interface ImportTarget {
  append(events: readonly ReadEvent[]): void | Promise<void>;
  /** Once every event is in: what stops the import (a duplicate id), or null. */
  finish(): string | null | Promise<string | null>;
}

/** What the reader worker (import-reader-worker.ts) posts: a batch, the end of the file, or why the file is refused. */
export type ReaderMessage =
  | { batch: PackedEventBatch }
  | { done: LogSummary }
  | { refused: string };

export async function importLog(target: ImportTarget, file: string): Promise<ImportReport> {
  const started = performance.now();
  const reader = new Worker(new URL('./import-reader-worker.js', import.meta.url), { workerData: { file, size: IMPORT_BATCH, ahead: BATCHES_AHEAD } });
  try {
    // An error thrown in the reader rejects this loop; its exit without a last message ends it.
    for await (const [message] of on(reader, 'message', { close: ['exit'] }) as AsyncIterable<[ReaderMessage]>) {
      if ('batch' in message) {
        const events = unpackEventBatch(message.batch);
        refuseMalformedData(events);
        await target.append(events);
        reader.postMessage('taken');
        continue;
      }
      if ('refused' in message) throw new ImportRefused(message.refused);
      const problem = await target.finish();
      if (problem) throw new ImportRefused(problem);
      return { ...message.done, ms: Math.round(performance.now() - started) };
    }
    throw new Error(`the reader of ${file} stopped before the end of the file`);
  } finally {
    await reader.terminate();
  }
}

/** The data texts the reader left unparsed (import-reader.ts), checked here, where the writer has time for them. */
function refuseMalformedData(events: readonly ReadEvent[]): void {
  for (const event of events) {
    const problem = dataProblem(event.data);
    if (problem) throw new ImportRefused(`line ${event.line}: ${problem}`);
  }
}

/** What an import target directory holds before the import. */
export type DataDirectoryState = 'missing' | 'empty' | 'not-empty';

export function dataDirectoryState(dir: string): DataDirectoryState {
  let isDirectory: boolean;
  try {
    isDirectory = statSync(dir).isDirectory();
  } catch {
    return 'missing';
  }
  if (!isDirectory) return 'not-empty';
  return readdirSync(dir).length === 0 ? 'empty' : 'not-empty';
}

/**
 * Marks `dir` as being filled by an import, durably (the file and its directory entry synced): until
 * markImportFinished, every command refuses the directory (data-directory.ts), so a crash mid-import
 * never leaves a log that looks whole.
 */
export function markImportUnfinished(dir: string): void {
  writeFileSync(join(dir, UNFINISHED_IMPORT), 'storyline import is filling this directory\n', { flag: 'wx', flush: true });
  syncPath(dir);
}

/**
 * Once the imported log is closed (its commits were not synced: a bulk load): syncs the log file, then
 * removes the mark, so the mark goes only when the whole log is durable.
 */
export function markImportFinished(dir: string): void {
  syncPath(storeFiles(dir).events);
  rmSync(join(dir, UNFINISHED_IMPORT));
  syncPath(dir);
}

/** fsync of a file or a directory (its entries). */
function syncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Undoes a refused import: the directory goes back to how it was (missing or empty). */
export function restoreDataDirectory(dir: string, before: Exclude<DataDirectoryState, 'not-empty'>): void {
  if (before === 'missing') {
    rmSync(dir, { recursive: true, force: true });
    return;
  }
  for (const entry of readdirSync(dir)) rmSync(join(dir, entry), { recursive: true, force: true });
}

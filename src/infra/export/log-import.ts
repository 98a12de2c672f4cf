// `storyline import`: an export file (ndjson-log.ts) appended, in its order, into a fresh embedded log
// (sqlite-bulk-load.ts), so every event gets back its stream, version, position, id and hash. Every line is checked against its
// stream's hash chain (ChainVerifier: the codec's chainHash, computed once per event) before it is
// written; the first line that is malformed or breaks its chain stops the import, naming the line. Data
// and meta are stored as the line's own text when that text carries the hash (every export's lines: no
// re-encoding), else as JSON.stringify writes them (a file another tool re-serialised).
// Two events given the same id (a file written by hand: the same command_id in two places) are refused
// once every line is in, when the id index is built. The file is streamed: memory holds one batch of
// events (IMPORT_BATCH, one transaction), one line and one entry per stream.
import { closeSync, createReadStream, fsyncSync, openSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventId } from '../../ports/event-store.js';
import { UNFINISHED_IMPORT, storeFiles } from '../data-directory.js';
import type { EncodedStreamEvent } from '../event-store/sqlite-bulk-load.js';
import { ALTERED, ChainVerifier } from '../event-store/chain-verifier.js';
import { ExportLineError, parseExportLine, type ExportedEvent } from './ndjson-log.js';

/** A file or target the import will not take; the message says why (and which line). */
export class ImportRefused extends Error {}

/** Events written per transaction: fewer, larger commits; about 35 MB of events held. */
const IMPORT_BATCH = 50_000;

/** The longest line an import reads (far above any event the input limits allow): bounds its memory. */
export const MAX_LINE_CHARS = 64 * 1024 * 1024;

export interface ImportReport {
  events: number;
  streams: number;
  ms: number;
}

/** Where an import writes: a fresh embedded log (sqlite-bulk-load.ts). */
export interface ImportTarget {
  append(events: readonly EncodedStreamEvent[]): void;
  /** Once every event is in: what stops the import (a duplicate id), or null. */
  finish(): string | null;
}

export async function importLog(target: ImportTarget, file: string): Promise<ImportReport> {
  const started = performance.now();
  const verifier = new ChainVerifier();
  let batch: EncodedStreamEvent[] = [];
  // An event's id is derived from its command id and its index within its original append, which
  // wrote consecutive events of one stream with one command id.
  let previous: { stream: string; commandId: string; index: number } | null = null;
  for await (const { line, lineNumber } of fileLines(file)) {
    if (line.trim() === '') continue;
    const link = checkedLine(line, lineNumber, verifier);
    const index: number = previous && previous.stream === link.stream && previous.commandId === link.commandId ? previous.index + 1 : 0;
    previous = { stream: link.stream, commandId: link.commandId, index };
    batch.push({ id: eventId(link.commandId, index), stream: link.stream, version: link.version, type: link.type, data: link.data, meta: link.meta, hash: link.hash });
    if (batch.length >= IMPORT_BATCH) {
      target.append(batch);
      batch = [];
    }
  }
  if (batch.length > 0) target.append(batch);
  const problem = target.finish();
  if (problem) throw new ImportRefused(problem);
  const summary = verifier.summary();
  return { events: summary.events, streams: summary.streams.length, ms: Math.round(performance.now() - started) };
}

/** The file's lines (without their `\n` or `\r\n`), numbered from 1; a line longer than MAX_LINE_CHARS is refused. */
async function* fileLines(file: string): AsyncGenerator<{ line: string; lineNumber: number }> {
  let rest = '';
  let lineNumber = 0;
  const numbered = (text: string) => ({ line: text.endsWith('\r') ? text.slice(0, -1) : text, lineNumber: ++lineNumber });
  for await (const chunk of createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 20 })) {
    const text = rest + (chunk as string);
    let start = 0;
    for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', start)) {
      yield numbered(text.slice(start, end));
      start = end + 1;
    }
    rest = text.slice(start);
    if (rest.length > MAX_LINE_CHARS) throw new ImportRefused(`line ${lineNumber + 1} is longer than ${MAX_LINE_CHARS} characters`);
  }
  if (rest !== '') yield numbered(rest);
}

/** The line's event once it continues its stream's chain (with the text that carries its hash). */
function checkedLine(line: string, lineNumber: number, verifier: ChainVerifier): ExportedEvent {
  let link: ExportedEvent;
  try {
    link = parseExportLine(line);
  } catch (error) {
    if (error instanceof ExportLineError) throw new ImportRefused(`line ${lineNumber}: ${error.message}`);
    throw error;
  }
  let problem = verifier.check(link);
  if (problem === ALTERED) {
    // A tool that re-serialised the file may have changed how data or meta are written, not what they say.
    const canonical = link.canonical();
    if (canonical.data !== link.data || canonical.meta !== link.meta) {
      link = { ...link, ...canonical };
      problem = verifier.check(link);
    }
  }
  if (problem) throw new ImportRefused(`line ${lineNumber} (${link.stream} version ${link.version}): ${problem}`);
  return link;
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

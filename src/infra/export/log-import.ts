// `storyline import`: an export file (ndjson-log.ts) appended, in its order, into an empty embedded log,
// so every event gets back its stream, version, position, id and hash (the store computes the hash again
// with the codec). Every line is checked against its stream's hash chain before it is written; the first
// line that is malformed or breaks its chain stops the import, naming the line. The file is streamed:
// memory holds one batch of events (IMPORT_BATCH, one transaction) and one entry per stream.
import { createReadStream, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { eventId } from '../../ports/event-store.js';
import type { EncodedStreamEvent } from '../event-store/sqlite-bulk-append.js';
import { ChainVerifier } from '../event-store/chain-verifier.js';
import { ExportLineError, parseExportLine } from './ndjson-log.js';

/** A file or target the import will not take; the message says why (and which line). */
export class ImportRefused extends Error {}

/** Events written per transaction: fewer, larger commits (one fsync each); about 35 MB of events held. */
const IMPORT_BATCH = 50_000;

export interface ImportReport {
  events: number;
  streams: number;
  ms: number;
}

/** Where an import writes: an empty embedded log (the SQLite event store). */
export interface ImportTarget {
  headPosition(): Promise<number>;
  appendEncoded(events: readonly EncodedStreamEvent[]): Promise<void>;
}

export async function importLog(target: ImportTarget, file: string): Promise<ImportReport> {
  const started = performance.now();
  if ((await target.headPosition()) > 0) throw new ImportRefused('the event log is not empty');
  const verifier = new ChainVerifier();
  const input = createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 20 });
  const lines = createInterface({ input, crlfDelay: Infinity });
  let batch: EncodedStreamEvent[] = [];
  // An event's id is derived from its command id and its index within its original append, which
  // wrote consecutive events of one stream with one command id.
  let previous: { stream: string; commandId: string; index: number } | null = null;
  let lineNumber = 0;
  try {
    for await (const line of lines) {
      lineNumber++;
      if (line.trim() === '') continue;
      const link = checkedLine(line, lineNumber, verifier);
      const commandId = link.parsedMeta['command_id'] as string;
      const index: number = previous && previous.stream === link.stream && previous.commandId === commandId ? previous.index + 1 : 0;
      previous = { stream: link.stream, commandId, index };
      batch.push({ id: eventId(commandId, index), stream: link.stream, version: link.version, type: link.type, data: link.data, meta: link.meta });
      if (batch.length >= IMPORT_BATCH) {
        await target.appendEncoded(batch);
        batch = [];
      }
    }
    if (batch.length > 0) await target.appendEncoded(batch);
  } finally {
    lines.close();
  }
  const summary = verifier.summary();
  return { events: summary.events, streams: summary.streams.length, ms: Math.round(performance.now() - started) };
}

function checkedLine(line: string, lineNumber: number, verifier: ChainVerifier) {
  let link: ReturnType<typeof parseExportLine>;
  try {
    link = parseExportLine(line);
  } catch (error) {
    if (error instanceof ExportLineError) throw new ImportRefused(`line ${lineNumber}: ${error.message}`);
    throw error;
  }
  const problem = verifier.check(link);
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

/** Undoes a refused import: the directory goes back to how it was (missing or empty). */
export function restoreDataDirectory(dir: string, before: Exclude<DataDirectoryState, 'not-empty'>): void {
  if (before === 'missing') {
    rmSync(dir, { recursive: true, force: true });
    return;
  }
  for (const entry of readdirSync(dir)) rmSync(join(dir, entry), { recursive: true, force: true });
}

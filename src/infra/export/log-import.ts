// `storyline import`: an export file (ndjson-log.ts) appended, in its order, into an empty log, through
// the event store port, so every event gets back its stream, version, position, id and hash. Every line
// is checked against its stream's hash chain before it is written; the first line that is malformed or
// breaks its chain stops the import, naming the line. The file is streamed: memory holds one window of
// appends in flight and one entry per stream.
import { createReadStream, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { EventData, EventMeta, NewEvent } from '../../domain/events.js';
import type { EventStore } from '../../ports/event-store.js';
import { ChainVerifier } from '../event-store/chain-verifier.js';
import { ExportLineError, parseExportLine } from './ndjson-log.js';

/** A file or target the import will not take; the message says why (and which line). */
export class ImportRefused extends Error {}

/** Appends requested before waiting for them (they commit together: the store groups one turn's appends). */
const APPEND_WINDOW = 1_000;

export interface ImportReport {
  events: number;
  streams: number;
  ms: number;
}

/** Events of one original append: consecutive lines of one stream and one command. */
interface AppendGroup {
  stream: string;
  commandId: string;
  expectedVersion: number;
  events: NewEvent[];
}

export async function importLog(store: EventStore, file: string): Promise<ImportReport> {
  const started = performance.now();
  if ((await store.headPosition()) > 0) throw new ImportRefused('the event log is not empty');
  const verifier = new ChainVerifier();
  const lines = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  let failure: unknown = null;
  let inFlight: Promise<void>[] = [];
  let group: AppendGroup | null = null;
  const append = (pending: AppendGroup) => {
    inFlight.push(
      store.append(pending.stream, pending.expectedVersion, pending.events).then(
        () => undefined,
        (error: unknown) => void (failure ??= error),
      ),
    );
  };
  const settle = async () => {
    await Promise.all(inFlight);
    inFlight = [];
    if (failure) throw failure;
  };

  let lineNumber = 0;
  try {
    for await (const line of lines) {
      lineNumber++;
      if (line.trim() === '') continue;
      const event = checkedLine(line, lineNumber, verifier);
      const commandId = event.meta.command_id;
      if (group && group.stream === event.stream && group.commandId === commandId) {
        group.events.push(event.body);
        continue;
      }
      if (group) append(group);
      group = { stream: event.stream, commandId, expectedVersion: event.version - 1, events: [event.body] };
      if (inFlight.length >= APPEND_WINDOW) await settle();
    }
    if (group) append(group);
    await settle();
  } finally {
    lines.close();
    await Promise.all(inFlight);
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
  const meta = link.parsedMeta as unknown as EventMeta;
  const body: NewEvent = { type: link.type, data: link.parsedData as unknown as EventData, meta };
  return { stream: link.stream, version: link.version, meta, body };
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

// The reading half of `storyline import` (it runs in import-reader-worker.ts, beside the writer): an
// export file streamed line by line, each line parsed (ndjson-log.ts) and checked against its stream's
// hash chain (ChainVerifier: the codec's chainHash, computed once per event), each event given back the
// id its original append gave it, in batches ready for the bulk load. The first line that is malformed
// or breaks its chain stops the reading, naming the line (ImportRefused). The file must end with the
// export's trailer (ndjson-log.ts), and what was read must match it: event count, every stream's head
// and the sequence hash (the order across streams); otherwise the reading stops naming what differs.
import { createReadStream } from 'node:fs';
import { eventId } from '../../ports/event-store.js';
import { ALTERED, type ChainVerifier } from '../event-store/chain-verifier.js';
import { ImportRefused } from './log-import.js';
import { describeDifferences, summaryDifferences, type LogSummary } from '../event-store/log-summary.js';
import { ExportLineError, ExportTrailer, dataProblem, parseExportLine, type ExportedEvent } from './ndjson-log.js';
import type { ReadEvent } from './packed-event-batch.js';

/** The longest line an import reads (far above any event the input limits allow): bounds its memory. */
export const MAX_LINE_CHARS = 64 * 1024 * 1024;

/**
 * The file's events in batches of `size` (the last may be shorter), each line checked by `verifier`,
 * except that an event's data text is left for the writer to check (ndjson-log.ts dataProblem: the
 * writing thread would otherwise wait on this one). The last batch is given only once the trailer is
 * found to match: `verifier.summary()` is then what the file holds.
 */
export async function* checkedEventBatches(file: string, verifier: ChainVerifier, size: number): AsyncGenerator<ReadEvent[]> {
  let batch: ReadEvent[] = [];
  // An event's id is derived from its command id and its index within its original append, which
  // wrote consecutive events of one stream with one command id.
  let previous: { stream: string; commandId: string; index: number } | null = null;
  let trailer: { summary: LogSummary; lineNumber: number } | null = null;
  let lastLine = 0;
  for await (const { line, lineNumber } of fileLines(file)) {
    if (line.trim() === '') continue;
    lastLine = lineNumber;
    if (trailer) throw new ImportRefused(`line ${lineNumber} follows the trailer (line ${trailer.lineNumber}), which must be the file's last line`);
    const link = checkedLine(line, lineNumber, verifier);
    if (link instanceof ExportTrailer) {
      trailer = { summary: link.summary, lineNumber };
      continue;
    }
    const index: number = previous && previous.stream === link.stream && previous.commandId === link.commandId ? previous.index + 1 : 0;
    previous = { stream: link.stream, commandId: link.commandId, index };
    batch.push({ id: eventId(link.commandId, index), stream: link.stream, version: link.version, type: link.type, data: link.data, meta: link.meta, hash: link.hash, line: lineNumber });
    if (batch.length >= size) {
      yield batch;
      batch = [];
    }
  }
  if (!trailer) {
    throw new ImportRefused(
      lastLine === 0 ? 'the file is empty' : `the file ends at line ${lastLine} without the export's trailer line: it was cut short, or it is not a whole export`,
    );
  }
  const differences = summaryDifferences(trailer.summary, verifier.summary(), { expected: 'the trailer', actual: 'the file' });
  if (differences.length > 0) throw new ImportRefused(`the file does not match its trailer (line ${trailer.lineNumber}): ${describeDifferences(differences)}`);
  if (batch.length > 0) yield batch;
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

/** The line's event once it continues its stream's chain (with the text that carries its hash), or the trailer. */
function checkedLine(line: string, lineNumber: number, verifier: ChainVerifier): ExportedEvent | ExportTrailer {
  let parsed: ExportedEvent | ExportTrailer;
  try {
    parsed = parseExportLine(line, { dataCheckedLater: true });
  } catch (error) {
    if (error instanceof ExportLineError) throw new ImportRefused(`line ${lineNumber}: ${error.message}`);
    throw error;
  }
  if (parsed instanceof ExportTrailer) return parsed;
  let link = parsed;
  let problem = verifier.check(link);
  if (problem === ALTERED) {
    // A tool that re-serialised the file may have changed how data or meta are written, not what they say.
    const malformed = dataProblem(link.data);
    if (malformed) throw new ImportRefused(`line ${lineNumber}: ${malformed}`);
    const canonical = link.canonical();
    if (canonical.data !== link.data || canonical.meta !== link.meta) {
      link = { ...link, ...canonical };
      problem = verifier.check(link);
    }
  }
  if (problem) throw new ImportRefused(`line ${lineNumber} (${link.stream} version ${link.version}): ${problem}`);
  return link;
}


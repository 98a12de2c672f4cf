// Streams a Tracker CSV export from disk: csv-parse splits RFC 4180 records (quoted fields, embedded
// commas, quotes and newlines, a UTF-8 byte-order mark), the first record is the header, and each
// further record is handed out as a typed row result with how far into the file the parser is.
import { createReadStream, statSync } from 'node:fs';
import { parse } from 'csv-parse';
import { pivotalColumns, pivotalStoryRow, type PivotalColumns, type PivotalRowResult } from './pivotal-story-rows.js';

export interface PivotalCsvRecord {
  result: PivotalRowResult;
  bytesRead: number;
}

export interface PivotalCsvFile {
  size: number;
  /** Resolves with the header's columns once it is read (rejects with PivotalHeaderError). */
  columns: Promise<PivotalColumns>;
  records: AsyncIterable<PivotalCsvRecord>;
}

export function readPivotalCsv(file: string, timeZone: string): PivotalCsvFile {
  const size = statSync(file).size;
  const parser = createReadStream(file).pipe(parse({ bom: true, relax_column_count: true, skip_empty_lines: true }));
  let resolveColumns!: (columns: PivotalColumns) => void;
  let rejectColumns!: (error: unknown) => void;
  const columns = new Promise<PivotalColumns>((resolve, reject) => {
    resolveColumns = resolve;
    rejectColumns = reject;
  });
  columns.catch(() => undefined);
  async function* records(): AsyncIterable<PivotalCsvRecord> {
    let header: PivotalColumns | null = null;
    let record = 0;
    try {
      for await (const cells of parser as AsyncIterable<string[]>) {
        record++;
        if (!header) {
          header = pivotalColumns(cells);
          resolveColumns(header);
          continue;
        }
        yield { result: pivotalStoryRow(header, cells, record, timeZone), bytesRead: parser.info.bytes };
      }
      if (!header) throw new Error(`${file} is empty: a Tracker export starts with its header line`);
    } catch (error) {
      rejectColumns(error);
      throw error;
    } finally {
      parser.destroy();
    }
  }
  return { size, columns, records: records() };
}

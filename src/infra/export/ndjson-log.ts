// The export file format: NDJSON, one event per line in global order,
//   {"stream":"project-1","version":1,"type":"project_create","data":{...},"meta":{...},"hash":"<hex>"}
// with data and meta written exactly as the log stores them, so every line's hash verifies as it is,
// and one last line, the trailer: the summary of the lines before it (log-summary.ts),
//   {"trailer":true,"events":1057,"sequence_hash":"<hex>","streams":[{"stream":"account-1","version":3,"head_hash":"<hex>"},...]}
// which the import compares with what it read: a file cut short, or whose lines were dropped or moved,
// does not match it (the chains alone miss a stream's dropped last events and lines moved across streams).
//
// Reading a line back: a line in exactly the layout exportLine writes (every export) is cut at its known
// keys, and data and meta are kept as the line's own text: each is parsed once (it must be one JSON
// object), never written again. Any other layout of the same object (keys in another order, spaces) is
// parsed whole and data and meta are written back with JSON.stringify, as the log wrote them.
import type { ChainedEvent } from '../../ports/event-store.js';
import type { ChainLink } from '../event-store/chain-verifier.js';
import { readLogSummary, type LogSummary } from '../event-store/log-summary.js';

/** One export line (without its newline), built from the stored text without re-encoding it. */
export function exportLine(event: ChainedEvent): string {
  return `{"stream":${JSON.stringify(event.stream)},"version":${event.version},"type":${JSON.stringify(event.type)},"data":${event.data},"meta":${event.meta},"hash":${JSON.stringify(event.hash)}}`;
}

/** An export's last line: the summary of its events. */
export function trailerLine(summary: LogSummary): string {
  return JSON.stringify({ trailer: true, events: summary.events, sequence_hash: summary.sequence_hash, streams: summary.streams });
}

/** A line that is not an exported event (nor a trailer). */
export class ExportLineError extends Error {}

/** The trailer line read back. */
export class ExportTrailer {
  constructor(readonly summary: LogSummary) {}
}

const TRAILER_KEYS = ['trailer', 'events', 'sequence_hash', 'streams'];

/** An event read from an export line: what its chain covers, data and meta as the line holds them. */
export interface ExportedEvent extends ChainLink {
  commandId: string;
  /**
   * Data and meta as JSON.stringify writes them, i.e. as the log stored them. The same text as `data`
   * and `meta` for every line an export wrote; a tool that re-serialised the file (escapes, number
   * forms) may have written them otherwise, and then only this text carries the original hash.
   */
  canonical(): { data: string; meta: string };
}

const KEYS = ['stream', 'version', 'type', 'data', 'meta', 'hash'];

/** Stands for data left unparsed (parseExportLine's `dataCheckedLater`). */
const DATA_CHECKED_LATER = Symbol('data checked later');

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Reads one export line, an event or the trailer; throws ExportLineError saying what is wrong with it. With `dataCheckedLater`,
 * the data text of a line in exportLine's layout is not parsed here: the caller must refuse the line
 * when dataProblem(data) names a problem (the import checks it on its writing thread, which waits on
 * this reading otherwise). Such a line whose data is no JSON object is then refused for its data,
 * where parsing it here would have judged the whole line.
 */
export function parseExportLine(line: string, options: { dataCheckedLater?: boolean } = {}): ExportedEvent | ExportTrailer {
  return exportLayoutEvent(line, options.dataCheckedLater === true) ?? parsedLineEvent(line);
}

/** What is wrong with an event's data text (it must be one JSON object), or null. */
export function dataProblem(dataText: string): string | null {
  let data: unknown;
  try {
    data = JSON.parse(dataText);
  } catch {
    return '"data" is not JSON';
  }
  return isObject(data) ? null : '"data" must be an object';
}

/** `{"stream":S,"version":V,"type":T,"data":` with S and T JSON strings and V a JSON integer. */
const LAYOUT_HEAD = /^\{"stream":("(?:[^"\\]|\\.)*"),"version":(0|[1-9][0-9]*),"type":("(?:[^"\\]|\\.)*"),"data":/;
const META_KEY = ',"meta":';
const HASH_KEY = ',"hash":';

/**
 * The line cut at its keys when it has exactly exportLine's layout, else null. The cut is proven, not
 * assumed: the head's tokens, the data text, the meta text and the hash each parse as one JSON value on
 * their own, so the line is the object {stream, version, type, data, meta, hash} and nothing else (the
 * data text's part of the proof is the caller's when it checks the data later).
 */
function exportLayoutEvent(line: string, dataCheckedLater: boolean): ExportedEvent | null {
  const head = LAYOUT_HEAD.exec(line);
  const hashAt = line.lastIndexOf(HASH_KEY);
  const metaAt = line.lastIndexOf(META_KEY, hashAt);
  if (!head || hashAt < 0 || metaAt < head[0].length || !line.endsWith('}')) return null;
  let stream: unknown, type: unknown, hash: unknown, data: unknown, meta: unknown;
  try {
    stream = JSON.parse(head[1]!);
    type = JSON.parse(head[3]!);
    hash = JSON.parse(line.slice(hashAt + HASH_KEY.length, -1));
    data = dataCheckedLater ? DATA_CHECKED_LATER : JSON.parse(line.slice(head[0].length, metaAt));
    meta = JSON.parse(line.slice(metaAt + META_KEY.length, hashAt));
  } catch {
    return null; // not this layout (or not JSON at all): the whole line is parsed and judged
  }
  const dataText = line.slice(head[0].length, metaAt);
  const metaText = line.slice(metaAt + META_KEY.length, hashAt);
  return checkedEvent({ stream, version: Number(head[2]), type, data, meta, hash }, dataText, metaText);
}

/** Any other layout: the whole line parsed, data and meta written back as the log wrote them; or the trailer. */
function parsedLineEvent(line: string): ExportedEvent | ExportTrailer {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new ExportLineError('not JSON');
  }
  if (!isObject(value)) throw new ExportLineError('not a JSON object');
  if ('trailer' in value) return checkedTrailer(value);
  const unknownKey = Object.keys(value).find((key) => !KEYS.includes(key));
  if (unknownKey !== undefined) throw new ExportLineError(`unknown key "${unknownKey}"`);
  return checkedEvent(value, null, null);
}

function checkedTrailer(value: Record<string, unknown>): ExportTrailer {
  const unknownKey = Object.keys(value).find((key) => !TRAILER_KEYS.includes(key));
  if (unknownKey !== undefined) throw new ExportLineError(`unknown key "${unknownKey}" in the trailer`);
  const summary = readLogSummary(value);
  if (typeof summary === 'string') throw new ExportLineError(`the trailer: ${summary}`);
  const { events, sequence_hash: sequenceHash, streams } = summary;
  if (value['trailer'] !== true || events === undefined || sequenceHash === undefined) {
    throw new ExportLineError('the trailer must be {"trailer":true,"events":N,"sequence_hash":H,"streams":[...]}');
  }
  return new ExportTrailer({ events, sequence_hash: sequenceHash, streams });
}

function checkedEvent(value: Record<string, unknown>, dataText: string | null, metaText: string | null): ExportedEvent {
  const { stream, version, type, data, meta, hash } = value;
  if (typeof stream !== 'string' || stream === '') throw new ExportLineError('"stream" must be a non-empty string');
  if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 1) throw new ExportLineError('"version" must be a positive integer');
  if (typeof type !== 'string' || type === '') throw new ExportLineError('"type" must be a non-empty string');
  if (data !== DATA_CHECKED_LATER && !isObject(data)) throw new ExportLineError('"data" must be an object');
  if (!isObject(meta) || typeof meta['command_id'] !== 'string') throw new ExportLineError('"meta" must be an object with a command_id');
  if (typeof hash !== 'string') throw new ExportLineError('"hash" must be a string');
  const canonical = () => ({ data: JSON.stringify(data === DATA_CHECKED_LATER ? JSON.parse(dataText!) : data), meta: JSON.stringify(meta) });
  const texts = dataText !== null && metaText !== null ? { data: dataText, meta: metaText } : canonical();
  return { stream, version, type, ...texts, hash, commandId: meta['command_id'], canonical };
}

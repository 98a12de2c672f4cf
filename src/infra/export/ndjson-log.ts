// The export file format: NDJSON, one event per line in global order,
//   {"stream":"project-1","version":1,"type":"project_create","data":{...},"meta":{...},"hash":"<hex>"}
// with data and meta written exactly as the log stores them, so every line's hash verifies as it is.
import type { ChainedEvent } from '../../ports/event-store.js';
import type { ChainLink } from '../event-store/chain-verifier.js';

/** One export line (without its newline), built from the stored text without re-encoding it. */
export function exportLine(event: ChainedEvent): string {
  return `{"stream":${JSON.stringify(event.stream)},"version":${event.version},"type":${JSON.stringify(event.type)},"data":${event.data},"meta":${event.meta},"hash":${JSON.stringify(event.hash)}}`;
}

/** A line that is not an exported event. */
export class ExportLineError extends Error {}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Reads one export line back into what the chain covers, data and meta as the log stores them
 * (JSON.stringify of the parsed values gives back the stored text: the log wrote them the same way).
 */
export function parseExportLine(line: string): ChainLink & { parsedMeta: Record<string, unknown> } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new ExportLineError('not JSON');
  }
  if (!isObject(value)) throw new ExportLineError('not a JSON object');
  const { stream, version, type, data, meta, hash } = value;
  if (typeof stream !== 'string' || stream === '') throw new ExportLineError('"stream" must be a non-empty string');
  if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 1) throw new ExportLineError('"version" must be a positive integer');
  if (typeof type !== 'string' || type === '') throw new ExportLineError('"type" must be a non-empty string');
  if (!isObject(data)) throw new ExportLineError('"data" must be an object');
  if (!isObject(meta) || typeof meta['command_id'] !== 'string') throw new ExportLineError('"meta" must be an object with a command_id');
  if (typeof hash !== 'string') throw new ExportLineError('"hash" must be a string');
  const unknownKey = Object.keys(value).find((key) => !['stream', 'version', 'type', 'data', 'meta', 'hash'].includes(key));
  if (unknownKey !== undefined) throw new ExportLineError(`unknown key "${unknownKey}"`);
  return { stream, version, type, data: JSON.stringify(data), meta: JSON.stringify(meta), hash, parsedMeta: meta };
}

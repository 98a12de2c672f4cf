// A batch of import events as the reader thread posts it to the writer: every text of the batch in ONE
// string, with each text's length, and the versions in a typed array. Posting 10,000 event objects
// cloned seven strings and seven keys per event on each side (a tenth of the import's time); one string
// and two buffers are copied whole, and the writer cuts the texts out again.
import type { EncodedStreamEvent } from '../event-store/sqlite-bulk-load.js';

/** An event the import read, with the number of its line in the file (to name it if the writer refuses it). */
export interface ReadEvent extends EncodedStreamEvent {
  line: number;
}

export interface PackedEventBatch {
  /** id, stream, type, data, meta and hash of each event, in that order, one after the other. */
  texts: string;
  /** The length of each of those texts. */
  lengths: Int32Array;
  versions: Float64Array;
  lines: Float64Array;
}

const TEXTS_PER_EVENT = 6;

export function packEventBatch(events: readonly ReadEvent[]): PackedEventBatch {
  const texts: string[] = [];
  const lengths = new Int32Array(events.length * TEXTS_PER_EVENT);
  const versions = new Float64Array(events.length);
  const lines = new Float64Array(events.length);
  events.forEach((event, index) => {
    texts.push(event.id, event.stream, event.type, event.data, event.meta, event.hash);
    versions[index] = event.version;
    lines[index] = event.line;
  });
  texts.forEach((text, index) => (lengths[index] = text.length));
  return { texts: texts.join(''), lengths, versions, lines };
}

/** The buffers a post can move to the other thread instead of copying them. */
export const batchBuffers = (batch: PackedEventBatch): ArrayBuffer[] => [batch.lengths.buffer as ArrayBuffer, batch.versions.buffer as ArrayBuffer, batch.lines.buffer as ArrayBuffer];

export function unpackEventBatch({ texts, lengths, versions, lines }: PackedEventBatch): ReadEvent[] {
  let at = 0;
  let field = 0;
  const next = () => texts.slice(at, (at += lengths[field++]!));
  return Array.from(versions, (version, index) => {
    const id = next();
    const stream = next();
    const type = next();
    const data = next();
    const meta = next();
    const hash = next();
    return { id, stream, version, type, data, meta, hash, line: lines[index]! };
  });
}

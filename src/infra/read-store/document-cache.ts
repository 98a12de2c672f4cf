// The parsed hot documents of the SQLite read store, bounded by an estimate of their heap size in bytes
// (twice their JSON length plus a fixed overhead: strings are UTF-16 and every object carries headers).
// Keyed by collection serial and id.
//
// Eviction is CLOCK (second chance), an approximation of least recently used: a hit only sets a flag, and
// the eviction sweep, oldest first, gives a flagged document one more round (moved to the young end, flag
// cleared) and drops the first unflagged one. A true LRU moves the entry on every hit (a Map delete and
// set), which on a cache of tens of thousands of documents cost 6% of the write path's CPU.
import type { Doc } from '../../ports/read-store.js';

interface CachedDocument {
  doc: Doc;
  bytes: number;
  /** Read since the sweep last passed it: spared once. */
  used: boolean;
}

const PER_DOCUMENT_OVERHEAD = 96;

/** The heap a parsed document of `jsonLength` characters is estimated to hold. */
export function estimatedDocumentBytes(jsonLength: number): number {
  return jsonLength * 2 + PER_DOCUMENT_OVERHEAD;
}

const ID_SPAN = 2 ** 32;

/** One number per (collection serial, id) while ids fit in 32 bits (no string built per lookup). */
function keyOf(serial: number, id: number): number | string {
  return id >= 0 && id < ID_SPAN && serial < 2 ** 20 ? serial * ID_SPAN + id : `${serial}:${id}`;
}

function serialOf(key: number | string): number {
  return typeof key === 'number' ? Math.floor(key / ID_SPAN) : Number(key.slice(0, key.indexOf(':')));
}

export class DocumentCache {
  private readonly entries = new Map<number | string, CachedDocument>();
  private bytes = 0;

  constructor(readonly capacityBytes: number) {}

  get size(): number {
    return this.entries.size;
  }

  get usedBytes(): number {
    return this.bytes;
  }

  get(serial: number, id: number): Doc | undefined {
    const key = keyOf(serial, id);
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    entry.used = true;
    return entry.doc;
  }

  set(serial: number, id: number, doc: Doc, bytes: number): void {
    if (bytes > this.capacityBytes) return this.delete(serial, id);
    const key = keyOf(serial, id);
    const previous = this.entries.get(key);
    if (previous) {
      // Replaced in place and counted as used: no Map churn for the documents every write rewrites.
      this.bytes += bytes - previous.bytes;
      previous.doc = doc;
      previous.bytes = bytes;
      previous.used = true;
    } else {
      this.entries.set(key, { doc, bytes, used: false });
      this.bytes += bytes;
    }
    this.evict();
  }

  delete(serial: number, id: number): void {
    const key = keyOf(serial, id);
    const entry = this.entries.get(key);
    if (!entry) return;
    this.bytes -= entry.bytes;
    this.entries.delete(key);
  }

  /** Forgets every document of one collection (dropped or rewritten elsewhere). */
  deleteCollection(serial: number): void {
    for (const [key, entry] of this.entries) {
      if (serialOf(key) !== serial) continue;
      this.bytes -= entry.bytes;
      this.entries.delete(key);
    }
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }

  /** Sweeps from the oldest entry: a used one is spared once (moved young), an unused one dropped. */
  private evict(): void {
    for (const [key, entry] of this.entries) {
      if (this.bytes <= this.capacityBytes) return;
      this.entries.delete(key);
      if (entry.used) {
        entry.used = false;
        this.entries.set(key, entry); // met again by this sweep only after every older entry
      } else {
        this.bytes -= entry.bytes;
      }
    }
  }
}

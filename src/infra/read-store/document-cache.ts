// The parsed hot documents of the SQLite read store, bounded by an estimate of their heap size in bytes
// (twice their JSON length plus a fixed overhead: strings are UTF-16 and every object carries headers).
// Keyed by collection serial and id.
//
// Eviction is CLOCK (second chance), an approximation of least recently used: a hit only sets a flag, and
// the eviction sweep, oldest first, gives a flagged document one more round (moved to the young end, flag
// cleared) and drops the first unflagged one. A true LRU moves the entry on every hit (a Map delete and
// set), which on a cache of tens of thousands of documents cost 6% of the write path's CPU.
//
// The sweep walks a queue of its own, from a hand that only moves forward. It used to walk the Map from
// its start, where every entry it had dropped or moved stays behind as a hole until V8 compacts the
// table: once the cache was full, each write skipped thousands of holes (60% of a loop of small inserts,
// a quarter of the serving thread's time under POST load).
//
// Admission: a read of a whole page of documents (admitsOnRepeat) does not keep a document on its first
// miss, only from its second on. Uncached pages of 100 stories under load pushed ~16 MB a second of
// parsed documents through the cache; each lived long enough to be promoted to V8's old space before it
// was evicted, which kept ~150 MB of old space for ~55 MB live. A document a page reads once now dies
// young; one read again is kept.
import type { Doc } from '../../ports/read-store.js';

interface CachedDocument {
  readonly key: number | string;
  doc: Doc;
  bytes: number;
  /** Read since the sweep last passed it: spared once. */
  used: boolean;
  /** Still in the cache (a dropped entry may wait in the sweep's queue until the hand passes it). */
  held: boolean;
}

/** What a dropped entry's slot holds instead of its document. */
const RELEASED: Doc = Object.freeze({ id: 0 });

/** Keys remembered by the doorkeeper of admitsOnRepeat before it starts afresh. */
const DOORKEEPER_KEYS = 65_536;

/** Passed queue slots kept before the queue is cut down to the ones ahead of the hand. */
const PASSED_SLOTS_KEPT = 1024;

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
  /** The sweep's order, oldest first from `hand`: every held entry once, and dropped ones not yet passed. */
  private queue: CachedDocument[] = [];
  private hand = 0;
  private bytes = 0;
  /** The keys a page read has missed (admitsOnRepeat). */
  private missedByPages = new Set<number | string>();

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
      const entry: CachedDocument = { key, doc, bytes, used: false, held: true };
      this.entries.set(key, entry);
      this.queue.push(entry);
      this.bytes += bytes;
    }
    this.evict();
  }

  /**
   * Whether a page read should keep this missed document: not on its first miss, yes on every later one
   * (a document evicted and read again is kept again at once; the doorkeeper forgets everything once it
   * holds DOORKEEPER_KEYS keys).
   */
  admitsOnRepeat(serial: number, id: number): boolean {
    const key = keyOf(serial, id);
    if (this.missedByPages.has(key)) return true;
    if (this.missedByPages.size >= DOORKEEPER_KEYS) this.missedByPages = new Set();
    this.missedByPages.add(key);
    return false;
  }

  delete(serial: number, id: number): void {
    const entry = this.entries.get(keyOf(serial, id));
    if (entry) this.drop(entry);
  }

  /** Forgets every document of one collection (dropped or rewritten elsewhere). */
  deleteCollection(serial: number): void {
    for (const [key, entry] of this.entries) if (serialOf(key) === serial) this.drop(entry);
  }

  clear(): void {
    this.entries.clear();
    this.missedByPages = new Set();
    this.queue = [];
    this.hand = 0;
    this.bytes = 0;
  }

  private drop(entry: CachedDocument): void {
    entry.held = false;
    entry.doc = RELEASED; // its slot may wait in the queue: the document itself goes now
    this.bytes -= entry.bytes;
    this.entries.delete(entry.key);
    // Dropped entries wait in the queue for the hand; a cache dropping more than it sweeps is cut down.
    if (this.queue.length - this.hand > 2 * this.entries.size + PASSED_SLOTS_KEPT) this.cutQueue();
  }

  /** Sweeps from the oldest entry: a used one is spared once (moved young), an unused one dropped. */
  private evict(): void {
    // While over capacity some held entry is ahead of the hand (each is queued once), so this ends.
    while (this.bytes > this.capacityBytes) {
      const entry = this.queue[this.hand++]!;
      if (!entry.held) continue;
      if (entry.used) {
        entry.used = false;
        this.queue.push(entry); // met again by this sweep only after every older entry
      } else {
        this.drop(entry);
      }
    }
    if (this.hand > PASSED_SLOTS_KEPT && this.hand * 2 > this.queue.length) this.cutQueue();
  }

  /** The queue without the slots the hand passed and without dropped entries. */
  private cutQueue(): void {
    this.queue = this.queue.slice(this.hand).filter((entry) => entry.held);
    this.hand = 0;
  }
}

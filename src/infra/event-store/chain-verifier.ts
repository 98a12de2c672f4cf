// Checks events, in global order, against their streams' hash chains (the codec's chainHash): each
// event must be its stream's next version and carry the hash of its own content over its predecessor's
// stored hash. One instance per walk; it keeps one entry per stream (never one per event). Used by
// `storyline verify` (the whole log) and `storyline import` (every line of the file before it is written).
import type { ChainedEvent, EventStore } from '../../ports/event-store.js';
import { GENESIS_HASH, chainHashAfter, chainRest } from '../event-codec.js';
import type { ChainRestRow } from './sqlite-hash-chain.js';

/** What the chain covers of an event (its global position is not part of it). */
export type ChainLink = Omit<ChainedEvent, 'position'>;

export interface StreamHead {
  stream: string;
  version: number;
  head_hash: string;
}

export interface ChainSummary {
  events: number;
  streams: StreamHead[];
}

/** What ChainVerifier.check says of an event whose hash does not match its content and predecessor. */
export const ALTERED = 'its hash does not match its content and its predecessor: the event was altered';

export class ChainVerifier {
  private readonly heads = new Map<string, { version: number; hash: string }>();
  private checked = 0;

  /** Checks the next event; returns what is wrong with it, or null when it continues its chain. */
  check(event: ChainLink): string | null {
    return this.checkRest(event.stream, event.version, event.hash, chainRest(event.stream, event.version, event.type, event.data, event.meta));
  }

  /** The same check of an event given as the codec's chainRest of it (the SQLite reader's: one string per event). */
  checkRest(stream: string, version: number, hash: string, rest: string): string | null {
    let head = this.heads.get(stream);
    const previous = head ?? { version: 0, hash: GENESIS_HASH };
    if (version !== previous.version + 1) {
      return `expected version ${previous.version + 1} of ${stream} next, found version ${version}`;
    }
    if (chainHashAfter(previous.hash, rest) !== hash) return ALTERED;
    if (!head) this.heads.set(stream, (head = { version: 0, hash: GENESIS_HASH }));
    head.version = version;
    head.hash = hash;
    this.checked++;
    return null;
  }

  /** Events checked so far and each stream's version and head hash, streams by name. */
  summary(): ChainSummary {
    const streams = [...this.heads].map(([stream, head]) => ({ stream, version: head.version, head_hash: head.hash }));
    streams.sort((a, b) => (a.stream < b.stream ? -1 : a.stream > b.stream ? 1 : 0));
    return { events: this.checked, streams };
  }
}

export type LogVerification =
  | { ok: true; summary: ChainSummary }
  | { ok: false; stream: string; version: number; position: number; problem: string; checked: number };

/**
 * Events read per batch by verifyLog (bounds its memory): small enough that a batch's strings die young
 * (10,000 spent about a third of the walk in the garbage collector).
 */
export const VERIFY_BATCH = 500;

/** The SQLite store's own read for verify: each event's chainRest written by the database (sqlite-hash-chain.ts). */
interface ChainRestReader {
  readChainRests(after: number, limit: number): Promise<ChainRestRow[]>;
}

const readsChainRests = (store: EventStore): store is EventStore & ChainRestReader => 'readChainRests' in store;

/** Walks the whole log in global order; stops at the first event that breaks its stream's chain. */
export async function verifyLog(store: EventStore, batch = VERIFY_BATCH): Promise<LogVerification> {
  const verifier = new ChainVerifier();
  const failed = (event: ChainedEvent, problem: string): LogVerification =>
    ({ ok: false, stream: event.stream, version: event.version, position: event.position, problem, checked: verifier.summary().events });
  let after = 0;
  for (;;) {
    let read: number;
    if (readsChainRests(store)) {
      // No object per event: the row's columns straight into the check.
      const rows = await store.readChainRests(after, batch);
      for (const [position, stream, version, hash, rest] of rows) {
        if (verifier.checkRest(stream, version, hash, rest) === null) continue;
        // The database's text of the event is only a shortcut: the verdict is the codec's own.
        const [event] = await store.readChain({ after: position - 1, limit: 1 });
        const problem = verifier.check(event!);
        if (problem) return failed(event!, problem);
      }
      read = rows.length;
      if (read > 0) after = rows[read - 1]![0];
    } else {
      const events = await store.readChain({ after, limit: batch });
      for (const event of events) {
        const problem = verifier.check(event);
        if (problem) return failed(event, problem);
      }
      read = events.length;
      if (read > 0) after = events[read - 1]!.position;
    }
    if (read < batch) return { ok: true, summary: verifier.summary() };
  }
}

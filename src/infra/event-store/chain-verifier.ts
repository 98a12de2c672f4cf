// Checks events, in global order, against their streams' hash chains (the codec's chainHash): each
// event must be its stream's next version and carry the hash of its own content over its predecessor's
// stored hash. One instance per walk; it keeps one entry per stream (never one per event) and sums up
// the events it passed (log-summary.ts). Used by
// `storyline verify` (the whole log) and `storyline import` (every line of the file before it is written).
import type { ChainedEvent, EventStore } from '../../ports/event-store.js';
import { GENESIS_HASH, chainHashAfter, chainRest } from '../event-codec.js';
import { LogSummaryBuilder, type LogSummary } from './log-summary.js';
import type { ChainRestRow } from './sqlite-hash-chain.js';

/** What the chain covers of an event (its global position is not part of it). */
export type ChainLink = Omit<ChainedEvent, 'position'>;

/** What ChainVerifier.check says of an event whose hash does not match its content and predecessor. */
export const ALTERED = 'its hash does not match its content and its predecessor: the event was altered';

export class ChainVerifier {
  private readonly log = new LogSummaryBuilder();

  /** Checks the next event; returns what is wrong with it, or null when it continues its chain. */
  check(event: ChainLink): string | null {
    return this.checkRest(event.stream, event.version, event.hash, chainRest(event.stream, event.version, event.type, event.data, event.meta));
  }

  /** The same check of an event given as the codec's chainRest of it (the SQLite reader's: one string per event). */
  checkRest(stream: string, version: number, hash: string, rest: string): string | null {
    const previous = this.log.head(stream) ?? { version: 0, hash: GENESIS_HASH };
    if (version !== previous.version + 1) {
      return `expected version ${previous.version + 1} of ${stream} next, found version ${version}`;
    }
    if (chainHashAfter(previous.hash, rest) !== hash) return ALTERED;
    this.log.add(stream, version, hash);
    return null;
  }

  /** The events checked so far: their count, each stream's version and head hash, the sequence hash. */
  summary(): LogSummary {
    return this.log.summary();
  }
}

export type LogVerification =
  | { ok: true; summary: LogSummary }
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

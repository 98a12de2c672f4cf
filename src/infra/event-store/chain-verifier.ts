// Checks events, in global order, against their streams' hash chains (the codec's chainHash): each
// event must be its stream's next version and carry the hash of its own content over its predecessor's
// stored hash. One instance per walk; it keeps one entry per stream (never one per event). Used by
// `storyline verify` (the whole log) and `storyline import` (every line of the file before it is written).
import type { ChainedEvent, EventStore } from '../../ports/event-store.js';
import { GENESIS_HASH, chainHash } from '../event-codec.js';

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
    let head = this.heads.get(event.stream);
    const previous = head ?? { version: 0, hash: GENESIS_HASH };
    if (event.version !== previous.version + 1) {
      return `expected version ${previous.version + 1} of ${event.stream} next, found version ${event.version}`;
    }
    if (chainHash(previous.hash, event.stream, event.version, event) !== event.hash) {
      return ALTERED;
    }
    if (!head) this.heads.set(event.stream, (head = { version: 0, hash: GENESIS_HASH }));
    head.version = event.version;
    head.hash = event.hash;
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

/** Events read per batch by verifyLog (bounds its memory). */
const VERIFY_BATCH = 10_000;

/** Walks the whole log in global order; stops at the first event that breaks its stream's chain. */
export async function verifyLog(store: EventStore, batch = VERIFY_BATCH): Promise<LogVerification> {
  const verifier = new ChainVerifier();
  let after = 0;
  for (;;) {
    const events = await store.readChain({ after, limit: batch });
    for (const event of events) {
      const problem = verifier.check(event);
      if (problem) {
        const { stream, version, position } = event;
        return { ok: false, stream, version, position, problem, checked: verifier.summary().events };
      }
    }
    if (events.length < batch) return { ok: true, summary: verifier.summary() };
    after = events[events.length - 1]!.position;
  }
}

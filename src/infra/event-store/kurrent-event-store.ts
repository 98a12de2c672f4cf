// The scale-out event store: the port over KurrentDB / EventStoreDB through its official Node client.
//
// Mapping: stream names are used as they are; our 1-based version n is Kurrent revision n - 1; expected
// version 0 is NO_STREAM, n is revision n - 1, 'any' is ANY. Event ids come from eventId(), so the
// server's own idempotency (same ids at the same expected revision) already answers a retried append
// with the original result. Events are stored as JSON (data = event data, metadata = event meta) and
// read back through the codec's decodeParsedEvent, which upcasts. The event's chain hash (the codec's
// chainHash over the event as JSON text) travels in the metadata as `chain_hash` and is taken out of the
// meta again when reading; the append computes it from the stream's last event, and appends at that
// event's revision so the predecessor cannot change underneath (an 'any' append re-reads, bounded).
//
// Global positions come from KurrentPositionIndex (see its header for the limits of that mapping).
//
// Idempotent re-append when the expected version has moved on (or is 'any'): the stream is searched
// backwards for the command's first event id. The search stops at events the server created more than
// MAX_CLOCK_SKEW_MS before the command was decided (meta.occurred_at), since the command cannot have
// been appended before it was decided; this assumes server and application clocks differ by less.
// Two concurrent 'any' appends of one command may still both be written (the server's own duplicate
// check for ANY is best effort); the command handler always appends with an explicit version.
import {
  ANY,
  BACKWARDS,
  END,
  FORWARDS,
  KurrentDBClient,
  NO_STREAM,
  START,
  StreamNotFoundError,
  WrongExpectedVersionError,
  excludeSystemEvents,
  jsonEvent,
} from '@kurrent/kurrentdb-client';
import type {
  AllStreamSubscription,
  AppendStreamState,
  CurrentStreamState,
  JSONType,
  ReadRevision,
  RecordedEvent as KurrentRecordedEvent,
} from '@kurrent/kurrentdb-client';
import { Subject } from 'rxjs';
import type { NewEvent, RecordedEvent } from '../../domain/events.js';
import { GENESIS_HASH, chainHash, decodeParsedEvent, encodeEvent } from '../event-codec.js';
import { assertValidAppend } from './append-validation.js';
import { KurrentPositionIndex } from './kurrent-position-index.js';
import type { LogPosition } from './kurrent-position-index.js';
import { WrongExpectedVersion, eventId } from '../../ports/event-store.js';
import type { AppendResult, ChainedEvent, EventStore, ExpectedVersion, ReadAllOptions, ReadStreamOptions } from '../../ports/event-store.js';

export interface KurrentEventStoreOptions {
  /** A KurrentDB connection string, e.g. `kurrentdb://localhost:2113?tls=false`. */
  url: string;
}

export type KurrentEventStore = EventStore & { close(): Promise<void> };

const MAX_CLOCK_SKEW_MS = 10 * 60 * 1000;
const RESUBSCRIBE_DELAY_MS = 1000;
/** How often an 'any' append re-reads the stream head when another writer moved it meanwhile. */
const ANY_APPEND_ATTEMPTS = 10;

/** The event's metadata as stored: our meta plus the chain hash. */
type ChainedMetadata = Record<string, unknown> & { chain_hash?: unknown };

/** Splits stored metadata into the event's meta and its chain hash ('' when it has none). */
function splitMetadata(metadata: unknown): { meta: unknown; hash: string } {
  const { chain_hash: hash, ...meta } = (metadata ?? {}) as ChainedMetadata;
  return { meta, hash: typeof hash === 'string' ? hash : '' };
}

export function toStreamState(expected: ExpectedVersion): AppendStreamState {
  if (expected === 'any') return ANY;
  return expected === 0 ? NO_STREAM : BigInt(expected - 1);
}

export function toVersion(state: CurrentStreamState): number {
  return state === NO_STREAM ? 0 : Number(state) + 1;
}

export async function openKurrentEventStore(options: KurrentEventStoreOptions): Promise<KurrentEventStore> {
  const client = KurrentDBClient.connectionString(options.url);

  async function* readLogPositions(from: LogPosition | null): AsyncIterable<LogPosition> {
    for await (const resolved of client.readAll({
      fromPosition: from ?? START,
      direction: FORWARDS,
      filter: excludeSystemEvents(),
    })) {
      if (resolved.event) yield resolved.event.position;
    }
  }
  const index = new KurrentPositionIndex(readLogPositions);
  await index.catchUp();

  async function decode(event: KurrentRecordedEvent, position?: number): Promise<RecordedEvent> {
    if (!event.position) throw new Error('KurrentDB did not report event positions: version 22.6 or later is required');
    return decodeParsedEvent({
      id: event.id,
      stream: event.streamId,
      version: Number(event.revision) + 1,
      position: position ?? (await index.positionOf(event.position)),
      type: event.type,
      data: event.data,
      meta: splitMetadata(event.metadata).meta,
    });
  }

  /** The events of $all after a 1-based position, each with its position, checked against the index. */
  async function* readAllRaw(options: ReadAllOptions): AsyncIterable<[KurrentRecordedEvent, number]> {
    await index.catchUp();
    const after = Math.max(options.after ?? 0, 0);
    const count = Math.min(options.limit ?? Number.MAX_SAFE_INTEGER, index.head - after);
    const from = index.logPositionOf(after + 1);
    if (count <= 0 || !from) return;
    let read = 0;
    for await (const resolved of client.readAll({
      fromPosition: from,
      direction: FORWARDS,
      maxCount: count,
      filter: excludeSystemEvents(),
    })) {
      const event = resolved.event;
      if (!event) continue;
      const position = after + read + 1;
      const expected = index.logPositionOf(position);
      if (!expected || expected.commit !== event.position.commit || expected.prepare !== event.position.prepare) {
        throw new Error(`KurrentDB $all no longer matches the position index at position ${position}`);
      }
      yield [event, position];
      read++;
      if (read === count) return;
    }
  }

  function chained(event: KurrentRecordedEvent, position: number): ChainedEvent {
    const { meta, hash } = splitMetadata(event.metadata);
    return {
      position,
      stream: event.streamId,
      version: Number(event.revision) + 1,
      type: event.type,
      data: JSON.stringify(event.data),
      meta: JSON.stringify(meta),
      hash,
    };
  }

  /** The stream's version and last chain hash, read at `expected` (a version) or at its end ('any'). */
  async function streamHead(stream: string, expected: ExpectedVersion): Promise<{ version: number; hash: string }> {
    if (expected === 0) return { version: 0, hash: GENESIS_HASH };
    const [last] =
      expected === 'any' ? await readRaw(stream, END, BACKWARDS, 1) : await readRaw(stream, BigInt(expected - 1), FORWARDS, 1);
    if (!last) return { version: expected === 'any' ? 0 : -1, hash: GENESIS_HASH };
    return { version: Number(last.revision) + 1, hash: splitMetadata(last.metadata).hash };
  }

  /** Proposed events chained after the stream head. */
  function chainedProposals(stream: string, head: { version: number; hash: string }, events: NewEvent[]) {
    let previous = head.hash;
    return events.map((event, index) => {
      previous = chainHash(previous, stream, head.version + index + 1, encodeEvent(event));
      return jsonEvent({
        id: eventId(event.meta.command_id, index),
        type: event.type,
        data: event.data as unknown as JSONType,
        metadata: { ...event.meta, chain_hash: previous } as unknown as JSONType,
      });
    });
  }

  /** Reads a stream's raw events; a stream that does not exist reads as empty. */
  async function readRaw(
    stream: string,
    fromRevision: ReadRevision,
    direction: typeof FORWARDS | typeof BACKWARDS,
    maxCount?: number,
  ): Promise<KurrentRecordedEvent[]> {
    const events: KurrentRecordedEvent[] = [];
    try {
      for await (const resolved of client.readStream(stream, { fromRevision, direction, maxCount })) {
        if (resolved.event) events.push(resolved.event);
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw error;
    }
    return events;
  }

  /** The result of the append whose last event has `revision`. */
  async function resultAt(stream: string, revision: bigint): Promise<AppendResult> {
    const [last] = await readRaw(stream, revision, FORWARDS, 1);
    if (!last) throw new Error(`KurrentDB reported ${stream}@${revision} written but it cannot be read`);
    return { version: Number(revision) + 1, position: (await decode(last)).position };
  }

  /** The result of an earlier append of the command, if it reached the stream. */
  async function earlierAppend(stream: string, first: NewEvent): Promise<AppendResult | null> {
    const commandId = first.meta.command_id;
    const firstId = eventId(commandId, 0);
    const notBefore = first.meta.occurred_at - MAX_CLOCK_SKEW_MS;
    let found: bigint | null = null;
    try {
      for await (const resolved of client.readStream(stream, { fromRevision: END, direction: BACKWARDS })) {
        const event = resolved.event;
        if (!event) continue;
        if (event.id === firstId) {
          found = event.revision;
          break;
        }
        if (event.created.getTime() < notBefore) break;
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return null;
      throw error;
    }
    if (found === null) return null;
    let lastRevision = found;
    const following = await readRaw(stream, found + 1n, FORWARDS);
    for (const [offset, event] of following.entries()) {
      if (event.id !== eventId(commandId, offset + 1)) break;
      lastRevision = event.revision;
    }
    return resultAt(stream, lastRevision);
  }

  const appended = new Subject<number>();
  let announcedHead = index.head;
  let closed = false;
  async function announceNewEvents(): Promise<void> {
    await index.catchUp();
    if (closed || index.head <= announcedHead) return;
    announcedHead = index.head;
    appended.next(announcedHead);
  }

  // Any new event in $all (ours or another process's) triggers a catch-up of the index and an
  // announcement. A failed catch-up is retried by the next event or by the resubscription.
  let subscription: AllStreamSubscription | null = null;
  function subscribe(): void {
    const current = client.subscribeToAll({ fromPosition: END, filter: excludeSystemEvents() });
    subscription = current;
    current.on('data', () => void announceNewEvents().catch(() => undefined));
    current.on('error', () => {
      if (closed || subscription !== current) return;
      subscription = null;
      setTimeout(() => {
        if (closed) return;
        subscribe();
        void announceNewEvents().catch(() => undefined);
      }, RESUBSCRIBE_DELAY_MS).unref();
    });
  }
  subscribe();

  function assertOpen(): void {
    if (closed) throw new Error('the event store is closed');
  }

  return {
    appended$: appended.asObservable(),

    async append(stream, expectedVersion, events) {
      assertOpen();
      assertValidAppend(stream, expectedVersion, events);
      const first = events[0]!;
      if (expectedVersion === 'any') {
        const earlier = await earlierAppend(stream, first);
        if (earlier) return earlier;
      }
      for (let attempt = 1; ; attempt++) {
        const head = await streamHead(stream, expectedVersion);
        // An explicit version the stream has not reached: let the server report the mismatch.
        const state = head.version < 0 ? toStreamState(expectedVersion) : toStreamState(head.version);
        try {
          const written = await client.appendToStream(stream, chainedProposals(stream, head, events), { streamState: state });
          const result = await resultAt(stream, written.nextExpectedRevision);
          void announceNewEvents().catch(() => undefined);
          return result;
        } catch (error) {
          if (!(error instanceof WrongExpectedVersionError)) throw error;
          const earlier = await earlierAppend(stream, first);
          if (earlier) return earlier;
          if (expectedVersion !== 'any' || attempt >= ANY_APPEND_ATTEMPTS) {
            throw new WrongExpectedVersion(stream, expectedVersion, toVersion(error.actualState));
          }
        }
      }
    },

    async readStream(stream, options: ReadStreamOptions = {}) {
      assertOpen();
      const backwards = options.direction === 'backwards';
      if (options.limit !== undefined && options.limit <= 0) return [];
      if (backwards && options.from !== undefined && options.from < 1) return [];
      const fromRevision: ReadRevision =
        options.from === undefined ? (backwards ? END : START) : BigInt(Math.max(options.from, 1) - 1);
      const raw = await readRaw(stream, fromRevision, backwards ? BACKWARDS : FORWARDS, options.limit);
      return Promise.all(raw.map((event) => decode(event)));
    },

    async readAll(options: ReadAllOptions = {}) {
      assertOpen();
      const events: RecordedEvent[] = [];
      for await (const [event, position] of readAllRaw(options)) events.push(await decode(event, position));
      return events;
    },

    async readChain(options: ReadAllOptions = {}) {
      assertOpen();
      const events: ChainedEvent[] = [];
      for await (const [event, position] of readAllRaw(options)) events.push(chained(event, position));
      return events;
    },

    async streamVersion(stream) {
      assertOpen();
      const [last] = await readRaw(stream, END, BACKWARDS, 1);
      return last ? Number(last.revision) + 1 : 0;
    },

    async headPosition() {
      assertOpen();
      await index.catchUp();
      return index.head;
    },

    async close() {
      if (closed) return;
      closed = true;
      await subscription?.unsubscribe();
      appended.complete();
      await client.dispose();
    },
  };
}

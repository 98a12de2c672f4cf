// The ports: what the domain-free layers (commands, queries, projections, reactions, api) need from
// storage, in one place. Adapters live under src/infra/ and are chosen only by infra/composition.ts.
// The event store port. Adapters: infra/event-store/sqlite-event-store.ts (embedded default), kurrent-event-store.ts
// (KurrentDB / EventStoreDB). Every adapter passes test/contract/event-store.contract.ts.
import { hash } from 'node:crypto';
import type { Observable } from 'rxjs';
import type { NewEvent, RecordedEvent } from '../domain/events.js';

/** `expectedVersion`: the stream's current version (0 = the stream must not exist yet), or 'any'. */
export type ExpectedVersion = number | 'any';

export interface AppendResult {
  /** The stream's version after the append: the version of its last event. */
  version: number;
  /** Global position of the last appended event. */
  position: number;
}

export class WrongExpectedVersion extends Error {
  constructor(
    readonly stream: string,
    readonly expected: ExpectedVersion,
    readonly actual: number,
  ) {
    super(`stream ${stream} is at version ${actual}, expected ${expected}`);
    this.name = 'WrongExpectedVersion';
  }
}

export interface ReadStreamOptions {
  /** Forwards: first version to return (default 1). Backwards: last version to return (default: the end). */
  from?: number;
  direction?: 'forwards' | 'backwards';
  limit?: number;
}

export interface ReadAllOptions {
  /** Return events whose position is strictly greater than this (default 0: from the start). */
  after?: number;
  limit?: number;
}

/**
 * An event as stored, with its hash in its stream's chain (infra/event-codec.ts chainHash): what
 * `storyline verify` checks and `storyline export` writes. `data` and `meta` are the stored JSON text.
 */
export interface ChainedEvent {
  position: number;
  stream: string;
  version: number;
  type: string;
  data: string;
  meta: string;
  hash: string;
}

export interface EventStore {
  /**
   * Appends events atomically, acknowledged only once durable. Events whose ids (derived from the
   * command id) were already appended are not written again: the first append's result is returned.
   * Throws WrongExpectedVersion on a version mismatch.
   */
  append(stream: string, expectedVersion: ExpectedVersion, events: NewEvent[]): Promise<AppendResult>;
  readStream(stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;
  /** The same global order as readAll, as stored text with each event's chain hash, not decoded. */
  readChain(options?: ReadAllOptions): Promise<ChainedEvent[]>;
  /** Current version of a stream (0 when it does not exist). */
  streamVersion(stream: string): Promise<number>;
  /** Position of the newest event in the global log (0 when empty). */
  headPosition(): Promise<number>;
  /**
   * Emits the head position whenever new events become visible, including events appended by other
   * processes (noticed within a second).
   */
  readonly appended$: Observable<number>;
  close(): Promise<void>;
}

/** The namespace of event ids (a UUID), as bytes. */
const EVENT_ID_NAMESPACE = Buffer.from('5b0c1f43-8f0e-4b61-9a8e-3f1d2c7a9e64'.replaceAll('-', ''), 'hex');

/** The variant digit of a name-based UUID (RFC 4122: binary 10xx) for the low two bits of its nibble. */
const VARIANT_DIGITS = '89ab';

/**
 * Deterministic id of the `index`-th event (0-based) appended by the command `commandId`: part of the
 * port's contract (a retried command cannot write twice), so the command handler and every adapter
 * derive it the same way.
 */
export function eventId(commandId: string, index: number): string {
  // UUID version 5 (RFC 4122 4.3) of the name `${commandId}/${index}` in EVENT_ID_NAMESPACE, written from
  // one SHA-1 call (uuid's v5 gives the same ids at three times the cost, which `storyline import` pays
  // once per event): the first 16 bytes of the digest, version 5 and the variant set.
  const digest = hash('sha1', Buffer.concat([EVENT_ID_NAMESPACE, Buffer.from(`${commandId}/${index}`, 'utf8')]));
  const variant = VARIANT_DIGITS[Number.parseInt(digest[16]!, 16) & 3]!;
  return `${digest.slice(0, 8)}-${digest.slice(8, 12)}-5${digest.slice(13, 16)}-${variant}${digest.slice(17, 20)}-${digest.slice(20, 32)}`;
}

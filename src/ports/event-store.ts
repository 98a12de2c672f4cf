// The ports: what the domain-free layers (commands, queries, projections, reactions, api) need from
// storage, in one place. Adapters live under src/infra/ and are chosen only by infra/composition.ts.
// The event store port. Adapters: infra/event-store/sqlite-event-store.ts (embedded default), kurrent-event-store.ts
// (KurrentDB / EventStoreDB). Every adapter passes test/contract/event-store.contract.ts.
import type { Observable } from 'rxjs';
import { hash } from 'node:crypto';
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

const EVENT_ID_NAMESPACE = '5b0c1f43-8f0e-4b61-9a8e-3f1d2c7a9e64';

/**
 * Deterministic id of the `index`-th event (0-based) appended by the command `commandId`: part of the
 * port's contract (a retried command cannot write twice), so the command handler and every adapter
 * derive it the same way.
 */
export function eventId(commandId: string, index: number): string {
  // A UUID v5 (RFC 9562: SHA-1 over the namespace's bytes and the name's UTF-8, version and variant bits
  // set), written out here with one crypto.hash call: the uuid package's v5 costs several times more,
  // which `storyline import` (one id per event) felt. test/contract/event-store.test.ts pins it to uuid's.
  const name = `${commandId}/${index}`;
  const input = name.length * 3 + 16 <= idInput.length ? idInput : Buffer.alloc(name.length * 3 + 16);
  if (input !== idInput) NAMESPACE_BYTES.copy(input);
  const length = 16 + input.write(name, 16, 'utf8');
  const digest = hash('sha1', input.subarray(0, length), 'buffer') as unknown as Buffer;
  digest[6] = (digest[6]! & 0x0f) | 0x50;
  digest[8] = (digest[8]! & 0x3f) | 0x80;
  const hex = digest.toString('hex', 0, 16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const NAMESPACE_BYTES = Buffer.from(EVENT_ID_NAMESPACE.replaceAll('-', ''), 'hex');
/** The namespace followed by room for a name: reused by every eventId call (they never overlap: no await). */
const idInput = Buffer.alloc(16 + 1024);
NAMESPACE_BYTES.copy(idInput);

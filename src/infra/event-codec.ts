// The one serializer / deserializer of events. Adapters that store text write with encodeEvent; every
// adapter reads through decodeEvent (text) or decodeParsedEvent (drivers that hand back parsed JSON),
// which upcast events written under an older `meta.schema` to the current EVENT_SCHEMA, so no other
// code ever sees an old layout.
//
// It also holds the one definition of the hash chain (chainHash): every adapter stores, with each event,
// a SHA-256 over the event's stored content and its stream predecessor's hash, so `storyline verify`
// (and `storyline import`) can tell whether anything in the log was altered.
import { hash } from 'node:crypto';
import { EVENT_SCHEMA } from '../domain/events.js';
import { membershipFlagsOfSchema2 } from '../domain/account/account-membership-flags.js';
import { eventInWholeSeconds } from '../domain/whole-seconds.js';
import type { EventData, EventMeta, EventType, RecordedEvent } from '../domain/events.js';

/** An event as stored: data and meta as JSON text. */
export interface EncodedEvent {
  type: string;
  data: string;
  meta: string;
}

/** A stored event as an adapter reads it back, before decoding. */
export interface StoredEventRow extends EncodedEvent {
  id: string;
  stream: string;
  version: number;
  position: number;
}

/** The parts of an event an upcaster may reshape. */
export interface EventBody {
  type: string;
  data: EventData;
  meta: EventMeta;
}

/** Turns an event written under schema N into the same event under schema N + 1. */
export type Upcaster = (event: EventBody) => EventBody;

/**
 * Upcasters keyed by the schema they upgrade FROM. When EVENT_SCHEMA becomes 2, register the
 * conversion of schema-1 events here in one line: `[1, upcastSchema1To2]`.
 */
const upcasters: ReadonlyMap<number, Upcaster> = new Map<number, Upcaster>([
  [1, upcastSchema1To2],
  [2, upcastSchema2To3],
]);

/** Schema 1 recorded datetimes to the millisecond; schema 2 to the whole second. */
function upcastSchema1To2(event: EventBody): EventBody {
  const rounded = eventInWholeSeconds(event);
  return { ...rounded, meta: { ...rounded.meta, schema: 2 } };
}

/** Schema 2 had no time flags on account memberships and made the account's creator an admin. */
function upcastSchema2To3(event: EventBody): EventBody {
  return { ...event, data: membershipFlagsOfSchema2(event.type, event.data), meta: { ...event.meta, schema: 3 } };
}

/** Namespace of event ids (a fixed, random UUID): ids are UUID v5 of `<command id>/<index>`. */

export function encodeEvent(event: EventBody): EncodedEvent {
  return { type: event.type, data: JSON.stringify(event.data), meta: JSON.stringify(event.meta) };
}

/** The predecessor hash of a stream's first event. */
export const GENESIS_HASH = '';

/**
 * The hash of an event in its stream's chain: SHA-256 (hex) over its predecessor's hash, stream, version
 * and type (as one JSON array, so no field can bleed into another) and its data and meta as stored JSON
 * text (which holds no raw newline, so the newline separators are unambiguous):
 *   JSON.stringify([previousHash, stream, version, type]) + "\n" + data + "\n" + meta
 */
export function chainHash(previousHash: string, stream: string, version: number, event: EncodedEvent): string {
  return chainHashAfter(previousHash, chainRest(stream, version, event.type, event.data, event.meta));
}

/**
 * What follows the predecessor's hash in the hashed text: `,stream,version,type]`, newline, data, newline,
 * meta (the array's JSON written from its parts': a stored version is an integer). The SQLite reader of
 * `storyline verify` has the database write the same text (sqlite-hash-chain.ts CHAIN_REST_SQL).
 */
export function chainRest(stream: string, version: number, type: string, data: string, meta: string): string {
  return `,${JSON.stringify(stream)},${version},${JSON.stringify(type)}]\n${data}\n${meta}`;
}

/** The hash of an event given its predecessor's hash and its chainRest: one string hashed in one call (crypto.hash). */
export function chainHashAfter(previousHash: string, rest: string): string {
  return hash('sha256', `[${JSON.stringify(previousHash)}${rest}`);
}

export function decodeEvent(row: StoredEventRow): RecordedEvent {
  return decodeStoredColumns(row.position, row.id, row.stream, row.version, row.type, row.data, row.meta);
}

/**
 * The same decoding from a row's columns, for adapters that read rows as arrays (replay's hot path:
 * no intermediate row object, one object built per event).
 */
export function decodeStoredColumns(
  position: number,
  id: string,
  stream: string,
  version: number,
  type: string,
  data: string,
  meta: string,
): RecordedEvent {
  const parsedMeta = JSON.parse(meta) as EventMeta;
  const parsedData = JSON.parse(data) as EventData;
  // The log only holds what deciders wrote, so a current-schema type is one of EventType (not re-checked
  // on replay's hot path); older schemas are reshaped by the upcasters first.
  if (parsedMeta.schema === EVENT_SCHEMA) return { id, stream, version, position, type: type as EventType, data: parsedData, meta: parsedMeta };
  return decodeParsedEvent({ id, stream, version, position, type, data: parsedData, meta: parsedMeta });
}

/** A stored event whose driver already parsed data and meta from JSON (KurrentDB, MongoDB). */
export interface ParsedEventRow extends Omit<StoredEventRow, 'data' | 'meta'> {
  data: unknown;
  meta: unknown;
}

export function decodeParsedEvent(row: ParsedEventRow): RecordedEvent {
  const body = upcast({ type: row.type, data: row.data as EventData, meta: row.meta as EventMeta });
  return { id: row.id, stream: row.stream, version: row.version, position: row.position, ...body, type: body.type as EventType };
}

/** Applies the registered upcasters, one schema step at a time, up to EVENT_SCHEMA. */
export function upcast(event: EventBody, registry: ReadonlyMap<number, Upcaster> = upcasters): EventBody {
  let current = event;
  while (current.meta.schema < EVENT_SCHEMA) {
    const step = registry.get(current.meta.schema);
    if (!step) throw new Error(`no upcaster for event schema ${current.meta.schema} (current is ${EVENT_SCHEMA})`);
    const next = step(current);
    if (next.meta.schema <= current.meta.schema) {
      throw new Error(`upcaster for event schema ${current.meta.schema} did not raise the schema`);
    }
    current = next;
  }
  if (current.meta.schema > EVENT_SCHEMA) {
    throw new Error(`event schema ${current.meta.schema} is newer than this server (${EVENT_SCHEMA})`);
  }
  return current;
}

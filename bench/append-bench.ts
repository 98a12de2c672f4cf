// Durable append throughput and latency of the SQLite event store, against the raw rate of the same
// durable SQLite inserts without our layers, measured in one run on one disk.
//
// Writers behave like the command handler: they append one story_update event (~500 bytes of JSON)
// with the stream version they last saw, and on WrongExpectedVersion retry with the actual version.
// Latency is measured from the first attempt to the acknowledgement, retries included.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { encodeEvent } from '../src/infra/event-codec.js';
import { WrongExpectedVersion, eventId } from '../src/ports/event-store.js';
import { openSqliteEventStore } from '../src/infra/event-store/sqlite-event-store.js';
import { storyUpdateEvent } from '../test/contract/event-store.fixtures.js';
import { percentile } from './stats.js';

const SECONDS_PER_SCENARIO = 3;

interface Measurement {
  label: string;
  appends: number;
  seconds: number;
  latenciesMs: number[];
  conflicts: number;
}

const perSecond = (m: Measurement) => m.appends / m.seconds;

function describeMeasurement(m: Measurement): string {
  const sorted = [...m.latenciesMs].sort((a, b) => a - b);
  return [
    m.label.padEnd(34),
    `${perSecond(m).toFixed(0).padStart(7)} appends/s`,
    `p50 ${percentile(sorted, 50).toFixed(2).padStart(7)} ms`,
    `p99 ${percentile(sorted, 99).toFixed(2).padStart(7)} ms`,
    `conflicts retried ${m.conflicts}`,
  ].join('  ');
}

/** The same durable inserts without our layers: one INSERT, autocommitted (fsync), at a time. */
function measureRawInserts(dir: string): Measurement {
  const db = new Database(join(dir, 'raw.sqlite'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec(`CREATE TABLE events (position INTEGER PRIMARY KEY, id TEXT UNIQUE NOT NULL, stream TEXT NOT NULL,
    version INTEGER NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, meta TEXT NOT NULL, UNIQUE (stream, version))`);
  const insert = db.prepare('INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?)');
  const latenciesMs: number[] = [];
  const start = performance.now();
  const deadline = start + SECONDS_PER_SCENARIO * 1000;
  let position = 0;
  while (performance.now() < deadline) {
    const begin = performance.now();
    position++;
    const commandId = randomUUID();
    const encoded = encodeEvent(storyUpdateEvent(commandId, position));
    insert.run(position, eventId(commandId, 0), 'project-1', position, encoded.type, encoded.data, encoded.meta);
    latenciesMs.push(performance.now() - begin);
  }
  const seconds = (performance.now() - start) / 1000;
  db.close();
  return { label: 'raw better-sqlite3 insert+commit', appends: position, seconds, latenciesMs, conflicts: 0 };
}

async function measureStore(dir: string, writers: number, streams: number): Promise<Measurement> {
  const store = await openSqliteEventStore({ path: join(dir, `store-${writers}-${streams}.sqlite`) });
  const knownVersion = new Map<string, number>();
  const latenciesMs: number[] = [];
  let conflicts = 0;
  let sequence = 0;
  const start = performance.now();
  const deadline = start + SECONDS_PER_SCENARIO * 1000;

  // Writers share streams only when there are fewer streams than writers; a writer owning several
  // streams cycles through them (1 writer over 16 projects touches all 16).
  const lanes = Math.min(writers, streams);
  const streamsOf = (index: number) =>
    Array.from({ length: streams }, (_, s) => s).filter((s) => s % lanes === index % lanes);

  async function writer(index: number): Promise<void> {
    const own = streamsOf(index);
    for (let n = 0; performance.now() < deadline; n++) {
      const stream = `project-${own[n % own.length]! + 1}`;
      const begin = performance.now();
      const events = [storyUpdateEvent(randomUUID(), ++sequence)];
      for (;;) {
        try {
          const result = await store.append(stream, knownVersion.get(stream) ?? 0, events);
          knownVersion.set(stream, Math.max(knownVersion.get(stream) ?? 0, result.version));
          break;
        } catch (error) {
          if (!(error instanceof WrongExpectedVersion)) throw error;
          conflicts++;
          knownVersion.set(stream, error.actual);
        }
      }
      latenciesMs.push(performance.now() - begin);
    }
  }

  await Promise.all(Array.from({ length: writers }, (_, index) => writer(index)));
  const seconds = (performance.now() - start) / 1000;
  const appends = await store.headPosition();
  await store.close();
  const label = `${writers} writer${writers > 1 ? 's' : ''}, ${streams} project stream${streams > 1 ? 's' : ''}`;
  return { label, appends, seconds, latenciesMs, conflicts };
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'storyline-append-bench-'));
  try {
    const sample = encodeEvent(storyUpdateEvent(randomUUID()));
    const eventBytes = sample.data.length + sample.meta.length;
    console.log(`event store append benchmark (SQLite, WAL, synchronous=FULL, ${SECONDS_PER_SCENARIO} s per scenario,`);
    console.log(`  one story_update per append, ${eventBytes} bytes of JSON data + meta, temp dir ${dir})`);
    const raw = measureRawInserts(dir);
    console.log(`  ${describeMeasurement(raw)}`);
    let target: Measurement | null = null;
    for (const [writers, streams] of [
      [1, 1],
      [16, 1],
      [1, 16],
      [16, 16],
    ] as const) {
      const measured = await measureStore(dir, writers, streams);
      console.log(`  ${describeMeasurement(measured)}`);
      if (writers === 16 && streams === 16) target = measured;
    }
    const ratio = perSecond(target!) / perSecond(raw);
    console.log(`  16 writers / 16 projects vs raw: ${(ratio * 100).toFixed(0)}% (target >= 50%)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

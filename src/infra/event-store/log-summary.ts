// What a walk of the log in global order adds up to: how many events, each stream's head (its last
// version and that event's hash) and the sequence hash, a SHA-256 over every event's hash in log order.
// The heads say what each stream's chain ends at; the sequence hash covers what the chains do not: the
// order of events ACROSS streams (their positions). `storyline verify`, `export` and `import` print
// one; an export ends with one (its trailer); `verify --expect FILE` compares the log's with a kept one.
//
// Memory: one entry per stream, never one per event.
import { createHash, type Hash } from 'node:crypto';

export interface StreamHead {
  stream: string;
  version: number;
  head_hash: string;
}

export interface LogSummary {
  events: number;
  /** SHA-256 (hex) of every event's hash, concatenated in log order. */
  sequence_hash: string;
  /** By stream name. */
  streams: StreamHead[];
}

/** Event hashes gathered before one update of the sequence hash (one native call per run, not per event). */
const HASHES_PER_UPDATE = 512;

export class LogSummaryBuilder {
  private readonly heads = new Map<string, { version: number; hash: string }>();
  private readonly sequence: Hash = createHash('sha256');
  private pending = '';
  private pendingCount = 0;
  private events = 0;

  /** The stream's head so far, or undefined before its first event. */
  head(stream: string): { readonly version: number; readonly hash: string } | undefined {
    return this.heads.get(stream);
  }

  /** The next event in log order. */
  add(stream: string, version: number, hash: string): void {
    const head = this.heads.get(stream);
    if (head) {
      head.version = version;
      head.hash = hash;
    } else this.heads.set(stream, { version, hash });
    this.events++;
    this.pending += hash;
    if (++this.pendingCount === HASHES_PER_UPDATE) this.flush();
  }

  /** The summary of the events added so far (more may be added after). */
  summary(): LogSummary {
    this.flush();
    const streams = [...this.heads].map(([stream, head]) => ({ stream, version: head.version, head_hash: head.hash }));
    streams.sort((a, b) => (a.stream < b.stream ? -1 : a.stream > b.stream ? 1 : 0));
    return { events: this.events, sequence_hash: this.sequence.copy().digest('hex'), streams };
  }

  private flush(): void {
    if (this.pendingCount === 0) return;
    this.sequence.update(this.pending);
    this.pending = '';
    this.pendingCount = 0;
  }
}

/**
 * A summary as verify, export and import print it (and an export's trailer holds it), read from parsed
 * JSON; a string says what is wrong with it. `events` and `sequence_hash` may be absent (a list of heads
 * kept by hand): then only the heads are compared.
 */
export function readLogSummary(value: unknown): Partial<LogSummary> & { streams: StreamHead[] } | string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a JSON object';
  const { events, sequence_hash: sequenceHash, streams } = value as Record<string, unknown>;
  if (!Array.isArray(streams)) return 'no "streams" list of {stream, version, head_hash}';
  const heads: StreamHead[] = [];
  const seen = new Set<string>();
  for (const [index, entry] of streams.entries()) {
    const { stream, version, head_hash: hash } = (entry ?? {}) as Record<string, unknown>;
    if (typeof stream !== 'string' || stream === '' || !Number.isSafeInteger(version) || (version as number) < 1 || typeof hash !== 'string') {
      return `"streams"[${index}] is not {stream, version, head_hash}`;
    }
    if (seen.has(stream)) return `"streams" names ${stream} twice`;
    seen.add(stream);
    heads.push({ stream, version: version as number, head_hash: hash });
  }
  if (events !== undefined && !(Number.isSafeInteger(events) && (events as number) >= 0)) return '"events" is not a count';
  if (sequenceHash !== undefined && typeof sequenceHash !== 'string') return '"sequence_hash" is not a string';
  return { streams: heads, ...(events !== undefined ? { events: events as number } : {}), ...(sequenceHash !== undefined ? { sequence_hash: sequenceHash } : {}) };
}

/** One way a log differs from a summary of it: about a stream, or about the whole log (stream null). */
export interface SummaryDifference {
  stream: string | null;
  problem: string;
}

/**
 * How `actual` differs from `expected`, each named: the event count (when `expected` has one), a stream
 * missing from either side, at another version, or ending in another hash; when nothing else differs,
 * the sequence hash (the order across streams, when `expected` has one). `expectedName` / `actualName` say whose each side is in the text.
 */
export function summaryDifferences(
  expected: Partial<LogSummary> & { streams: StreamHead[] },
  actual: LogSummary,
  names: { expected: string; actual: string },
): SummaryDifference[] {
  const differences: SummaryDifference[] = [];
  if (expected.events !== undefined && expected.events !== actual.events) {
    differences.push({ stream: null, problem: `${actual.events} events in ${names.actual}, ${expected.events} in ${names.expected}` });
  }
  const actualHeads = new Map(actual.streams.map((head) => [head.stream, head]));
  const short = (hash: string) => (hash.length > 12 ? `${hash.slice(0, 12)}…` : hash);
  for (const want of expected.streams) {
    const have = actualHeads.get(want.stream);
    actualHeads.delete(want.stream);
    if (!have) differences.push({ stream: want.stream, problem: `missing from ${names.actual} (${names.expected} has it at version ${want.version})` });
    else if (have.version !== want.version) differences.push({ stream: want.stream, problem: `version ${have.version} in ${names.actual}, ${want.version} in ${names.expected}` });
    else if (have.head_hash !== want.head_hash) {
      differences.push({ stream: want.stream, problem: `version ${want.version} has hash ${short(have.head_hash)} in ${names.actual}, ${short(want.head_hash)} in ${names.expected}` });
    }
  }
  for (const extra of actualHeads.values()) differences.push({ stream: extra.stream, problem: `not in ${names.expected} (${names.actual} has it at version ${extra.version})` });
  if (differences.length === 0 && expected.sequence_hash !== undefined && expected.sequence_hash !== actual.sequence_hash) {
    differences.push({ stream: null, problem: `the order of events across streams differs from ${names.expected} (sequence_hash ${short(actual.sequence_hash)}, ${names.expected} ${short(expected.sequence_hash)})` });
  }
  return differences;
}

/** Differences as one line: the first `shown` of them, then how many more. */
export function describeDifferences(differences: readonly SummaryDifference[], shown = 5): string {
  const text = differences.slice(0, shown).map(({ stream, problem }) => (stream === null ? problem : `${stream}: ${problem}`));
  const more = differences.length - shown;
  return `${text.join('; ')}${more > 0 ? `; and ${more} more` : ''}`;
}

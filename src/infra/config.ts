// Operator configuration, read once from the environment by the CLI and passed down from there.
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { proxyRule } from '../api/client-address.js';
import { DEFAULT_REBUILD_HEAP_BYTES } from './projector/rebuild-working-set.js';
import { DEFAULT_READ_CACHE_BYTES } from './read-store/sqlite-read-store.js';
import { DEFAULT_SNAPSHOT_EVERY, DEFAULT_STATE_CACHE_DOCUMENTS } from './stream-states/cached-stream-states.js';
import { MAX_SEARCH_WORK } from '../domain/search/search-limits.js';

export interface StorylineConfig {
  port: number;
  host: string;
  /** Directory of the embedded stores (event log, credentials, uploads). */
  dataDir: string;
  /** Public address used in `url` attributes and download links. */
  siteUrl: string;
  /** Scale-out adapters: used instead of the embedded ones when set. */
  kurrentUrl: string | null;
  mongoUrl: string | null;
  /** The embedded read store: `sqlite` (readmodels.sqlite beside the log) or `memory` (rebuilt at every start). */
  readStore: 'sqlite' | 'memory';
  /** Budget of the SQLite read store's cache of parsed documents, in bytes. */
  readCacheBytes: number;
  /** Documents the command handler's cached stream states may hold together. */
  stateCacheDocuments: number;
  /** Events a stream folds past its last state snapshot (states.sqlite) before the next is taken. */
  stateSnapshotEvery: number;
  /** Heap a projection rebuild may grow to before its working set moves documents out to the read store. */
  rebuildHeapBytes: number;
  /** How far the serving process's JS heap may grow past what its last full collection kept, in percent (0: V8's own). */
  heapGrowingPercent: number;
  /** Worker threads a fold of the read models runs in (`rebuild-projections`, a start on a missing file); 1: in the calling thread. */
  rebuildWorkers: number;
  mongoDbName: string;
  createdStatus: 200 | 201;
  maxBodyBytes: number;
  /** Largest uploaded file, in bytes (its multipart body may exceed it by MULTIPART_OVERHEAD_BYTES). */
  maxUploadBytes: number;
  responseCacheEntries: number;
  responseCacheBytes: number;
  activityWindowMonths: number | null;
  enterpriseActivityWindowMonths: number | null;
  demoEmail: string | null;
  demoPassword: string | null;
  deprecationWarning: string | null;
  /** SMTP server invitations are mailed through (`smtp://user:pass@host:587`, `smtps://...`); null: not mailed. */
  smtpUrl: string | null;
  /** The From of those mails. */
  mailFrom: string;
  /** Planned maintenance window announced on every response (ISO 8601 start and finish). */
  downtime: { start: string; finish: string } | null;
  /**
   * Reverse proxies (addresses or subnets) whose `X-Forwarded-For` names the client a password sign-in is
   * counted under; empty: every client is its socket's address.
   */
  trustedProxies: string[];
  /** Milliseconds SIGTERM waits for in-flight requests before closing the stores. */
  shutdownGraceMs: number;
  /** Milliseconds a client has to send a whole request (slow or stalled uploads are cut off). */
  requestTimeoutMs: number;
  /** Milliseconds a client has to send the request headers. */
  headersTimeoutMs: number;
  /** Folds of a project's past kept for `as_of_version` (least recently used dropped first). */
  timeTravelCacheEntries: number;
  /** Estimated memory of those folds together, the one running and the ones requests hold included. */
  timeTravelCacheBytes: number;
  /** Cold folds that may wait while one runs; one more is refused with 503 `server_under_load`. */
  timeTravelFoldQueue: number;
  /** A project's read models are snapshotted (snapshots.sqlite) every this many versions, for cold time travel. */
  timeTravelSnapshotEvery: number;
  /** Most work one search may do in the read store (ReadBudget units) before it is refused as too costly. */
  searchWork: number;
  /** Search worker threads over the embedded read models (each with its own caches). */
  searchWorkers: number;
  /** Live activity streams (GET .../activity/stream). */
  streams: {
    /** Open in all (beyond: 429). */
    maxStreams: number;
    /** Open per person, or per address for anonymous readers of public projects. */
    maxStreamsPerCaller: number;
    /** Between two keep-alive comments (and access checks) on each stream. */
    heartbeatMs: number;
    /** Unsent bytes a stream may hold before it is dropped as too slow (its client resumes with Last-Event-ID). */
    maxBufferedBytes: number;
    /** At most one fan-out to the streams per this period (new versions wait at most this long). */
    flushMs: number;
  };
  /** Activity webhook deliveries. */
  webhooks: {
    /** Receivers on loopback, private, link-local and unique-local addresses are allowed (same host, LAN). */
    allowPrivate: boolean;
    /** A delivery not answered within this fails. */
    timeoutMs: number;
    /** First retry after a failure; doubling per failure up to `retryMaxMs`. */
    retryMs: number;
    retryMaxMs: number;
    /** Failing this long pauses a webhook until it is updated. */
    giveUpMs: number;
    /** Deliveries in flight at once per receiving host. */
    hostConcurrency: number;
  };
}

/** Search worker threads when not configured (chosen from the search-cost bench: docs/benchmarks.md). */
export const DEFAULT_SEARCH_WORKERS = 1;
/** Folds kept for time travel when not configured (one per project, projection and version). */
export const DEFAULT_TIME_TRAVEL_CACHE_ENTRIES = 32;
/** Their estimated memory when not configured. */
export const DEFAULT_TIME_TRAVEL_CACHE_BYTES = 256 * 1024 * 1024;
/** Cold folds waiting behind the running one when not configured. */
export const DEFAULT_TIME_TRAVEL_FOLD_QUEUE = 8;
/** Versions between two snapshots of a project when not configured (chosen from measurements: docs/decisions.md). */
export const DEFAULT_TIME_TRAVEL_SNAPSHOT_EVERY = 5000;

/**
 * The serving process's heap grows to 1.5 times what its last full collection kept. Left to itself, V8
 * lets a heap under steady load grow to up to four times that, and memory it took is not given back
 * while the load lasts: the resident size of a busy server was mostly garbage awaiting collection.
 */
export const DEFAULT_HEAP_GROWING_PERCENT = 50;

type Env = Readonly<Record<string, string | undefined>>;

export class ConfigError extends Error {}

export function configFromEnv(env: Env = process.env, cwd = process.cwd()): StorylineConfig {
  const port = integer(env, 'PORT', 3000, 0, 65535);
  const host = env['HOST'] || '0.0.0.0';
  const siteUrl = (env['STORYLINE_SITE_URL'] || `http://localhost:${port}`).replace(/\/+$/, '');
  return {
    port,
    host,
    dataDir: dataDirectory(env['STORYLINE_DATA'], cwd),
    siteUrl,
    kurrentUrl: env['STORYLINE_KURRENT_URL'] || null,
    mongoUrl: env['STORYLINE_MONGO_URL'] || null,
    mongoDbName: env['STORYLINE_MONGO_DB'] || 'storyline',
    readStore: readStoreKind(env['STORYLINE_READ_STORE']),
    readCacheBytes: integer(env, 'STORYLINE_READ_CACHE_BYTES', DEFAULT_READ_CACHE_BYTES, 0, 64 * 1024 * 1024 * 1024),
    stateCacheDocuments: integer(env, 'STORYLINE_STATE_CACHE_DOCUMENTS', DEFAULT_STATE_CACHE_DOCUMENTS, 0, 1_000_000_000),
    stateSnapshotEvery: integer(env, 'STORYLINE_STATE_SNAPSHOT_EVERY', DEFAULT_SNAPSHOT_EVERY, 1, 1_000_000_000),
    rebuildHeapBytes: integer(env, 'STORYLINE_REBUILD_HEAP_BYTES', DEFAULT_REBUILD_HEAP_BYTES, 1, 1024 ** 4),
    heapGrowingPercent: integer(env, 'STORYLINE_HEAP_GROWING_PERCENT', DEFAULT_HEAP_GROWING_PERCENT, 0, 1000),
    rebuildWorkers: integer(env, 'STORYLINE_REBUILD_WORKERS', availableParallelism(), 1, 64),
    createdStatus: env['STORYLINE_CREATED_STATUS'] === '201' ? 201 : 200,
    maxBodyBytes: integer(env, 'STORYLINE_MAX_BODY_BYTES', 1024 * 1024, 1024, 1024 * 1024 * 1024),
    maxUploadBytes: integer(env, 'STORYLINE_MAX_UPLOAD_BYTES', 10 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    responseCacheEntries: integer(env, 'STORYLINE_RESPONSE_CACHE_ENTRIES', 2000, 0, 1_000_000),
    responseCacheBytes: integer(env, 'STORYLINE_RESPONSE_CACHE_BYTES', 16 * 1024 * 1024, 0, Number.MAX_SAFE_INTEGER),
    activityWindowMonths: months(env, 'STORYLINE_ACTIVITY_WINDOW_MONTHS', 6),
    enterpriseActivityWindowMonths: months(env, 'STORYLINE_ENTERPRISE_ACTIVITY_WINDOW_MONTHS', 25),
    demoEmail: env['STORYLINE_DEMO_EMAIL'] || null,
    demoPassword: env['STORYLINE_DEMO_PASSWORD'] || null,
    deprecationWarning: env['STORYLINE_DEPRECATION_WARNING'] || null,
    smtpUrl: smtpUrl(env['STORYLINE_SMTP_URL']),
    mailFrom: env['STORYLINE_MAIL_FROM'] || `Storyline <storyline@${siteHost(siteUrl)}>`,
    downtime: downtimeWindow(env),
    trustedProxies: proxyList(env['STORYLINE_TRUSTED_PROXIES']),
    shutdownGraceMs: integer(env, 'STORYLINE_SHUTDOWN_GRACE_MS', 10_000, 0, 600_000),
    requestTimeoutMs: integer(env, 'STORYLINE_REQUEST_TIMEOUT_MS', 60_000, 1_000, 3_600_000),
    headersTimeoutMs: integer(env, 'STORYLINE_HEADERS_TIMEOUT_MS', 20_000, 1_000, 3_600_000),
    timeTravelCacheEntries: integer(env, 'STORYLINE_TIME_TRAVEL_CACHE_ENTRIES', DEFAULT_TIME_TRAVEL_CACHE_ENTRIES, 1, 10_000),
    timeTravelCacheBytes: integer(env, 'STORYLINE_TIME_TRAVEL_CACHE_BYTES', DEFAULT_TIME_TRAVEL_CACHE_BYTES, 1, Number.MAX_SAFE_INTEGER),
    timeTravelFoldQueue: integer(env, 'STORYLINE_TIME_TRAVEL_FOLD_QUEUE', DEFAULT_TIME_TRAVEL_FOLD_QUEUE, 0, 10_000),
    timeTravelSnapshotEvery: integer(env, 'STORYLINE_TIME_TRAVEL_SNAPSHOT_EVERY', DEFAULT_TIME_TRAVEL_SNAPSHOT_EVERY, 1, 1_000_000),
    searchWork: integer(env, 'STORYLINE_SEARCH_WORK', MAX_SEARCH_WORK, 1, Number.MAX_SAFE_INTEGER),
    searchWorkers: integer(env, 'STORYLINE_SEARCH_WORKERS', DEFAULT_SEARCH_WORKERS, 1, 16),
    streams: {
      maxStreams: integer(env, 'STORYLINE_STREAMS_MAX', 2000, 0, 1_000_000),
      maxStreamsPerCaller: integer(env, 'STORYLINE_STREAMS_PER_PERSON', 10, 0, 1_000_000),
      heartbeatMs: integer(env, 'STORYLINE_STREAM_HEARTBEAT_MS', 15_000, 10, 3_600_000),
      maxBufferedBytes: integer(env, 'STORYLINE_STREAM_BUFFER_BYTES', 1024 * 1024, 1024, 1024 ** 3),
      flushMs: integer(env, 'STORYLINE_STREAM_FLUSH_MS', 100, 0, 10_000),
    },
    webhooks: {
      allowPrivate: flag(env, 'STORYLINE_WEBHOOK_ALLOW_PRIVATE'),
      timeoutMs: integer(env, 'STORYLINE_WEBHOOK_TIMEOUT_MS', 10_000, 100, 600_000),
      retryMs: integer(env, 'STORYLINE_WEBHOOK_RETRY_MS', 1000, 1, 3_600_000),
      retryMaxMs: integer(env, 'STORYLINE_WEBHOOK_RETRY_MAX_MS', 600_000, 1, 86_400_000),
      giveUpMs: integer(env, 'STORYLINE_WEBHOOK_GIVE_UP_MS', 86_400_000, 1, 30 * 86_400_000),
      hostConcurrency: integer(env, 'STORYLINE_WEBHOOK_HOST_CONCURRENCY', 64, 1, 1000),
    },
  };
}

function downtimeWindow(env: Env): { start: string; finish: string } | null {
  const start = env['STORYLINE_DOWNTIME_START'];
  const finish = env['STORYLINE_DOWNTIME_FINISH'];
  if (!start && !finish) return null;
  if (!start || !finish || Number.isNaN(Date.parse(start)) || Number.isNaN(Date.parse(finish))) {
    throw new ConfigError('STORYLINE_DOWNTIME_START and STORYLINE_DOWNTIME_FINISH must both be ISO 8601 datetimes');
  }
  return { start, finish };
}

/** An SMTP URL nodemailer can use, or null when unset; the message never repeats the URL (it may hold a password). */
function smtpUrl(raw: string | undefined): string | null {
  if (raw === undefined || raw === '') return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('STORYLINE_SMTP_URL must be a URL such as smtp://user:password@mail.example.com:587');
  }
  if ((url.protocol !== 'smtp:' && url.protocol !== 'smtps:') || url.hostname === '') {
    throw new ConfigError('STORYLINE_SMTP_URL must start with smtp:// or smtps:// and name a host');
  }
  return raw;
}

/** The host name of the site's address (the default sender's domain). */
function siteHost(siteUrl: string): string {
  try {
    return new URL(siteUrl).hostname || 'localhost';
  } catch {
    return 'localhost';
  }
}

function readStoreKind(raw: string | undefined): 'sqlite' | 'memory' {
  if (raw === undefined || raw === '' || raw === 'sqlite') return 'sqlite';
  if (raw === 'memory') return 'memory';
  throw new ConfigError(`STORYLINE_READ_STORE must be sqlite or memory, got "${raw}"`);
}

/** `:memory:` keeps every store in memory (tests); anything else is a directory. */
function dataDirectory(raw: string | undefined, cwd: string): string {
  return raw === ':memory:' ? raw : resolve(cwd, raw || './data');
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

/** Comma-separated IP addresses or subnets (`127.0.0.1, 10.0.0.0/8, ::1`); each must read as one. */
function proxyList(raw: string | undefined): string[] {
  const entries = (raw ?? '').split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  const bad = entries.find((entry) => proxyRule(entry) === null);
  if (bad !== undefined) throw new ConfigError(`STORYLINE_TRUSTED_PROXIES must list IP addresses or subnets (10.0.0.0/8), got "${bad}"`);
  return entries;
}

/** `1` or `true` turns a switch on; unset, empty, `0` or `false` leaves it off; anything else is refused. */
function flag(env: Env, name: string): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '' || raw === '0' || raw === 'false') return false;
  if (raw === '1' || raw === 'true') return true;
  throw new ConfigError(`${name} must be 1 or 0, got "${raw}"`);
}

/** A history window in months; `0` or `unlimited` means no limit. */
function months(env: Env, name: string, fallback: number): number | null {
  const raw = env[name];
  if (raw === 'unlimited') return null;
  const value = integer(env, name, fallback, 0, 12 * 1000);
  return value === 0 ? null : value;
}

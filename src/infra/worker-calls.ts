// Calls to a worker thread that answers each with one message: the parent side (WorkerCalls) and the
// worker side (answerCalls, parentLog). The worker starts with the first call; a worker that fails or
// exits fails every call in flight (their outcome is unknown: callers only make calls safe to repeat),
// and the next call starts a fresh one. Idle, the worker does not keep the process alive; a call in
// flight does. The worker's log lines go to the parent's log, its notices to `onNotice`. A call refused
// with a DomainError (a catalogued refusal, such as 503 `server_under_load`) is rejected in the parent with
// the same DomainError; any other failure with a plain Error carrying its message.
import { parentPort, Worker } from 'node:worker_threads';
import type { ErrorCode } from '../domain/error-codes.js';
import { DomainError, type DomainErrorDetails } from '../domain/errors.js';
import type { Log, LogLevel } from './log.js';

/** A DomainError as it crosses the thread boundary. */
interface CrossingDomainError {
  code: ErrorCode;
  details: DomainErrorDetails;
  retryAfterSeconds: number | undefined;
}

/** What the worker posts: the answer to a call (by its id), a line for the parent's log, or a notice for `onNotice`. */
export type WorkerCallMessage<Value> =
  | { id: number; ok: true; value: Value }
  | { id: number; ok: false; error: string; code?: string; domain?: CrossingDomainError }
  | { log: LogLevel; message: string; details?: Record<string, unknown> }
  | { notice: unknown };

/** A call as the worker gets it: the caller's call and the id its answer names. */
export type NumberedCall<Call> = Call & { id: number };

export interface WorkerCallsOptions {
  /** The worker's module. */
  url: URL;
  workerData: unknown;
  log: Log;
  /** What the calls are to, in messages ("the snapshot worker"). */
  name: string;
  /** Hears what the worker posts with `postNotice` (requests of its own to the parent). */
  onNotice?(notice: unknown): void;
}

/**
 * The young generation of a worker answering calls: V8's default for a thread (48 MiB) is reserved
 * whole once a burst of calls has grown it, and stays reserved while the server runs; a third of it
 * leaves each worker's folds their speed and the server's resident memory without that slack.
 */
const WORKER_YOUNG_GENERATION_MB = 16;

export class WorkerCalls<Call extends object, Value> {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, { resolve(value: Value): void; reject(error: Error): void }>();
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: WorkerCallsOptions) {}

  call(call: Call): Promise<Value> {
    if (this.closed) return Promise.reject(new Error(`${this.options.name} is closed`));
    return this.send(this.running(), call);
  }

  /** Rejects the calls in flight, sends `lastCall` (the worker closes its connections), then ends the worker. */
  async close(lastCall: Call): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const worker = this.worker;
    if (!worker) return;
    const closed = new Error(`${this.options.name} is closed`);
    for (const reply of this.pending.values()) reply.reject(closed);
    this.pending.clear();
    await this.send(worker, lastCall).catch(() => {});
    this.worker = null;
    await worker.terminate();
  }

  private send(worker: Worker, call: Call): Promise<Value> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.ref();
      worker.postMessage({ ...call, id });
    });
  }

  /** The worker, started when none runs (the first call, or the first after one failed). */
  private running(): Worker {
    if (this.worker) return this.worker;
    const { url, workerData, log, name } = this.options;
    const worker = new Worker(url, { workerData, resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB } });
    worker.on('message', (message: WorkerCallMessage<Value>) => {
      if ('log' in message) return log[message.log](message.message, message.details);
      if ('notice' in message) return this.options.onNotice?.(message.notice);
      const reply = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (this.pending.size === 0) worker.unref();
      if (message.ok) reply?.resolve(message.value);
      else reply?.reject(message.domain ? new DomainError(message.domain.code, message.domain.details, { retryAfterSeconds: message.domain.retryAfterSeconds }) : errorWithCode(message.error, message.code));
    });
    worker.on('error', (error) => this.stop(worker, new Error(`${name} failed: ${error.message}`)));
    worker.on('exit', (code) => this.stop(worker, new Error(`${name} exited (code ${code})`)));
    // After the listeners: adding a 'message' listener refs the worker's port again.
    worker.unref();
    this.worker = worker;
    return worker;
  }

  /** Fails every call in flight of `worker`; the next call starts a fresh one. */
  private stop(worker: Worker, reason: Error): void {
    if (this.worker !== worker) return;
    this.worker = null;
    if (!this.closed) this.options.log.warn(`${this.options.name} stopped: the next call starts a fresh one`, { error: reason.message });
    for (const reply of this.pending.values()) reply.reject(reason);
    this.pending.clear();
  }
}

/** In the worker: answers every call the parent posts with what `answer` resolves to, or its failure. */
export function answerCalls<Call extends object, Value>(answer: (call: NumberedCall<Call>) => Promise<Value>): void {
  const port = parentPort!;
  port.on('message', (call: NumberedCall<Call>) => {
    answer(call).then(
      (value) => port.postMessage({ id: call.id, ok: true, value } satisfies WorkerCallMessage<Value>),
      (error: unknown) => port.postMessage(failure(call.id, error) satisfies WorkerCallMessage<Value>),
    );
  });
}

function failure(id: number, error: unknown): WorkerCallMessage<never> {
  const message = error instanceof Error ? error.message : String(error);
  if (!(error instanceof DomainError)) {
    // The failure's code goes with it (SQLITE_FULL, SQLITE_CORRUPT...): callers tell storage failures by it.
    const code = (error as { code?: unknown } | null)?.code;
    return typeof code === 'string' ? { id, ok: false, error: message, code } : { id, ok: false, error: message };
  }
  return { id, ok: false, error: message, domain: { code: error.code, details: error.details, retryAfterSeconds: error.retryAfterSeconds } };
}

/** A worker's plain failure rebuilt in the parent, with the code it had (if any). */
function errorWithCode(message: string, code: string | undefined): Error {
  return Object.assign(new Error(message), code !== undefined ? { code } : {});
}

/** In the worker: posts `notice` to the parent's `onNotice`. */
export function postNotice(notice: unknown): void {
  parentPort!.postMessage({ notice } satisfies WorkerCallMessage<never>);
}

/** In the worker: a Log whose lines the parent writes to its own log. */
export function parentLog(): Log {
  const line = (level: LogLevel) => (message: string, details?: Record<string, unknown>) =>
    parentPort!.postMessage({ log: level, message, ...(details ? { details } : {}) } satisfies WorkerCallMessage<never>);
  return { debug: line('debug'), info: line('info'), warn: line('warn'), error: line('error') };
}

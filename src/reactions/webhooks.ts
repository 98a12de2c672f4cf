// Activity webhook deliveries: for every project version after a webhook's creation, one POST of the
// activity item GET /projects/{id}/activity shows for that version (api/activity-items.ts renders it,
// once for all the project's webhooks), in version order, at least once.
//
// Two parts:
// - the reaction the runner feeds (infra/reaction/reaction-runner.ts): it keeps the register of webhooks
//   from their create / update / delete events (in the delivery store, each row guarded by the position
//   of the last such event applied, so a replay changes nothing) and wakes the webhooks of a project
//   when the project's stream grows. It never waits for a delivery.
// - one delivery worker per webhook, with its checkpoint in the delivery store (`deliveredVersion`):
//   read the item after the checkpoint (the log is the queue: nothing per event is held for a webhook
//   that is failing or behind), send it, move the checkpoint on a 2xx. A failure (refused connection,
//   no answer within the timeout, a non-2xx answer, an address refused) is retried after 1 s doubling
//   to 10 min, later versions waiting behind it; failing for 24 h pauses the webhook (`failing`) until
//   an update of it resumes from where it stopped. A slow or dead receiver holds up its own webhook
//   only, and at most `hostConcurrency` deliveries run at once per receiving host.
// Checkpoints are written together every FLUSH_MS (a failure or a pause at once), so after a crash the
// versions delivered since the last write are delivered again: receivers drop duplicates by the
// `X-Storyline-Delivery: <webhook id>-<version>` header, the same for every attempt.
import { createHmac } from 'node:crypto';
import { projectIdOfStream, streams, type RecordedEvent } from '../domain/events.js';
import type { EventStore } from '../ports/event-store.js';
import type { Doc, ReadOnlyCollection } from '../ports/read-store.js';
import type { WebhookAnswer, WebhookDeliveryState, WebhookDeliveryStore, WebhookSecrets, WebhookSender } from '../ports/webhook-deliveries.js';
import { HostSlots } from './host-slots.js';
import { SleepTimer } from './sleep-timer.js';
import type { Reaction, ReactionFailure, ReactionStep } from './reaction.js';

/** The activity items of a project's versions (api/activity-items.ts). */
export interface WebhookActivityItems {
  after(projectId: number, afterVersion: number, limit: number, format: { millis: boolean }): Promise<ActivityItem[]>;
}

/** A version's activity item as JSON (null: the version has none). */
type ActivityItem = { version: number; json: string | null };

export interface WebhookSettings {
  /** First retry after this; each further failure doubles it, up to `retryMaxMs`. */
  retryMs: number;
  retryMaxMs: number;
  /** Failing this long pauses a webhook (`failing`) until it is updated. */
  giveUpMs: number;
  /** Deliveries in flight at once per receiving host (host and port). */
  hostConcurrency: number;
}

export interface WebhookLog {
  info(message: string, details?: Record<string, unknown>): void;
  warn(message: string, details?: Record<string, unknown>): void;
}

export interface WebhookDeps {
  items: WebhookActivityItems;
  /** The log, to start a register built from scratch at its head (see `resumeAfter`). */
  eventStore: Pick<EventStore, 'headPosition' | 'readStream'>;
  /** The webhooks read model (URL, version, secret ref as the latest event left them). */
  webhooks: ReadOnlyCollection;
  /** Resolves once the read models have applied a global position. */
  waitForPosition(position: number): Promise<void>;
  store: WebhookDeliveryStore;
  sender: WebhookSender;
  secrets: WebhookSecrets;
  settings: WebhookSettings;
  /** Sent as the User-Agent of every delivery. */
  userAgent: string;
  log: WebhookLog;
  clock?: () => number;
}

/** How often the workers' checkpoints are written (together, in one transaction). */
const FLUSH_MS = 100;
/** Items read ahead per look at the log (kept only while they are delivered one after the other). */
const READ_AHEAD = 16;
/** How long stop() waits for deliveries in flight; past it they are sent again at the next start. */
const STOP_GRACE_MS = 1000;

export type WebhookReaction = Reaction & {
  /** Each webhook's delivery state as it is now (null when the webhook has none yet). */
  deliveryState(webhookId: number): WebhookDeliveryState | null;
  /** Resolves once the webhook has delivered (or moved past) `version`, waiting for it to be registered (tests, benchmarks). */
  delivered(webhookId: number, version: number): Promise<void>;
};

export function webhooksReaction(deps: WebhookDeps): WebhookReaction {
  const clock = deps.clock ?? Date.now;
  const slots = new HostSlots(deps.settings.hostConcurrency);
  const workers = new Map<number, WebhookWorker>();
  const dirty = new Set<WebhookWorker>();
  let flushTimer: NodeJS.Timeout | null = null;
  let started: Promise<void> | null = null;
  let stopped = false;
  /**
   * Set when the register is built from scratch over an existing log (no checkpoint and no rows: a new
   * reactions.sqlite, a log restored by `storyline import`): webhooks created up to this position start
   * at their project's version as of it, so a new installation does not send a history the previous one
   * delivered. Null otherwise.
   */
  let adoptUntil: number | null = null;

  const failures = new StepFailures(clock);
  /** Reads in flight by project and version: the webhooks of a project, woken together, share one. */
  const reading = new Map<string, Promise<readonly ActivityItem[]>>();
  const shared: WorkerContext = {
    deps,
    clock,
    slots,
    failures,
    itemsAfter(projectId, afterVersion) {
      const key = `${projectId}:${afterVersion}`;
      let read = reading.get(key);
      if (!read) {
        read = deps.items.after(projectId, afterVersion, READ_AHEAD, { millis: false }).finally(() => reading.delete(key));
        reading.set(key, read);
      }
      return read;
    },
    changed(worker) {
      dirty.add(worker);
      flushTimer ??= setTimeout(() => void flush(), FLUSH_MS);
    },
    async saveNow(worker) {
      dirty.delete(worker);
      try {
        await deps.store.save([worker.state]);
        failures.succeeded('checkpoint');
      } catch (error) {
        // Written with the next flush instead, which retries until the store takes it.
        if (failures.failed('checkpoint', error)) deps.log.warn('webhook checkpoints cannot be written; trying again', { error: String(error) });
        shared.changed(worker);
      }
    },
    async finished(worker) {
      workers.delete(worker.state.webhookId);
      dirty.delete(worker);
      await deps.store.remove(worker.state.webhookId);
    },
  };

  async function flush(): Promise<void> {
    flushTimer = null;
    const states = [...dirty].map((worker) => worker.state);
    dirty.clear();
    if (states.length === 0) return;
    try {
      await deps.store.save(states);
      failures.succeeded('checkpoint');
    } catch (error) {
      if (failures.failed('checkpoint', error)) deps.log.warn('webhook checkpoints cannot be written; trying again', { error: String(error) });
      for (const worker of workers.values()) if (states.includes(worker.state)) shared.changed(worker);
    }
  }

  /** delivered() asked before the webhook was registered: handed to its worker when it is. */
  const awaited = new Map<number, Array<{ version: number; resolve(): void }>>();

  function startWorker(state: WebhookDeliveryState): void {
    const worker = new WebhookWorker(state, shared);
    workers.set(state.webhookId, worker);
    for (const waiter of awaited.get(state.webhookId) ?? []) void worker.reached(waiter.version).then(waiter.resolve);
    awaited.delete(state.webhookId);
    if (!stopped) worker.start();
  }

  async function register(event: RecordedEvent, projectId: number): Promise<void> {
    for (const change of event.data.changes) {
      if (change.kind !== 'webhook') continue;
      const worker = workers.get(change.id);
      if (worker && worker.state.registeredAt >= event.position) continue; // applied before this replay
      if (change.change_type === 'create' && !worker) {
        const from = adoptUntil !== null && event.position <= adoptUntil ? await versionAt(projectId, adoptUntil, event.version) : event.version;
        const state = newState(change.id, projectId, from, event.position);
        await deps.store.save([state]);
        startWorker(state);
      } else if (change.change_type === 'update' && worker) {
        await worker.resume(event.position);
      } else if (change.change_type === 'delete' && worker) {
        worker.stop();
        await shared.finished(worker);
      }
    }
  }

  /** The project's version as of a global position (read backwards from its head: the writes since are few). */
  async function versionAt(projectId: number, position: number, fallback: number): Promise<number> {
    const stream = streams.project(projectId);
    for (let before: number | undefined; ; ) {
      const page = await deps.eventStore.readStream(stream, { direction: 'backwards', limit: 100, ...(before !== undefined ? { from: before } : {}) });
      const found = page.find((event) => event.position <= position);
      if (found) return found.version;
      const last = page.at(-1);
      if (!last || last.version <= 1) return fallback;
      before = last.version - 1;
    }
  }

  /** Loads the register and starts a worker per webhook (once; the first batch waits for it). */
  const load = () =>
    (started ??= (async () => {
      for (const state of await deps.store.all()) startWorker(state);
    })());

  return {
    name: 'webhooks',
    start: load,
    async resumeAfter(checkpoint) {
      if (checkpoint === 0 && (await deps.store.all()).length === 0) {
        const head = await deps.eventStore.headPosition();
        adoptUntil = head > 0 ? head : null;
      }
      return checkpoint;
    },
    async stop() {
      stopped = true;
      if (flushTimer) clearTimeout(flushTimer);
      await Promise.all([...workers.values()].map((worker) => worker.stop()));
      await flush();
      deps.sender.close();
    },
    async handle(events) {
      await load();
      const woken = new Set<number>();
      for (const event of events) {
        const projectId = projectIdOfStream(event.stream);
        if (projectId === null) continue;
        if (event.type.startsWith('webhook_')) await register(event, projectId);
        if (event.type === 'project_delete') for (const worker of workers.values()) if (worker.state.projectId === projectId) worker.endsAt(event.version);
        woken.add(projectId);
      }
      for (const worker of workers.values()) if (woken.has(worker.state.projectId)) worker.wake();
    },
    ownFailure: () => failures.current(),
    deliveryState(webhookId) {
      const state = workers.get(webhookId)?.state;
      return state ? { ...state } : null;
    },
    delivered(webhookId, version) {
      const worker = workers.get(webhookId);
      if (worker) return worker.reached(version);
      return new Promise((resolve) => awaited.set(webhookId, [...(awaited.get(webhookId) ?? []), { version, resolve }]));
    },
  };
}

function newState(webhookId: number, projectId: number, createdAtVersion: number, position: number): WebhookDeliveryState {
  return {
    webhookId,
    projectId,
    deliveredVersion: createdAtVersion,
    registeredAt: position,
    failures: 0,
    failingSince: null,
    paused: false,
    lastAttemptAt: null,
    lastStatus: null,
    lastError: null,
  };
}

interface WorkerContext {
  deps: WebhookDeps;
  clock: () => number;
  slots: HostSlots;
  /** The workers' own storage failures, shown as the reaction's (/health). */
  failures: StepFailures;
  /** The next items of a project after a version (READ_AHEAD at most; shared by the webhooks reading the same). */
  itemsAfter(projectId: number, afterVersion: number): Promise<readonly ActivityItem[]>;
  /** The state moved on: written with the next flush. */
  changed(worker: WebhookWorker): void;
  /** Writes the state now (failures, pauses, register changes); a failed write is retried by the flushes. */
  saveNow(worker: WebhookWorker): Promise<void>;
  /** The webhook is done (its project was deleted): forget it. */
  finished(worker: WebhookWorker): Promise<void>;
}

class WebhookWorker {
  private stopped = false;
  private running: Promise<void> | null = null;
  private woken = false;
  private readonly sleeper = new SleepTimer();
  /** The version of its project's delete: after delivering it, the webhook is done. */
  private lastVersion: number | null = null;
  private waiters: Array<{ version: number; resolve(): void }> = [];

  constructor(
    readonly state: WebhookDeliveryState,
    private readonly context: WorkerContext,
  ) {}

  start(): void {
    this.running ??= this.run().catch((error: unknown) => {
      this.context.deps.log.warn('a webhook delivery worker ended', { webhook_id: this.state.webhookId, error: String(error) });
    });
  }

  /** New versions of the project may be there: an idle worker looks now (one backing off keeps its delay). */
  wake(): void {
    this.woken = true;
    this.sleeper.wakeIdle();
  }

  endsAt(version: number): void {
    this.lastVersion = version;
    this.wake();
  }

  /** An update of the webhook: failures forgotten, a paused webhook delivers again, a back-off ends now. */
  async resume(position: number): Promise<void> {
    Object.assign(this.state, { registeredAt: position, paused: false, failures: 0, failingSince: null });
    await this.context.saveNow(this);
    this.woken = true;
    this.sleeper.interrupt();
  }

  reached(version: number): Promise<void> {
    if (this.state.deliveredVersion >= version) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ version, resolve }));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.sleeper.interrupt();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.running, new Promise<void>((resolve) => (timer = setTimeout(resolve, STOP_GRACE_MS)))]);
    clearTimeout(timer);
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      if (this.state.paused) {
        this.woken = false; // new versions do not end a pause; resume() and stop() do
        await this.sleep(null);
        continue;
      }
      this.woken = false;
      if (this.ahead.length === 0) {
        const read = await this.readNext();
        if (read === null) continue; // read again after the pause readNext() took
        this.ahead = read;
      }
      if (this.stopped) return;
      const item = this.ahead.shift();
      if (item === undefined) {
        if (this.lastVersion !== null && this.state.deliveredVersion >= this.lastVersion) return this.context.finished(this);
        await this.sleep(null);
        continue;
      }
      if (item.json === null) {
        this.advance(item.version);
        continue;
      }
      const answer = await this.attempt(item.version, item.json);
      if (answer === null) continue; // tried again after the pause attempt() took
      if (this.stopped) return;
      if (answer.error === null) {
        Object.assign(this.state, { lastAttemptAt: this.context.clock(), lastStatus: answer.status, lastError: null });
        this.advance(item.version);
        continue;
      }
      this.ahead = []; // nothing is held for a failing webhook: the log is its queue
      await this.failed(answer);
      if (!this.state.paused) await this.sleep(this.backOff());
    }
  }

  /** The next items after the checkpoint (kept only while they are delivered one after the other). */
  private ahead: ActivityItem[] = [];
  /** The receiving host of the webhook's URL (parsed once per URL). */
  private receiver: { url: string; host: string } | null = null;
  /** The webhook as the read model held it when it was last registered (URL, secret ref), and its secret. */
  private known: { registeredAt: number; webhook: Doc | null; secret: { ref: string; value: string | null } | null } | null = null;

  /** The next items after the checkpoint; null after a failure to read them (retried after a pause). */
  private async readNext(): Promise<ActivityItem[] | null> {
    const { deps, failures } = this.context;
    try {
      const items = await this.context.itemsAfter(this.state.projectId, this.state.deliveredVersion);
      failures.succeeded('read');
      return [...items];
    } catch (error) {
      if (failures.failed('read', error)) deps.log.warn('webhooks cannot read their projects\' activity; trying again', { webhook_id: this.state.webhookId, error: String(error) });
      await this.sleep(this.context.deps.settings.retryMs);
      return null;
    }
  }

  /**
   * One attempt at one version; null when this server could not read what it needs (the webhook's
   * document, its secret): not the receiver's failure, so retried after a pause without counting
   * against the webhook, and nothing is held meanwhile.
   */
  private async attempt(version: number, body: string): Promise<WebhookAnswer | null> {
    const { deps, failures } = this.context;
    try {
      const answer = await this.deliver(version, body);
      failures.succeeded('handle');
      return answer;
    } catch (error) {
      if (failures.failed('handle', error)) deps.log.warn('webhooks cannot read their document or secret; trying again', { webhook_id: this.state.webhookId, error: String(error) });
      this.ahead = [];
      await this.sleep(this.context.deps.settings.retryMs);
      return null;
    }
  }

  /** One attempt at one version: the webhook as it is now (URL, secret), through its host's slots. */
  private async deliver(version: number, body: string): Promise<WebhookAnswer> {
    const { deps } = this.context;
    const webhook = await this.webhook();
    if (!webhook) return { status: null, error: 'the webhook is not in the read models' };
    const url = String(webhook['webhook_url']);
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      'User-Agent': deps.userAgent,
      'X-Storyline-Delivery': `${this.state.webhookId}-${version}`,
    };
    const ref = webhook['secret_ref'];
    if (typeof ref === 'string') {
      const secret = await this.secret(ref);
      // Never unsigned when a signature is expected: the secret was lost (an imported log) until set again.
      if (secret === null) return { status: null, error: 'the signing secret is not in this server\'s credentials (an imported log?): set it again with PUT' };
      headers['X-Storyline-Signature'] = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
    }
    if (this.receiver?.url !== url) this.receiver = { url, host: hostOf(url) };
    return this.context.slots.run(this.receiver.host, () => deps.sender.post({ url, body, headers }));
  }

  /** The webhook's document, read again only after a change of it was registered. */
  private async webhook(): Promise<Doc | null> {
    const registeredAt = this.state.registeredAt;
    if (this.known?.registeredAt === registeredAt && this.known.webhook) return this.known.webhook;
    await this.context.deps.waitForPosition(registeredAt);
    const webhook = await this.context.deps.webhooks.findOne({ id: this.state.webhookId });
    this.known = { registeredAt, webhook, secret: null };
    return webhook;
  }

  /** The signing secret of a ref (a new secret is a new ref); a missing one is looked for again each time. */
  private async secret(ref: string): Promise<string | null> {
    const known = this.known?.secret;
    if (known?.ref === ref && known.value !== null) return known.value;
    const value = await this.context.deps.secrets.secret(ref);
    if (this.known) this.known.secret = { ref, value };
    return value;
  }

  private advance(version: number): void {
    Object.assign(this.state, { deliveredVersion: version, failures: 0, failingSince: null });
    this.context.changed(this);
    const due = this.waiters.filter((waiter) => waiter.version <= version);
    if (due.length === 0) return;
    this.waiters = this.waiters.filter((waiter) => waiter.version > version);
    for (const waiter of due) waiter.resolve();
  }

  private async failed(answer: WebhookAnswer): Promise<void> {
    const now = this.context.clock();
    const { state } = this;
    state.failures++;
    state.failingSince ??= now;
    Object.assign(state, { lastAttemptAt: now, lastStatus: answer.status, lastError: answer.error });
    if (now - state.failingSince >= this.context.deps.settings.giveUpMs) {
      state.paused = true;
      this.context.deps.log.warn('webhook failing: deliveries paused until it is updated', {
        webhook_id: state.webhookId,
        project_id: state.projectId,
        version: state.deliveredVersion + 1,
        error: answer.error,
      });
    }
    await this.context.saveNow(this);
  }

  /** 1 s doubling per failure in a row, at most 10 min (as configured). */
  private backOff(): number {
    const { retryMs, retryMaxMs } = this.context.deps.settings;
    return Math.min(retryMaxMs, retryMs * 2 ** Math.min(this.state.failures - 1, 30));
  }

  /** Sleeps `ms` (null: until woken); a wake-up ends an idle sleep only, resume() and stop() any. */
  private sleep(ms: number | null): Promise<void> {
    if (this.stopped || (ms === null && this.woken)) return Promise.resolve();
    return this.sleeper.sleep(ms);
  }
}

/** The receiving host a delivery counts against (host and port, as the URL names them). */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/**
 * The delivery workers' own storage failures (reading the activity of the log, the webhook's document or
 * secret, writing checkpoints), by step: each is retried; a step fails from its first failure until one
 * of its attempts succeeds. The earliest failing step is the reaction's failure in the runner's status.
 */
class StepFailures {
  private readonly failing = new Map<ReactionStep, ReactionFailure>();

  constructor(private readonly clock: () => number) {}

  /** Records a failed attempt; true when it is the first of a run (worth logging once). */
  failed(step: ReactionStep, error: unknown): boolean {
    const known = this.failing.get(step);
    this.failing.set(step, { step, error: String(error), since: known?.since ?? this.clock(), attempts: (known?.attempts ?? 0) + 1 });
    return known === undefined;
  }

  succeeded(step: ReactionStep): void {
    this.failing.delete(step);
  }

  current(): ReactionFailure | null {
    let first: ReactionFailure | null = null;
    for (const failure of this.failing.values()) if (!first || failure.since < first.since) first = failure;
    return first && { ...first };
  }
}

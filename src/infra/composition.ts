// The composition root: the one place that chooses adapters and wires every piece together.
// Embedded default: SQLite event log, read models (readmodels.sqlite) and credentials under the data
// directory; `dataDir: ':memory:'` or STORYLINE_READ_STORE=memory keeps the read models in memory.
// Scale-out: KurrentDB and MongoDB when their URLs are set.
import { join } from 'node:path';
import type { Express } from 'express';
import { createApp } from '../api/app.js';
import { operationsRoutes, type ProjectionCheckpoint } from '../api/operations.js';
import { boardRoutes } from '../api/board-pages.js';
import { loadBoardAssets } from './board-assets.js';
import type { ReferenceSection } from '../api/openapi/document.js';
import { loadDocsAssets } from '../api/openapi/docs-page.js';
import { referenceRoutes } from '../api/openapi/reference-routes.js';
import { resourceTypeRegistry } from '../api/resource-type.js';
import type { RouteDefinition } from '../api/route-table.js';
import { resourceModules } from '../api/resources/index.js';
import { epicUrl, invitationUrl, storyUrl } from '../api/resources/web-addresses.js';
import { activityFeeds } from '../queries/activity-feeds.js';
import { ActivityItems } from '../api/activity-items.js';
import { LiveActivity } from '../api/live-activity.js';
import { activityType } from '../api/resources/activity.js';
import { Serializer } from '../api/serializer.js';
import { peopleAsSeen } from '../queries/email-visibility.js';
import { projectAccessResolver, projectVersionReader } from '../api/resources/project-access.js';
import type { ResourceDeps, ResourceModuleFactory } from '../api/resources/resource-module.js';
import { credentialAuthenticator } from './credentials/credential-authenticator.js';
import { CommandHandler } from '../commands/command-handler.js';
import { AccountCommands } from '../commands/accounts.js';
import { MembershipCommands } from '../commands/memberships.js';
import { InvitationCommands } from '../commands/invitations.js';
import { noMailer } from '../ports/mailer.js';
import { smtpMailer } from './mail/smtp-mailer.js';
import { PeopleCommands } from '../commands/people.js';
import { ProjectCommands } from '../commands/projects.js';
import { ResourceWriter } from '../commands/resource-writer.js';
import { projections, rebuildCosts } from '../projections/registry.js';
import { typedReadModels } from '../projections/documents.js';
import type { Reaction } from '../reactions/reaction.js';
import { reactionFactories } from '../reactions/registry.js';
import { FILE_THUMBNAILS, thumbnailsReaction } from '../reactions/thumbnails.js';
import { sharpRenditions } from './images/sharp-renditions.js';
import { NOTIFICATIONS } from '../reactions/notifications.js';
import { NotificationQueries } from '../queries/notifications.js';
import { ReactionRunner, type BackOff } from './reaction/reaction-runner.js';
import { startIntegrityCheck, type RunningIntegrityCheck } from './event-store/integrity-check.js';
import { StorageHealth, guardedStore } from './storage-health.js';
import { openSqliteReactionCheckpoints } from './reaction/sqlite-reaction-checkpoints.js';
import { openSqliteWebhookDeliveries } from './reaction/sqlite-webhook-deliveries.js';
import { webhooksReaction, type WebhookReaction } from '../reactions/webhooks.js';
import { HttpWebhookSender } from './webhooks/http-webhook-sender.js';
import { WebhookAddresses } from './webhooks/webhook-addresses.js';
import type { StorylineConfig } from './config.js';
import { AsOfReadScope } from '../queries/time-travel.js';
import { FoldingProjectHistory, type FoldUsage } from './time-travel/project-history.js';
import { WorkerProjectHistory } from './time-travel/worker-project-history.js';
import { inThreadProjectSnapshots, WorkerProjectSnapshots, type PlacedProjectSnapshots } from './time-travel/snapshot-placement.js';
import { openSqliteReadModelSnapshotStore } from './time-travel/read-model-snapshot-store.js';
import { projectSnapshotsReaction } from '../reactions/project-snapshots.js';
import { blobFileUploads } from './blob-store/file-uploads.js';
import { openBlobStore } from './blob-store/open-blob-store.js';
import { createMemoryProjectViewStore } from './project-views/memory-project-view-store.js';
import { openSqliteProjectViewStore } from './project-views/sqlite-project-view-store.js';
import { ThrottledViewRecorder } from './project-views/throttled-view-recorder.js';

/** What a multipart body may carry beyond its file (boundaries, part headers, a long file name). */
const MULTIPART_OVERHEAD_BYTES = 64 * 1024;
import { openDataDirectory, SNAPSHOTS_FILE, STATES_FILE } from './data-directory.js';
import { openSqliteDecisionStateSnapshots } from './decision-state-snapshots/sqlite-decision-state-snapshots.js';
import { WorkerSnapshotBuilder } from './decision-state-snapshots/worker-snapshot-builder.js';
import { CachedStreamStates } from './stream-states/cached-stream-states.js';
import { PersonSecrets } from './credentials/person-secrets.js';
import type { LoginThrottleOptions } from '../api/login-throttle.js';
import type { CredentialStore } from '../ports/credentials.js';
import { SqliteCredentialStore } from './credentials/sqlite-credential-store.js';
import type { EventStore } from '../ports/event-store.js';
import { openSqliteEventStore } from './event-store/sqlite-event-store.js';
import { IdAllocator } from './id-allocator.js';
import { silentLog, type Log } from './log.js';
import { packageVersion } from './package-version.js';
import { CHECKPOINTS, ProjectorRunner, type CatchUpReport } from './projector/projector-runner.js';
import { sqliteParallelFold } from './projector/parallel-fold.js';
import { createMemoryReadStore } from './read-store/memory-read-store.js';
import { openSqliteReadStore } from './read-store/sqlite-read-store.js';
import { WorkerStorySearches } from './search/worker-story-searches.js';
import { searchesOver } from '../queries/search/search-project.js';
import { compileFilter } from './read-store/memory-filter.js';
import type { ReadStore } from '../ports/read-store.js';

export interface Storyline {
  app: Express;
  /** Every route the app serves (tests walk them). */
  routes: readonly RouteDefinition[];
  config: StorylineConfig;
  eventStore: EventStore;
  readStore: ReadStore;
  runner: ProjectorRunner;
  commands: CommandHandler;
  /** Fresh resource ids (benchmarks seed events with them). */
  ids: IdAllocator;
  deps: ResourceDeps;
  /**
   * The reactions behind the log (writes never wait for them). Not started here: the server starts
   * them (`serve`); one-shot CLI commands opening the same data directory do not run them.
   */
  reactions: ReactionRunner;
  /** The webhook deliveries (one of the reactions): each webhook's delivery state (tests, benchmarks). */
  webhooks: WebhookReaction;
  /** Where the project-snapshots reaction's snapshots are taken (tests: off the serving thread for a log in a file). */
  snapshots: PlacedProjectSnapshots;
  /** What the folds of projects' past (`as_of_version`) hold now, in the fold worker for a log in a file (tests, benchmarks). */
  pastFolds(): Promise<FoldUsage>;
  /** What catching up the read models at start-up read and how long it took. */
  startup: CatchUpReport;
  /**
   * Starts building, in a worker, the stream-state snapshots that long streams lack (the embedded log
   * only; nothing elsewhere); resolves to how many were stored, or 0 when the build stopped (a close).
   * Not started here: the server starts it (`serve`), as the reactions.
   */
  buildStateSnapshots(): Promise<number>;
  /** Ends every live activity stream cleanly and refuses new ones (the first step of a shutdown). */
  endStreams(): void;
  /**
   * Starts the embedded log's integrity check (SQLite quick_check, off the serving thread); resolves
   * once it has ended, its result logged and in /health. Nothing for KurrentDB or a log in memory. Not
   * started here: the server starts it once it listens (`serve`).
   */
  checkLogIntegrity(): Promise<void>;
  /** Damaged data files met, and the log's integrity check (what /health says of them). */
  storageHealth: StorageHealth;
  /** Adds a person who signs in with a password (operator CLI, demo). */
  addPerson(input: { email: string; name: string; password: string; initials?: string; username?: string }): Promise<{ id: number; api_token: string }>;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** Reactions run beside the built-in ones (tests). */
  reactions?: readonly Reaction[];
  /** Clock for commands and requests (tests). */
  clock?: () => number;
  /** Resource modules served beside the built-in ones (extensions; tests probing access levels). */
  extraModules?: readonly ResourceModuleFactory[];
  /** Brake on password sign-ins (tests lower its thresholds); DEFAULT_LOGIN_THROTTLE otherwise. */
  loginThrottle?: LoginThrottleOptions;
  /** How the reactions back off a failing step (tests shorten it); the runner's default otherwise. */
  reactionBackOff?: BackOff;
  /** Aborts the read models' catch-up at start (a stop signal while starting); openStoryline then rejects with its reason. */
  signal?: AbortSignal;
  /**
   * Rebuilds in the offline shape (`storyline rebuild-projections`, nothing served meanwhile): folded in
   * memory, several times faster, with pauses of seconds. A serving process rebuilds batch by batch.
   */
  offlineRebuilds?: boolean;
}

/** `dataDir: ':memory:'` keeps everything in memory (tests). */
export async function openStoryline(config: StorylineConfig, log: Log = silentLog, options: OpenOptions = {}): Promise<Storyline> {
  const clock = options.clock ?? Date.now;
  const inMemory = config.dataDir === ':memory:';
  if (!inMemory) {
    const identity = openDataDirectory(config.dataDir, { embeddedEventLog: !config.kurrentUrl });
    if (identity === 'upgraded') log.info('wrote the install id into events.sqlite and credentials.sqlite (upgrade)', { data: config.dataDir });
  }
  const dataFile = (name: string) => (inMemory ? ':memory:' : join(config.dataDir, name));

  // A damaged file or failing disk met by a read or write of the log or the read models answers 503 and
  // is recorded (logged once, in /health), naming the file.
  const storageHealth = new StorageHealth(log);
  const embeddedLog = !config.kurrentUrl;
  const openedEventStore = await openEventStore(config, dataFile('events.sqlite'), log);
  const eventStore = embeddedLog ? guardedStore(openedEventStore, dataFile('events.sqlite'), storageHealth) : openedEventStore;
  const openedReadStore = await openReadStore(config, inMemory ? null : dataFile('readmodels.sqlite'), log);
  const readStoreOnFile = !inMemory && !config.mongoUrl && config.readStore === 'sqlite';
  const readStore = readStoreOnFile ? guardedStore(openedReadStore, dataFile('readmodels.sqlite'), storageHealth, ['collection']) : openedReadStore;
  const credentials: CredentialStore = new SqliteCredentialStore({ path: dataFile('credentials.sqlite') });
  // Views (membership `last_viewed_at`) are person-scoped reads kept beside the log, never in it.
  const projectViews = inMemory ? createMemoryProjectViewStore() : openSqliteProjectViewStore(dataFile('views.sqlite'));
  const blobs = await openBlobStore(config);

  const foldFromScratch = !inMemory && config.readStore !== 'memory';
  // On the embedded files a fold runs on every core (parallel-fold.ts): `rebuild-projections`, and a start
  // that builds the read models from position 0 (before the server listens, while nothing else writes).
  const embeddedFiles = !inMemory && !config.kurrentUrl && !config.mongoUrl && config.readStore === 'sqlite';
  const parallelFold =
    embeddedFiles && config.rebuildWorkers > 1
      ? sqliteParallelFold({ eventsPath: dataFile('events.sqlite'), readModelsPath: dataFile('readmodels.sqlite') }, config.rebuildWorkers, rebuildCosts)
      : undefined;
  const runner = new ProjectorRunner({
    eventStore,
    readStore,
    projections,
    log,
    rebuildHeapBytes: config.rebuildHeapBytes,
    foldFromScratch,
    foldRebuilds: options.offlineRebuilds === true,
    parallelFold,
  });
  const startup = await runner.start(options.signal).catch(async (error: unknown) => {
    for (const store of [eventStore, readStore, credentials, projectViews, blobs]) await store.close();
    throw error;
  });

  const ids = new IdAllocator(eventStore);
  // The states commands decide on are snapshotted beside the embedded log (derived, deletable); KurrentDB
  // and an in-memory log fold a stream's whole history on its first command.
  // A stream not cached and far past its snapshot is loaded once a worker has stored one at its head
  // (decision-state-snapshots/worker-snapshot-builder.ts).
  const decisionStateSnapshots = inMemory || config.kurrentUrl ? undefined : openSqliteDecisionStateSnapshots(dataFile(STATES_FILE), log);
  const snapshotBuilder = decisionStateSnapshots
    ? new WorkerSnapshotBuilder({ eventsPath: dataFile('events.sqlite'), statesPath: dataFile(STATES_FILE), distance: config.stateSnapshotEvery }, log)
    : undefined;
  const states = new CachedStreamStates({
    eventStore,
    cacheDocuments: config.stateCacheDocuments,
    snapshots: decisionStateSnapshots,
    snapshotBuilder,
    snapshotEvery: config.stateSnapshotEvery,
    // At a close, builds asked for are refused (the states adapter stores those snapshots itself): nothing to warn of.
    onSnapshotError: (error, stream) => {
      if (!closing) log.warn('a stream state snapshot could not be read or stored', { stream, error: String(error) });
    },
  });
  const commands = new CommandHandler({ eventStore, states, ids, projections: runner });
  const secrets = new PersonSecrets(credentials);
  // Every read of a read model goes through the time-travel scope: live, except inside a GET with
  // `as_of_version`, whose project-scoped reads come from the project's fold at that version.
  const asOfScope = new AsOfReadScope();
  const read = typedReadModels(asOfScope.reads((name) => runner.collection(name)));
  // Searches of the live read models: off the serving thread where they are a file (search/worker-story-searches.ts).
  const searches = readStoreOnFile
    ? new WorkerStorySearches({
      readModelsPath: dataFile('readmodels.sqlite'),
      cacheBytes: config.readCacheBytes,
      workers: config.searchWorkers,
      liveNames: () => runner.liveCollectionNames(),
      written: runner,
      travelling: () => asOfScope.isTravelling(),
      here: searchesOver(read, { test: compileFilter }),
      log,
    })
    : searchesOver(read, { test: compileFilter });
  // Persisted snapshots (derived, deletable) that cold folds start from; the project-snapshots reaction
  // takes them with a history of its own (so it never evicts the folds requests use), in a worker thread
  // when the log is a file (time-travel/snapshot-placement.ts).
  const snapshots = inMemory || config.kurrentUrl
    ? inThreadProjectSnapshots({ eventStore, store: openSqliteReadModelSnapshotStore(dataFile(SNAPSHOTS_FILE), log), cacheBytes: config.timeTravelCacheBytes })
    : new WorkerProjectSnapshots({ eventsPath: dataFile('events.sqlite'), snapshotsPath: dataFile(SNAPSHOTS_FILE), cacheBytes: config.timeTravelCacheBytes, log });
  // Requests' folds of the past: in a worker thread of their own for a log in a file
  // (time-travel/worker-project-history.ts), else here, a page at a time with turns between pages.
  const folds = {
    cacheEntries: config.timeTravelCacheEntries,
    cacheBytes: config.timeTravelCacheBytes,
    foldQueue: config.timeTravelFoldQueue,
  };
  const history = inMemory || config.kurrentUrl
    ? new FoldingProjectHistory({ eventStore, projections, newReadStore: createMemoryReadStore, snapshots: snapshots.source, log, ...folds })
    : new WorkerProjectHistory({
      eventStore,
      eventsPath: dataFile('events.sqlite'),
      snapshotsPath: dataFile(SNAPSHOTS_FILE),
      discard: (projectId, projection, snapshot) => snapshots.source.discard(projectId, projection, snapshot),
      log,
      ...folds,
    });
  const activity = activityFeeds({
    read,
    readModelChanges: runner,
    eventStore,
    settings: config,
    storyUrl: (id) => storyUrl(config.siteUrl, id),
    epicUrl: (id) => epicUrl(config.siteUrl, id),
  });
  // The activity items the live streams (and webhooks) send: rendered by the activity type alone.
  const activityItems = new ActivityItems({
    feeds: activity,
    projects: runner.collection('projects'),
    serializer: new Serializer(resourceTypeRegistry([activityType])),
    readModelChanges: runner,
    waitForPosition: (position) => runner.waitFor(position),
    clock,
  });
  const liveActivity = new LiveActivity({ applied: runner, items: activityItems, log }, config.streams);
  // Webhook deliveries: a reaction behind the log, one worker per webhook with its checkpoint beside the
  // reactions' (reactions.sqlite), sending through the address policy at every delivery.
  const webhookAddresses = new WebhookAddresses(config.webhooks.allowPrivate);
  const webhookDeliveries = openSqliteWebhookDeliveries(dataFile('reactions.sqlite'));
  const webhooks = webhooksReaction({
    items: activityItems,
    eventStore,
    webhooks: runner.collection('webhooks'),
    waitForPosition: (position) => runner.waitFor(position),
    store: webhookDeliveries,
    sender: new HttpWebhookSender(webhookAddresses, config.webhooks.timeoutMs, config.webhooks.hostConcurrency),
    secrets: { secret: (ref) => credentials.webhookSecret(ref) },
    settings: config.webhooks,
    userAgent: `Storyline/${packageVersion()} (activity webhook)`,
    log,
    clock,
  });
  const writer = new ResourceWriter({ commands, read });
  /** Moves when the thumbnails reaction made renditions: cached answers showing files change without a version. */
  let thumbnailsMade = 0;
  const people = new PeopleCommands({ writer, ids, people: read('people'), secrets });
  const accounts = new AccountCommands({
    writer,
    ids,
    accounts: read('accounts'),
    accountMemberships: read('account_memberships'),
    peopleRead: read('people'),
    people,
    projects: read('projects'),
    projectMemberships: read('project_memberships'),
  });
  const projects = new ProjectCommands({
    writer,
    ids,
    projects: read('projects'),
    people: read('people'),
    accountMemberships: read('account_memberships'),
    accounts,
  });
  const memberships = new MembershipCommands({ writer, memberships: read('project_memberships'), peopleRead: read('people'), people });
  const invitations = new InvitationCommands({
    secrets,
    people,
    peopleRead: read('people'),
    projects: read('projects'),
    memberships: read('project_memberships'),
    mailer: config.smtpUrl ? smtpMailer({ url: config.smtpUrl, from: config.mailFrom }, log) : noMailer,
    invitationUrl: (secret) => invitationUrl(config.siteUrl, secret),
  });
  const deps: ResourceDeps = {
    read,
    waitForPosition: (position) => runner.waitFor(position),
    readModelChanges: runner,
    commands,
    writer,
    people,
    projects,
    accounts,
    memberships,
    invitations,
    secrets,
    queries: {
      notifications: new NotificationQueries(readStore.collection(NOTIFICATIONS)),
      fileThumbnails: readStore.collection(FILE_THUMBNAILS),
      people: peopleAsSeen({ people: read('people'), memberships: read('project_memberships'), accountMemberships: read('account_memberships') }),
      activity,
      searches,
    },
    uploads: blobFileUploads(blobs, { maxFileBytes: config.maxUploadBytes }),
    projectViews,
    liveActivity,
    webhooks: {
      async addressProblem(url) {
        const checked = await webhookAddresses.resolve(new URL(url).hostname);
        return checked.ok ? null : checked.problem;
      },
      putSecret: (ref, secret) => credentials.putWebhookSecret(ref, secret),
      deleteSecret: (ref) => credentials.deleteWebhookSecret(ref),
      deliveryState: (webhookId) => webhooks.deliveryState(webhookId),
    },
    settings: {
      siteUrl: config.siteUrl,
      activityWindowMonths: config.activityWindowMonths,
      enterpriseActivityWindowMonths: config.enterpriseActivityWindowMonths,
      searchWork: config.searchWork,
    },
  };

  const modules = [...resourceModules, ...(options.extraModules ?? [])].map((factory) => factory(deps));
  const board = loadBoardAssets();
  const checkpoints = openSqliteReactionCheckpoints(dataFile('reactions.sqlite'));
  const reactions = new ReactionRunner({
    eventStore,
    checkpoints,
    reactions: [
      ...reactionFactories.map((factory) => factory({ read, own: readStore })),
      projectSnapshotsReaction(snapshots, config.timeTravelSnapshotEvery),
      thumbnailsReaction({
        own: readStore,
        blobs,
        renditions: sharpRenditions(),
        maxSourceBytes: config.maxUploadBytes,
        changed: () => void thumbnailsMade++,
      }),
      webhooks,
      ...(options.reactions ?? []),
    ],
    log,
    ...(options.reactionBackOff ? { backOff: options.reactionBackOff } : {}),
  });

  const operations = operationsRoutes({
    serverVersion: packageVersion(),
    headPosition: () => eventStore.headPosition(),
    checkpoints: () => storedCheckpoints(readStore),
    board,
    reactions: () => reactions.status(),
    storage: () => ({ faults: storageHealth.faults(), integrityCheck: storageHealth.integrityCheck() }),
  });
  const types = resourceTypeRegistry(modules.flatMap((module) => module.types));
  const sections: ReferenceSection[] = [
    ...modules.map((module) => ({ ...module.reference, routes: module.routes })),
    { tag: 'Operations', description: "The server's state and where things are, outside the API prefixes.", routes: operations },
  ];
  const reference = referenceRoutes({
    source: () => ({ sections, types, createdStatus: config.createdStatus, timeTravel: true, serverVersion: packageVersion() }),
    assets: loadDocsAssets,
  });
  sections.push({ tag: 'Reference', description: 'This reference, as an OpenAPI document.', routes: reference });
  // The board's pages are unlisted (pages for people, not API calls): served, left out of the reference.
  const routes = [...sections.flatMap((section) => section.routes), ...(board ? boardRoutes(board) : [])];
  const app = createApp({
    routes,
    resources: types,
    auth: credentialAuthenticator({ people: read('people'), secrets, changes: runner }),
    projects: projectAccessResolver(deps),
    projectVersion: projectVersionReader(deps),
    config: {
      siteUrl: config.siteUrl,
      createdStatus: config.createdStatus,
      maxBodyBytes: config.maxBodyBytes,
      maxRawBodyBytes: config.maxUploadBytes + MULTIPART_OVERHEAD_BYTES,
      responseCacheEntries: config.responseCacheEntries,
      responseCacheBytes: config.responseCacheBytes,
      ...(config.deprecationWarning ? { deprecationWarning: config.deprecationWarning } : {}),
      ...(config.downtime ? { downtime: config.downtime } : {}),
      trustedProxies: config.trustedProxies,
    },
    log,
    clock,
    ...(options.loginThrottle ? { loginThrottle: options.loginThrottle } : {}),
    timeTravel: { scope: asOfScope, history },
    projectViews: new ThrottledViewRecorder(projectViews, log),
    unversionedStamp: () => thumbnailsMade,
    storageFailure: (thrown) => storageHealth.failure(thrown, null),
  });

  let closing: Promise<void> | null = null;
  let integrityCheck: RunningIntegrityCheck | null = null;
  return {
    app,
    routes,
    config,
    eventStore,
    readStore,
    runner,
    commands,
    ids,
    deps,
    reactions,
    webhooks,
    snapshots,
    startup,
    storageHealth,
    async checkLogIntegrity() {
      if (inMemory || !embeddedLog || integrityCheck || closing) return;
      integrityCheck = startIntegrityCheck(dataFile('events.sqlite'), storageHealth);
      await integrityCheck.done;
    },
    async buildStateSnapshots() {
      if (!snapshotBuilder) return 0;
      try {
        const stored = await snapshotBuilder.sweep();
        if (stored > 0) log.info('stream state snapshots built in the background', { stored });
        return stored;
      } catch (error) {
        if (!closing) log.warn('the background build of stream state snapshots stopped', { error: String(error) });
        return 0;
      }
    },
    async pastFolds() {
      return history.usage();
    },
    endStreams() {
      liveActivity.close();
    },
    async addPerson(input) {
      const { person, apiToken } = await people.addPerson(input, { commandId: crypto.randomUUID(), actorId: null, now: clock() });
      return { id: person.id, api_token: apiToken };
    },
    close() {
      closing ??= (async () => {
        liveActivity.close();
        integrityCheck?.stop();
        await commands.settled();
        await reactions.stop();
        await runner.stop();
        await history.close();
        if (searches instanceof WorkerStorySearches) await searches.close();
        await snapshots.close();
        await checkpoints.close();
        await webhookDeliveries.close();
        await snapshotBuilder?.close();
        await decisionStateSnapshots?.close();
        await eventStore.close();
        await readStore.close();
        await credentials.close();
        await projectViews.close();
        await blobs.close();
      })();
      return closing;
    },
  };
}

/** Each projection's checkpoint as the projector runner stored it. */
async function storedCheckpoints(readStore: ReadStore): Promise<ProjectionCheckpoint[]> {
  const docs = await readStore.collection(CHECKPOINTS).find({});
  return docs.map((doc) => ({ name: String(doc['name']), version: Number(doc['version']), position: Number(doc['position']) }));
}

/** The event log alone, as the configuration chooses it (operator commands that need no read models). */
export async function openConfiguredEventStore(config: StorylineConfig, log: Log = silentLog): Promise<EventStore> {
  if (config.dataDir === ':memory:') return openEventStore(config, ':memory:', log);
  openDataDirectory(config.dataDir, { embeddedEventLog: !config.kurrentUrl });
  return openEventStore(config, join(config.dataDir, 'events.sqlite'), log);
}

async function openEventStore(config: StorylineConfig, sqlitePath: string, log: Log): Promise<EventStore> {
  if (config.kurrentUrl) {
    const { openKurrentEventStore } = await import('./event-store/kurrent-event-store.js');
    return openKurrentEventStore({ url: config.kurrentUrl });
  }
  const store = await openSqliteEventStore({ path: sqlitePath });
  if (store.chainedOnOpen > 0) log.info('chained the events of a log written before hashes', { events: store.chainedOnOpen });
  return store;
}

/** MongoDB when configured; else SQLite at `sqlitePath` (null: a data directory in memory) or memory. */
async function openReadStore(config: StorylineConfig, sqlitePath: string | null, log: Log): Promise<ReadStore> {
  if (config.mongoUrl) {
    const { openMongoReadStore } = await import('./read-store/mongo-read-store.js');
    return openMongoReadStore({ url: config.mongoUrl, dbName: config.mongoDbName });
  }
  if (config.readStore === 'memory' || sqlitePath === null) return createMemoryReadStore();
  const store = openSqliteReadStore({ path: sqlitePath, cacheBytes: config.readCacheBytes });
  if (store.opened === 'created') log.info('read models file created; building it from the log', { path: sqlitePath });
  return store;
}

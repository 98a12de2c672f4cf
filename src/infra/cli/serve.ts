// `storyline serve`: the HTTP server on the configured stores, until SIGTERM / SIGINT. Start-up order:
// the data-directory lock (one server per directory), the stores, the port, and only then the demo
// seed, so a start that cannot listen leaves the data directory as it found it. Once it listens, the
// reactions, the state-snapshot build and the log's integrity check start in the background.
import { accessSync, constants } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { OperatorError } from '../operator-error.js';
import { parseCommandArgs, type CliCommand } from './command.js';

export const serveCommand: CliCommand = {
  words: ['serve'],
  usage: 'serve',
  summary: 'serve HTTP on PORT (default 3000), data under STORYLINE_DATA or --data DIR (default ./data)',
  createsData: true,
  async run(args, { config, log, out }) {
    parseCommandArgs({ args, options: {} });
    const { openStoryline } = await import('../composition.js');
    const { listen } = await import('../http-server.js');
    const { seedDemoIfEmpty } = await import('../demo-seed.js');
    const { answerClientErrorsWithJson } = await import('../../api/app.js');
    const { lockDataDirectory } = await import('../data-directory-lock.js');
    const { prepareDataDirectory, storeFiles } = await import('../data-directory.js');

    // Signals are listened for from the start: one that arrives while the read models catch up with a
    // long log aborts the catch-up between two batches (the next start goes on from its checkpoint) and
    // the command ends; one that arrives later stops the server as soon as it listens, and "listening"
    // is never logged before a SIGTERM would be handled.
    const starting = new AbortController();
    const stopSignal = new Promise<string>((resolve) => {
      const stop = (signal: string) => {
        starting.abort(new StoppedWhileStarting(signal));
        resolve(signal);
      };
      process.once('SIGTERM', () => stop('SIGTERM'));
      process.once('SIGINT', () => stop('SIGINT'));
    });
    const embedded = config.dataDir !== ':memory:';
    if (embedded) prepareDataDirectory(config.dataDir);
    const lock = embedded ? lockDataDirectory(config.dataDir) : null;
    if (lock?.tookOverFrom) log.info('took over a stale data-directory lock', { stalePid: lock.tookOverFrom, data: config.dataDir });
    try {
      const storyline = await openStoryline(config, log, { signal: starting.signal }).catch((error: unknown) => {
        if (error instanceof StoppedWhileStarting) return null;
        throw error;
      });
      if (!storyline) {
        log.info('stopped while catching up the read models; the next start goes on from there', { signal: await stopSignal });
        return 0;
      }
      boundHeapGrowth(config.heapGrowingPercent);
      if (embedded && !config.kurrentUrl && !isWritable(storeFiles(config.dataDir).events)) {
        log.warn('events.sqlite is read-only: reads are served, writes are refused with 503 component_unavailable', { data: config.dataDir });
      }
      const running = await listen(storyline.app, {
        port: config.port,
        host: config.host,
        graceMs: config.shutdownGraceMs,
        requestTimeoutMs: config.requestTimeoutMs,
        headersTimeoutMs: config.headersTimeoutMs,
        log,
        onStopping: () => storyline.endStreams(),
        onClosed: () => storyline.close(),
        configure: answerClientErrorsWithJson,
      }).catch(async (error: unknown) => {
        await storyline.close();
        throw listenFailure(error, config.host, config.port);
      });
      await seedDemoIfEmpty(storyline, config, out);
      storyline.reactions.start();
      void storyline.buildStateSnapshots();
      void storyline.checkLogIntegrity();
      log.info('listening', { port: running.port, data: config.dataDir, pid: process.pid });
      const signal = await stopSignal;
      log.info('shutting down', { signal });
      await running.shutdown();
      log.info('stopped');
      return 0;
    } finally {
      lock?.release();
    }
  },
};

class StoppedWhileStarting extends Error {
  constructor(signal: string) {
    super(`${signal} while starting`);
    this.name = 'StoppedWhileStarting';
  }
}

function listenFailure(error: unknown, host: string, port: number): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') return new OperatorError(`port ${port} on ${host} is already in use; stop what listens there or set PORT to a free port.`);
  if (code === 'EACCES') return new OperatorError(`not allowed to listen on port ${port} on ${host}; use a port above 1023 or run with the needed privilege.`);
  if (code === 'EADDRNOTAVAIL') return new OperatorError(`HOST ${host} is not an address of this machine; set HOST to one that is (or 0.0.0.0).`);
  return error;
}

function isWritable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * How far the heap may grow past what the last full collection kept (STORYLINE_HEAP_GROWING_PERCENT),
 * for the whole process, worker threads included. Set once the stores are open: a first start's fold of
 * the read models runs on V8's own growth, which suits a fold that keeps most of what it allocates.
 * V8 reads the setting at every full collection, so it applies from the next one.
 */
function boundHeapGrowth(percent: number): void {
  if (percent > 0) setFlagsFromString(`--heap-growing-percent=${percent}`);
}

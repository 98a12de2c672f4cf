// `storyline serve`: the HTTP server on the configured stores, until SIGTERM / SIGINT.
import type { CliCommand } from './command.js';

export const serveCommand: CliCommand = {
  words: ['serve'],
  usage: 'serve',
  summary: 'serve HTTP on PORT (default 3000), data under STORYLINE_DATA (default ./data)',
  async run(_args, { config, log, out }) {
    const { openStoryline } = await import('../composition.js');
    const { listen } = await import('../http-server.js');
    const { seedDemoIfEmpty } = await import('../demo-seed.js');
    const { answerClientErrorsWithJson } = await import('../../api/app.js');
    const storyline = await openStoryline(config, log);
    await seedDemoIfEmpty(storyline, config, out);
    storyline.reactions.start();
    const running = await listen(storyline.app, {
      port: config.port,
      host: config.host,
      graceMs: config.shutdownGraceMs,
      log,
      onClosed: () => storyline.close(),
      configure: answerClientErrorsWithJson,
    });
    log.info('listening', { port: running.port, data: config.dataDir });
    await new Promise<void>((resolve) => {
      const stop = (signal: string) => {
        log.info('shutting down', { signal });
        void running.shutdown().then(resolve);
      };
      process.once('SIGTERM', () => stop('SIGTERM'));
      process.once('SIGINT', () => stop('SIGINT'));
    });
    log.info('stopped');
    return 0;
  },
};

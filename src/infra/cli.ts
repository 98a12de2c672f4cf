// The `storyline` command line: `serve`, `rebuild-projections`, `person add`.
import { parseArgs } from 'node:util';
import { ConfigError, configFromEnv, type StorylineConfig } from './config.js';
import { createLog, type Log } from './log.js';

const USAGE = `usage:
  storyline serve                      serve HTTP on PORT (default 3000), data under STORYLINE_DATA (default ./data)
  storyline rebuild-projections        rebuild every read model from the event log into fresh collections
  storyline person add --email E --name N --password P [--initials I] [--username U]
                                       add a person; prints {"id":..,"api_token":..} as one JSON line`;

async function main(argv: string[]): Promise<number> {
  const log = createLog((process.env['STORYLINE_LOG_LEVEL'] as 'info' | undefined) ?? 'info');
  let config: StorylineConfig;
  try {
    config = configFromEnv();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`storyline: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      return serve(config, log);
    case 'rebuild-projections':
      return rebuildProjections(config, log);
    case 'person':
      if (rest[0] === 'add') return addPerson(config, rest.slice(1));
      break;
    case undefined:
    case 'help':
    case '--help':
      process.stdout.write(`${USAGE}\n`);
      return command ? 0 : 2;
  }
  process.stderr.write(`storyline: unknown command "${argv.join(' ')}"\n${USAGE}\n`);
  return 2;
}

async function serve(config: StorylineConfig, log: Log): Promise<number> {
  const { openStoryline } = await import('./composition.js');
  const { listen } = await import('./http-server.js');
  const { seedDemoIfEmpty } = await import('./demo-seed.js');
  const { answerClientErrorsWithJson } = await import('../api/app.js');
  const storyline = await openStoryline(config, log);
  await seedDemoIfEmpty(storyline, config, (line) => process.stdout.write(`${line}\n`));
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
}

async function rebuildProjections(config: StorylineConfig, log: Log): Promise<number> {
  const { openStoryline } = await import('./composition.js');
  const storyline = await openStoryline(config, log);
  try {
    for (const report of await storyline.rebuildAll()) {
      log.info('rebuilt projection', { ...report });
      process.stdout.write(`${JSON.stringify(report)}\n`);
    }
  } finally {
    await storyline.close();
  }
  return 0;
}

async function addPerson(config: StorylineConfig, args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      email: { type: 'string' },
      name: { type: 'string' },
      password: { type: 'string' },
      initials: { type: 'string' },
      username: { type: 'string' },
    },
    strict: true,
  });
  if (!values.email || !values.name || !values.password) {
    process.stderr.write(`storyline: person add needs --email, --name and --password\n${USAGE}\n`);
    return 2;
  }
  const { openStoryline } = await import('./composition.js');
  const storyline = await openStoryline(config, createLog('warn'));
  try {
    const person = await storyline.addPerson({
      email: values.email,
      name: values.name,
      password: values.password,
      initials: values.initials,
      username: values.username,
    });
    process.stdout.write(`${JSON.stringify(person)}\n`);
    return 0;
  } finally {
    await storyline.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`storyline: ${message}\n`);
    process.exitCode = 1;
  },
);

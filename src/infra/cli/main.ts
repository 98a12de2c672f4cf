// The `storyline` command line: finds the command named by the first words (commands.ts) and runs it
// with the configuration read from the environment. `--help` after any command prints that command's
// usage (here, once for every command); `--version` prints package.json's version.
import { ConfigError, configFromEnv } from '../config.js';
import { createLog } from '../log.js';
import { packageVersion } from '../package-version.js';
import { CliUsageError, type CliCommand, type CliContext } from './command.js';
import { cliCommands } from './commands.js';

function usage(commands: readonly CliCommand[]): string {
  return ['usage:', ...commands.map((command) => `  storyline ${command.usage}\n      ${command.summary}`)].join('\n');
}

function commandOf(argv: string[]): CliCommand | undefined {
  return cliCommands.find((command) => command.words.every((word, index) => argv[index] === word));
}

async function main(argv: string[]): Promise<number> {
  const out = (line: string) => process.stdout.write(`${line}\n`);
  const err = (line: string) => process.stderr.write(`${line}\n`);
  const [first] = argv;
  if (first === undefined || first === 'help' || first === '--help' || first === '-h') {
    out(usage(cliCommands));
    return first ? 0 : 2;
  }
  if (first === '--version' || first === '-v') {
    out(packageVersion());
    return 0;
  }
  const command = commandOf(argv);
  if (!command) {
    err(`storyline: unknown command "${argv.join(' ')}"\n${usage(cliCommands)}`);
    return 2;
  }
  const args = argv.slice(command.words.length);
  if (args.includes('--help') || args.includes('-h')) {
    out(usage([command]));
    return 0;
  }
  let context: CliContext;
  try {
    const log = createLog((process.env['STORYLINE_LOG_LEVEL'] as 'info' | undefined) ?? 'info');
    context = { config: configFromEnv(), log, out, err };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    err(`storyline: ${error.message}`);
    return 2;
  }
  try {
    return await command.run(args, context);
  } catch (error) {
    if (!(error instanceof CliUsageError) && !isParseArgsError(error)) throw error;
    err(`storyline: ${(error as Error).message}\nusage: storyline ${command.usage}`);
    return 2;
  }
}

/** node:util parseArgs rejects unknown or malformed options with a TypeError coded ERR_PARSE_ARGS_*. */
function isParseArgsError(error: unknown): boolean {
  const code: unknown = error instanceof TypeError ? (error as TypeError & { code?: unknown }).code : undefined;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS');
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

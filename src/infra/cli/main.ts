// The `storyline` command line: finds the command named by the first words (commands.ts) and runs it
// with the configuration read from the environment. `--help` after any command prints that command's
// usage (here, once for every command), after a group's word (`person --help`) its subcommands';
// `--version` prints package.json's version. An option a command does not take is refused naming the
// nearest one it takes (command.ts parseCommandArgs), exit 2. The configuration is read exactly as the server reads it; `--data DIR` (anywhere on the line) stands for STORYLINE_DATA. A
// command that does not create data (all but `serve` and `import`) refuses a directory without Storyline
// data. Problems the operator can act on are one line on stderr and a non-zero exit.
import { ConfigError, configFromEnv } from '../config.js';
import { requireExistingData } from '../data-directory.js';
import { createLog } from '../log.js';
import { OperatorError } from '../operator-error.js';
import { packageVersion } from '../package-version.js';
import { CliUsageError, type CliCommand, type CliContext } from './command.js';
import { cliCommands } from './commands.js';

function usage(commands: readonly CliCommand[]): string {
  return [
    'usage: storyline [--data DIR] COMMAND ...   (DIR defaults to STORYLINE_DATA, else ./data)',
    ...commands.map((command) => `  storyline ${command.usage}\n      ${command.summary}`),
  ].join('\n');
}

function commandOf(argv: string[]): CliCommand | undefined {
  return cliCommands.find((command) => command.words.every((word, index) => argv[index] === word));
}

/** The commands of a group named by its first word (`person`: person add, person reset-token). */
function subcommandsOf(word: string): CliCommand[] {
  return cliCommands.filter((command) => command.words.length > 1 && command.words[0] === word);
}

/** Takes `--data DIR` / `--data=DIR` out of the arguments; it overrides STORYLINE_DATA. */
function withoutDataOption(argv: readonly string[]): { argv: string[]; dataDir: string | undefined } {
  const rest: string[] = [];
  let dataDir: string | undefined;
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!;
    if (arg === '--data') {
      dataDir = argv[++index];
      if (dataDir === undefined || dataDir === '') throw new CliUsageError('--data needs a directory');
    } else if (arg.startsWith('--data=')) {
      dataDir = arg.slice('--data='.length);
      if (dataDir === '') throw new CliUsageError('--data needs a directory');
    } else rest.push(arg);
  }
  return { argv: rest, dataDir };
}

async function main(rawArgv: string[]): Promise<number> {
  const out = (line: string) => process.stdout.write(`${line}\n`);
  const err = (line: string) => process.stderr.write(`${line}\n`);
  let parsed: { argv: string[]; dataDir: string | undefined };
  try {
    parsed = withoutDataOption(rawArgv);
  } catch (error) {
    err(`storyline: ${(error as Error).message}\n${usage(cliCommands)}`);
    return 2;
  }
  const { argv, dataDir } = parsed;
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
    const group = subcommandsOf(first);
    if (group.length > 0 && (argv.includes('--help') || argv.includes('-h'))) {
      out(usage(group));
      return 0;
    }
    err(`storyline: unknown command "${argv.join(' ')}"\n${usage(group.length > 0 ? group : cliCommands)}`);
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
    const env = dataDir === undefined ? process.env : { ...process.env, STORYLINE_DATA: dataDir };
    context = { config: configFromEnv(env), log, out, err };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    err(`storyline: ${error.message}`);
    return 2;
  }
  try {
    const { config } = context;
    if (!command.createsData && config.dataDir !== ':memory:' && !config.kurrentUrl) requireExistingData(config.dataDir);
    return await command.run(args, context);
  } catch (error) {
    if (error instanceof OperatorError) {
      err(`storyline: ${error.message}`);
      return 1;
    }
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

// Exits explicitly: a start-up that failed half-way may leave handles open (a store's worker thread),
// and a failed start must end the process, never hang.
main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`storyline: ${message}\n`);
    process.exit(1);
  },
);

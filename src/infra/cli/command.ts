// What one `storyline` command is: its name words, its usage lines and what it runs. Each command lives
// in a module of its own under src/infra/cli/ and is listed in commands.ts; main.ts dispatches.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { StorylineConfig } from '../config.js';
import type { Log } from '../log.js';

export interface CliContext {
  config: StorylineConfig;
  log: Log;
  /** Writes one line to standard output (results: JSON lines, tokens). */
  out(line: string): void;
  /** Writes one line to standard error (problems). */
  err(line: string): void;
}

export interface CliCommand {
  /** The words that select it: `['serve']`, `['person', 'add']`. */
  words: readonly string[];
  /** Usage line(s) after `storyline `, e.g. `person add --email E ...`. */
  usage: string;
  /** One sentence: what it does. */
  summary: string;
  /**
   * True for a command that may start a new installation (`serve`); every other command refuses a data
   * directory that holds no Storyline data, naming it.
   */
  createsData?: boolean;
  /** Runs with the arguments after the command words (read with parseCommandArgs); resolves to the exit code. */
  run(args: string[], context: CliContext): Promise<number>;
}

/** A usage problem: main prints it with the command's usage and exits 2. */
export class CliUsageError extends Error {}

/** Options every command takes, handled by main.ts before the command runs. */
const GLOBAL_OPTIONS = ['data', 'help'];

/**
 * A command's arguments read by node:util parseArgs (strict). An option the command does not take is a
 * CliUsageError naming the nearest one it does take: `unknown option '--projet' (did you mean --project?)`.
 */
export function parseCommandArgs<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (error) {
    const code: unknown = error instanceof TypeError ? (error as TypeError & { code?: unknown }).code : undefined;
    if (code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION') throw error;
    throw new CliUsageError(unknownOptionMessage(config));
  }
}

function unknownOptionMessage(config: ParseArgsConfig): string {
  const known = Object.keys(config.options ?? {});
  const { tokens } = parseArgs({ args: config.args, options: config.options, strict: false, allowPositionals: true, tokens: true });
  const unknown = tokens.find((token) => token.kind === 'option' && !known.includes(token.name));
  if (!unknown || unknown.kind !== 'option') return 'unknown option';
  const nearest = nearestName(unknown.name, [...known, ...GLOBAL_OPTIONS]);
  return `unknown option '${unknown.rawName}'${nearest === null ? '' : ` (did you mean --${nearest}?)`}`;
}

/** The known name at the smallest edit distance from `name`, if that distance is at most 2; else null. */
function nearestName(name: string, known: readonly string[]): string | null {
  let best: string | null = null;
  let bestDistance = 3;
  for (const candidate of known) {
    const distance = editDistance(name, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Levenshtein distance (insertions, deletions, substitutions), one row at a time. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

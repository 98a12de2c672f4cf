// What one `storyline` command is: its name words, its usage lines and what it runs. Each command lives
// in a module of its own under src/infra/cli/ and is listed in commands.ts; main.ts dispatches.
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
  /** Runs with the arguments after the command words; resolves to the exit code. */
  run(args: string[], context: CliContext): Promise<number>;
}

/** A usage problem: main prints it with the command's usage and exits 2. */
export class CliUsageError extends Error {}

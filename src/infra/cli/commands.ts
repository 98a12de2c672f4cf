// Every `storyline` command, in the order `storyline --help` lists them. Add a command's module here.
import type { CliCommand } from './command.js';
import { personAddCommand } from './person-add.js';
import { personResetTokenCommand } from './person-reset-token.js';
import { rebuildProjectionsCommand } from './rebuild-projections.js';
import { serveCommand } from './serve.js';

export const cliCommands: readonly CliCommand[] = [serveCommand, rebuildProjectionsCommand, personAddCommand, personResetTokenCommand];

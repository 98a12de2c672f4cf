// Every `storyline` command, in the order `storyline --help` lists them. Add a command's module here.
import type { CliCommand } from './command.js';
import { exportCommand } from './export.js';
import { exportPivotalCsvCommand } from './export-pivotal-csv.js';
import { importCommand } from './import.js';
import { importPivotalCsvCommand } from './import-pivotal-csv.js';
import { personAddCommand } from './person-add.js';
import { personResetTokenCommand } from './person-reset-token.js';
import { rebuildProjectionsCommand } from './rebuild-projections.js';
import { serveCommand } from './serve.js';
import { sweepUploadsCommand } from './sweep-uploads.js';
import { verifyCommand } from './verify.js';

export const cliCommands: readonly CliCommand[] = [
  serveCommand, rebuildProjectionsCommand, personAddCommand, personResetTokenCommand, verifyCommand, exportCommand, importCommand,
  importPivotalCsvCommand, exportPivotalCsvCommand, sweepUploadsCommand,
];

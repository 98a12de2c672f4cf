// `storyline import-pivotal-csv FILE --project ID`: a Pivotal Tracker CSV export into stories of a
// project (src/commands/pivotal-story-import.ts), beside a running server or on its own (the events go
// to the same log). On a terminal a progress bar, otherwise one JSON line per row; then a summary line.
// Exit 0 when every row became a story or an epic (values dropped and unknown people are reported, not
// failures), 1 when some row could not be read or made into one (each is reported with its problems).
import { createHash } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import { PivotalStoryImport, type PivotalRowOutcome } from '../../commands/pivotal-story-import.js';
import { DomainError } from '../../domain/errors.js';
import { createLog } from '../log.js';
import { readPivotalCsv } from '../pivotal-csv/pivotal-csv-file.js';
import { PivotalHeaderError } from '../pivotal-csv/pivotal-story-rows.js';
import { CliUsageError, parseCommandArgs, type CliCommand } from './command.js';

const BAR_WIDTH = 30;

export const importPivotalCsvCommand: CliCommand = {
  words: ['import-pivotal-csv'],
  usage: 'import-pivotal-csv FILE --project ID',
  summary: "turn a Pivotal Tracker CSV export into stories and epics of project ID, in the file's order; prints a summary line",
  async run(args, { config, out, err }) {
    const { values, positionals } = parseCommandArgs({ args, options: { project: { type: 'string' } }, allowPositionals: true, strict: true });
    if (positionals.length !== 1) throw new CliUsageError('import-pivotal-csv needs exactly one FILE');
    if (!values.project || !/^[1-9][0-9]{0,15}$/.test(values.project)) throw new CliUsageError('import-pivotal-csv needs --project ID (a project id)');
    const file = positionals[0]!;
    const projectId = Number(values.project);
    if (!statSync(file, { throwIfNoEntry: false })?.isFile()) {
      err(`storyline import-pivotal-csv: ${file} is not a file`);
      return 1;
    }
    const commandPrefix = `pivotal-csv:${projectId}:${await fileDigest(file)}`;

    const { openStoryline } = await import('../composition.js');
    const storyline = await openStoryline(config, createLog('warn'));
    try {
      const deps = { commands: storyline.commands, writer: storyline.deps.writer, people: storyline.runner.collection('people'), clock: Date.now };
      let importer: PivotalStoryImport;
      try {
        importer = await PivotalStoryImport.open(deps, projectId, commandPrefix);
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        err(`storyline import-pivotal-csv: project ${projectId}: ${error.details.general_problem ?? 'no such project'}`);
        return 1;
      }
      const csv = readPivotalCsv(file, importer.timeZone);
      const progress = process.stdout.isTTY ? terminalBar(csv.size) : null;
      const totals = { created: 0, epics: 0, refused: 0, comments: 0, blockers: 0, dropped: 0, unknown: new Set<string>() };
      try {
        for await (const { result, bytesRead } of csv.records) {
          const outcome: PivotalRowOutcome = result.ok
            ? await importer.importRow(result.row)
            : { record: result.record, pivotal_id: null, problems: result.problems, unknown_people: [], comments_created: 0, blockers_created: 0 };
          if (outcome.story_id !== undefined) totals.created++;
          else if (outcome.epic_id !== undefined) totals.epics++;
          else totals.refused++;
          totals.dropped += outcome.values_dropped?.length ?? 0;
          totals.comments += outcome.comments_created;
          totals.blockers += outcome.blockers_created;
          for (const name of outcome.unknown_people) totals.unknown.add(name);
          if (progress) {
            if (outcome.problems) err(`\nrecord ${outcome.record}: not imported: ${outcome.problems.join('; ')}`);
            if (outcome.values_dropped) err(`\nrecord ${outcome.record}: imported without ${outcome.values_dropped.join('; ')}`);
            progress(bytesRead, totals.created, totals.refused);
          } else {
            out(JSON.stringify(outcome));
          }
        }
      } catch (error) {
        if (!(error instanceof PivotalHeaderError)) throw error;
        err(`storyline import-pivotal-csv: ${file}: ${error.message}`);
        return 1;
      }
      if (progress) process.stdout.write('\n');
      out(
        JSON.stringify({
          summary:
            `${totals.created} stories and ${totals.epics} epics (${totals.comments} comments, ${totals.blockers} blockers) imported into ` +
            `project ${projectId}, ${totals.dropped} values dropped, ${totals.refused} rows refused`,
          stories_created: totals.created,
          epics_created: totals.epics,
          values_dropped: totals.dropped,
          comments_created: totals.comments,
          blockers_created: totals.blockers,
          rows_refused: totals.refused,
          unknown_people: [...totals.unknown],
          ignored_columns: (await csv.columns).ignored,
        }),
      );
      return totals.refused === 0 ? 0 : 1;
    } finally {
      await storyline.close();
    }
  },
};

/** SHA-256 of the file (hex, shortened): the same file imports under the same command ids. */
async function fileDigest(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex').slice(0, 32);
}

/** Redraws one line: `[#######.....] 42% 120 stories, 2 refused`. */
function terminalBar(size: number): (bytes: number, created: number, refused: number) => void {
  return (bytes, created, refused) => {
    const done = size === 0 ? 1 : Math.min(bytes / size, 1);
    const filled = Math.round(done * BAR_WIDTH);
    process.stdout.write(`\r[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${Math.round(done * 100)}% ${created} stories, ${refused} refused`);
  };
}

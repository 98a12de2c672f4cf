// `storyline export-pivotal-csv --project ID --out FILE`: a project as a Pivotal Tracker CSV export
// (src/infra/pivotal-csv/pivotal-csv-export.ts), the file `import-pivotal-csv` turns back into the same
// stories and epics. Reads the read models (beside a running server or not); FILE must not exist.
import { existsSync, writeFileSync } from 'node:fs';
import { CliUsageError, parseCommandArgs, type CliCommand } from './command.js';

export const exportPivotalCsvCommand: CliCommand = {
  words: ['export-pivotal-csv'],
  usage: 'export-pivotal-csv --project ID --out FILE',
  summary: "write project ID's stories and epics as a Pivotal Tracker CSV export (what import-pivotal-csv reads); FILE must not exist",
  async run(args, { config, out, err }) {
    const { values } = parseCommandArgs({ args, options: { project: { type: 'string' }, out: { type: 'string' } }, strict: true });
    if (!values.project || !/^[1-9][0-9]{0,15}$/.test(values.project)) throw new CliUsageError('export-pivotal-csv needs --project ID (a project id)');
    if (!values.out) throw new CliUsageError('export-pivotal-csv needs --out FILE');
    if (existsSync(values.out)) {
      err(`storyline export-pivotal-csv: ${values.out} exists; the export writes a new file`);
      return 1;
    }
    const projectId = Number(values.project);
    const { openStoryline } = await import('../composition.js');
    const { createLog } = await import('../log.js');
    const { typedReadModels } = await import('../../projections/documents.js');
    const { pivotalCsvExport } = await import('../pivotal-csv/pivotal-csv-export.js');
    const { analyticsReads } = await import('../../queries/analytics/analytics-query.js');
    const { epicUrl, storyUrl } = await import('../../api/resources/web-addresses.js');
    const { csvTable } = await import('../../domain/csv.js');
    const storyline = await openStoryline(config, createLog('warn'));
    try {
      const read = typedReadModels((name) => storyline.runner.collection(name));
      if (!(await read('projects').findOne({ id: projectId }))) {
        err(`storyline export-pivotal-csv: there is no project ${projectId}`);
        return 1;
      }
      const reads = {
        ...analyticsReads(read, storyline.runner),
        tasks: read('tasks'),
        comments: read('comments'),
        blockers: read('blockers'),
        epics: read('epics'),
        people: read('people'),
      };
      const rows = await pivotalCsvExport(reads, {
        projectId,
        now: Date.now(),
        storyUrl: (id) => storyUrl(config.siteUrl, id),
        epicUrl: (id) => epicUrl(config.siteUrl, id),
      });
      writeFileSync(values.out, csvTable(rows), { flag: 'wx' });
      out(JSON.stringify({ exported: values.out, project: projectId, rows: rows.length - 1 }));
      return 0;
    } finally {
      await storyline.close();
    }
  },
};

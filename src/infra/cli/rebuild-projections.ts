// `storyline rebuild-projections`: read models rebuilt from ONE read of the event log into a fresh
// generation each, switched over together. `--only NAME` (repeatable) picks projections, `--list`
// prints the names the registry holds. Progress on standard error; one JSON report line per projection
// on standard output.
import { projections } from '../../projections/registry.js';
import { CliUsageError, parseCommandArgs, type CliCommand } from './command.js';
import { progressDisplay } from './rebuild-progress.js';

export const rebuildProjectionsCommand: CliCommand = {
  words: ['rebuild-projections'],
  usage: 'rebuild-projections [--only NAME]... | --list',
  summary: 'rebuild read models from one read of the event log into fresh collections and switch over (stop the server first)',
  async run(args, { config, log, out }) {
    const { values } = parseCommandArgs({ args, options: { only: { type: 'string', multiple: true }, list: { type: 'boolean' } }, strict: true });
    const known = projections.map((projection) => projection.name);
    if (values.list) {
      for (const name of known) out(name);
      return 0;
    }
    const chosen = values.only ?? known;
    const unknown = chosen.filter((name) => !known.includes(name));
    if (unknown.length > 0) throw new CliUsageError(`unknown projection ${unknown.join(', ')} (known: ${known.join(', ')})`);
    const { openStoryline } = await import('../composition.js');
    const storyline = await openStoryline(config, log, { offlineRebuilds: true });
    const display = progressDisplay(process.stderr);
    try {
      const reports = await storyline.runner.rebuildTogether(chosen, (progress) => display.update(progress));
      display.finish();
      for (const report of reports) out(JSON.stringify(report));
    } finally {
      await storyline.close();
    }
    return 0;
  },
};

// `storyline rebuild-projections`: every read model rebuilt from the log into fresh collections.
import type { CliCommand } from './command.js';

export const rebuildProjectionsCommand: CliCommand = {
  words: ['rebuild-projections'],
  usage: 'rebuild-projections',
  summary: 'rebuild every read model from the event log into fresh collections and switch over',
  async run(_args, { config, log, out }) {
    const { openStoryline } = await import('../composition.js');
    const storyline = await openStoryline(config, log);
    try {
      for (const report of await storyline.rebuildAll()) {
        log.info('rebuilt projection', { ...report });
        out(JSON.stringify(report));
      }
    } finally {
      await storyline.close();
    }
    return 0;
  },
};

// `storyline sweep-uploads`: frees the bytes of deleted uploads. Blobs that no file attachment names any
// more (nor names as its thumbnail or large preview), stored longer ago than the grace period, are
// removed (unreferenced-blob-sweep.ts). Runs beside a
// running server: the grace period keeps it off uploads whose event is still being recorded.
import { createLog } from '../log.js';
import { CliUsageError, parseCommandArgs, type CliCommand } from './command.js';

const DEFAULT_GRACE_HOURS = 24;

export const sweepUploadsCommand: CliCommand = {
  words: ['sweep-uploads'],
  usage: `sweep-uploads [--grace-hours H]`,
  summary: `remove upload bytes no file attachment names, stored more than H hours ago (default ${DEFAULT_GRACE_HOURS}); prints {"removed":..}`,
  async run(args, { config, out }) {
    const { values } = parseCommandArgs({ args, options: { 'grace-hours': { type: 'string' } }, strict: true });
    const graceHours = values['grace-hours'] === undefined ? DEFAULT_GRACE_HOURS : Number(values['grace-hours']);
    if (!Number.isFinite(graceHours) || graceHours < 0) throw new CliUsageError('--grace-hours must be a number of hours, 0 or more');
    const { openStoryline } = await import('../composition.js');
    const { openBlobStore } = await import('../blob-store/open-blob-store.js');
    const { sweepUnreferencedBlobs } = await import('../blob-store/unreferenced-blob-sweep.js');
    const { FILE_THUMBNAILS } = await import('../../reactions/thumbnails.js');
    const storyline = await openStoryline(config, createLog('warn'));
    const blobs = await openBlobStore(config);
    try {
      const references = {
        fileAttachments: storyline.runner.collection('file_attachments'),
        fileThumbnails: storyline.readStore.collection(FILE_THUMBNAILS),
      };
      const removed = await sweepUnreferencedBlobs(blobs, references, {
        storedBefore: Date.now() - graceHours * 3_600_000,
      });
      out(JSON.stringify({ removed: removed.length }));
      return 0;
    } finally {
      await blobs.close();
      await storyline.close();
    }
  },
};

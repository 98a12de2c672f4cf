// Every read projection the projector runner maintains. Add a projection here to have it built at
// start-up, kept current and rebuilt when its version changes.
import type { Projection } from './projection.js';
import { resourcesProjection } from './resources/resources-projection.js';
import { performerActivityProjection } from './activity/performer-activity-projection.js';
import { subjectActivityProjection } from './activity/subject-activity-projection.js';
import { iterationStoriesProjection } from './iterations/iteration-stories-projection.js';
import { storyTransitionsProjection } from './analytics/story-transitions-projection.js';
import { storyWordsProjection } from './search/story-words-projection.js';

export const projections: Projection[] = [
  resourcesProjection,
  performerActivityProjection,
  subjectActivityProjection,
  iterationStoriesProjection,
  storyTransitionsProjection,
  storyWordsProjection,
];

/**
 * What rebuilding each projection costs beyond reading the log, in seconds on the disk bench's 1M-event
 * log (`rebuild-projections --only NAME`, 2026-11-27): how a parallel rebuild balances its workers
 * (src/infra/projector/parallel-fold.ts). Only the proportions matter; a projection missing here counts
 * as the average.
 */
export const rebuildCosts: Readonly<Record<string, number>> = {
  resources: 40,
  'story-words': 32,
  performer_activity: 18,
  subject_activity: 16,
  iterations: 5,
  analytics: 4,
};

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
 * What rebuilding each projection costs beyond reading the log, in proportion to the others: how a
 * parallel rebuild balances its workers (src/infra/projector/parallel-fold.ts). Measured with the disk
 * bench's log (docs/benchmarks.md, "Figures behind constants in the source"); a projection missing here
 * counts as the average.
 */
export const rebuildCosts: Readonly<Record<string, number>> = {
  'story-words': 49,
  resources: 47,
  performer_activity: 19.5,
  subject_activity: 17.5,
  iterations: 10.7,
  analytics: 3.8,
};

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

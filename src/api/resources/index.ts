// Every resource module the API serves. Add a module's factory here; the composition root builds them
// all with the same dependencies.
import { accountResources } from './accounts.js';
import { activityResources } from './activity.js';
import { activityStreamResources } from './activity-stream.js';
import { blockerResources } from './blockers.js';
import { commentResources } from './comments.js';
import { epicResources } from './epics.js';
import { meResources } from './me.js';
import { notificationResources } from './notifications.js';
import { membershipResources } from './memberships.js';
import { peopleResources } from './people.js';
import { projectResources } from './projects.js';
import { labelResources } from './labels.js';
import { iterationResources } from './iterations.js';
import { invitationResources } from './invitations.js';
import { releaseResources } from './releases.js';
import { reviewResources } from './reviews.js';
import { searchResources } from './search.js';
import { sourceCommitResources } from './source-commits.js';
import { storyResources } from './stories.js';
import { taskResources } from './tasks.js';
import { uploadResources } from './uploads.js';
import { workspaceResources } from './workspaces.js';
import { webhookResources } from './webhooks.js';
import type { ResourceModuleFactory } from './resource-module.js';

export const resourceModules: readonly ResourceModuleFactory[] = [
  meResources,
  peopleResources,
  accountResources,
  projectResources,
  membershipResources,
  invitationResources,
  activityResources,
  activityStreamResources,
  storyResources,
  labelResources,
  taskResources,
  releaseResources,
  notificationResources,
  iterationResources,
  searchResources,
  epicResources,
  commentResources,
  blockerResources,
  reviewResources,
  uploadResources,
  workspaceResources,
  sourceCommitResources,
  webhookResources,
];

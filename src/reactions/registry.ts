// Every reaction the server runs that needs only read models and collections of its own, built by the
// composition root (one factory per reaction, in a file of its own under src/reactions/). Not listed,
// because they take ports only the composition root can build, and added there: project-snapshots
// (the fold machinery of infra/time-travel/) and webhooks (webhooks.ts: the activity items, the HTTP
// sender, the delivery store and the signing secrets).
import { notificationsReaction } from './notifications.js';
import type { ReactionFactory } from './reaction.js';

export const reactionFactories: readonly ReactionFactory[] = [notificationsReaction];

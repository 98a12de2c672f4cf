// Every reaction the server runs, built by the composition root. Webhooks add theirs here (one factory per reaction, in a file of its own under src/reactions/).
// The project-snapshots reaction (project-snapshots.ts) is not listed: it takes the fold machinery of
// infra/time-travel/ as its port, which only the composition root can build, and is added there.
import { notificationsReaction } from './notifications.js';
import type { ReactionFactory } from './reaction.js';

export const reactionFactories: readonly ReactionFactory[] = [notificationsReaction];

// Every reaction the server runs, built by the composition root. Webhooks add theirs here (one factory per reaction, in a file of its own under src/reactions/).
import { notificationsReaction } from './notifications.js';
import type { ReactionFactory } from './reaction.js';

export const reactionFactories: readonly ReactionFactory[] = [notificationsReaction];

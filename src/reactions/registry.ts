// Every reaction the server runs, built by the composition root. None yet: notifications and webhooks
// add theirs here (one factory per reaction, in a file of its own under src/reactions/).
import type { ReactionFactory } from './reaction.js';

export const reactionFactories: readonly ReactionFactory[] = [];

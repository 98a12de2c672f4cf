// What commands read from the read models: look-ups only (uniqueness checks, names for activities, the
// resource a write answers with).
import type { ReadCollection } from '../ports/read-store.js';

export type ReadView = Pick<ReadCollection, 'find' | 'findOne'>;

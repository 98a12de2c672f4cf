// Fresh integer ids, unique per kind across all projects (implemented by infra/id-allocator.ts, which
// reserves them in blocks on the log).
import type { IdKind } from '../domain/decision.js';

export interface IdAllocation {
  next(kind: IdKind): Promise<number>;
}

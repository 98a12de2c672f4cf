// New events as the server learns of them: each batch of the log the live read models have just
// applied (appended by this process or another), in log order. Implemented by the projector runner
// (infra/projector/projector-runner.ts); the live activity stream fans out from it.
import type { Observable } from 'rxjs';
import type { RecordedEvent } from '../domain/events.js';

export interface AppliedEvents {
  /** Each batch, emitted once the read models show it; completes when the runner stops. */
  readonly applied$: Observable<readonly RecordedEvent[]>;
}

// What a write request hands its command: the request's command id (idempotency), the caller, the time.
import type { CommandMeta } from '../commands/command-handler.js';
import type { ApiRequest } from './route-table.js';

/** Only for routes whose access requires a caller (`person` or `project:write`): the actor is set. */
export function commandMeta(req: ApiRequest): CommandMeta {
  return { commandId: req.commandId, actorId: req.actor!.id, now: req.now };
}

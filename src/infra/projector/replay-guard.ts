// The idempotency guard of the projector: every document a projection writes carries `_pos`, the global
// position of the last event applied to it, and an event only touches documents whose `_pos` is lower
// than its position. Applying an event twice (at-least-once delivery, a resumed catch-up) therefore
// changes nothing the second time: its filters no longer match, and its inserts / upserts find the id
// taken and are skipped by the read store.
import type { Filter, Update, WriteOp } from '../read-store/port.js';

export const POSITION_FIELD = '_pos';

function guardedFilter(filter: Filter, position: number): Filter {
  const guard = { $lt: position };
  return POSITION_FIELD in filter ? { $and: [filter, { [POSITION_FIELD]: guard }] } : { ...filter, [POSITION_FIELD]: guard };
}

function stampedUpdate(update: Update, position: number): Update {
  const set = update.$set as Record<string, unknown> | undefined;
  return { ...update, $set: set ? { ...set, [POSITION_FIELD]: position } : { [POSITION_FIELD]: position } };
}

/** The op as the runner writes it for the event at `position`. */
export function guardOp(op: WriteOp, position: number): WriteOp {
  switch (op.op) {
    case 'insert':
      return { op: 'insert', doc: { ...op.doc, [POSITION_FIELD]: position } };
    case 'upsert':
      return { op: 'upsert', filter: guardedFilter(op.filter, position), update: stampedUpdate(op.update, position) };
    case 'update':
      return { op: 'update', filter: guardedFilter(op.filter, position), update: stampedUpdate(op.update, position), many: op.many ?? false };
    case 'replace':
      return { op: 'replace', filter: guardedFilter(op.filter, position), doc: { ...op.doc, [POSITION_FIELD]: position }, upsert: op.upsert ?? false };
    case 'delete':
      return { op: 'delete', filter: guardedFilter(op.filter, position), many: op.many ?? false };
    default: {
      const unknown: never = op;
      throw new Error(`unknown write op ${JSON.stringify(unknown)}`);
    }
  }
}

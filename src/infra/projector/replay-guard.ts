// The idempotency guard of the projector: every document a projection writes carries `_pos`, the global
// position of the last event applied to it, and an event only touches documents whose `_pos` is lower
// than its position. Applying an event twice (at-least-once delivery, a resumed catch-up) therefore
// changes nothing the second time: its filters no longer match, and its inserts / upserts find the id
// taken and are skipped by the read store.
import type { Doc, Filter, Update, WriteOp } from '../../ports/read-store.js';

/** The field every projected document carries (written literally below, for speed). */
export const POSITION_FIELD = '_pos';

// Written with the literal `_pos` and property stores rather than spreads with computed keys: this runs
// for every op of a replay, and V8 keeps these objects in fast mode.
function guardedFilter(filter: Filter, position: number): Filter {
  if (filter._pos !== undefined) return { $and: [filter, { _pos: { $lt: position } }] };
  const guarded: Filter = {};
  for (const key in filter) guarded[key] = filter[key];
  guarded._pos = { $lt: position };
  return guarded;
}

function stampedUpdate(update: Update, position: number): Update {
  const stamped: Update = {};
  for (const key in update) stamped[key] = update[key];
  const set = update.$set as Record<string, unknown> | undefined;
  const stampedSet: Record<string, unknown> = {};
  for (const key in set) stampedSet[key] = set[key];
  stampedSet._pos = position;
  stamped.$set = stampedSet;
  return stamped;
}

function stampedDoc(doc: Doc, position: number): Doc {
  const stamped = { ...doc };
  stamped._pos = position;
  return stamped;
}

/** The op as the runner writes it for the event at `position`. */
export function guardOp(op: WriteOp, position: number): WriteOp {
  switch (op.op) {
    case 'insert':
      return { op: 'insert', doc: stampedDoc(op.doc, position) };
    case 'upsert':
      return { op: 'upsert', filter: guardedFilter(op.filter, position), update: stampedUpdate(op.update, position) };
    case 'update':
      return { op: 'update', filter: guardedFilter(op.filter, position), update: stampedUpdate(op.update, position), many: op.many ?? false };
    case 'replace':
      return { op: 'replace', filter: guardedFilter(op.filter, position), doc: stampedDoc(op.doc, position), upsert: op.upsert ?? false };
    case 'delete':
      return { op: 'delete', filter: guardedFilter(op.filter, position), many: op.many ?? false };
    default: {
      const unknown: never = op;
      throw new Error(`unknown write op ${JSON.stringify(unknown)}`);
    }
  }
}

// Update documents of the memory read store, applied in place to the store's own copy. Updates made only
// of `$set` / `$unset` / `$inc` (and `$setOnInsert`) on plain keys are applied directly; anything else
// (dotted paths, $push, $addToSet, ...) is applied by mingo's updater.
import { update as mingoUpdate } from 'mingo/updater';
import type { Doc, Update } from '../../ports/read-store.js';
import { copyJson } from './json-copy.js';

export class InvalidUpdateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidUpdateError';
  }
}

const DIRECT_OPERATORS = new Set(['$set', '$unset', '$inc', '$setOnInsert']);

/** How an update can be applied: directly, or by mingo; and whether it writes `id`. One pass. */
function classify(update: Update): { direct: boolean; touchesId: boolean } {
  let direct = true;
  let touchesId = false;
  for (const operator in update) {
    const fields = update[operator];
    if (typeof fields !== 'object' || fields === null) return { direct: false, touchesId: true };
    if (!DIRECT_OPERATORS.has(operator)) direct = false;
    for (const field in fields) {
      if (field === 'id') touchesId = true;
      else if (direct && (field.includes('.') || field.charCodeAt(0) === 36)) direct = false;
    }
  }
  return { direct, touchesId };
}

export function assertOperatorUpdate(update: Update): void {
  let operators = 0;
  for (const key in update) {
    if (key.charCodeAt(0) !== 36) operators = -Infinity;
    operators++;
  }
  if (operators <= 0) throw new InvalidUpdateError('an update must consist of update operators ($set, $unset, ...)');
}

function checkIncrements(doc: Doc, inc: Record<string, unknown> | undefined): void {
  for (const field in inc) {
    const current = doc[field] ?? 0;
    if (typeof inc[field] !== 'number' || typeof current !== 'number') {
      throw new InvalidUpdateError(`$inc needs numbers: ${field}`);
    }
  }
}

function applyDirect(doc: Doc, update: Update, inserting: boolean): Doc {
  const inc = update.$inc as Record<string, number> | undefined;
  checkIncrements(doc, inc);
  const set = update.$set as Record<string, unknown> | undefined;
  for (const field in set) doc[field] = copyJson(set[field]);
  if (inserting) {
    const onInsert = update.$setOnInsert as Record<string, unknown> | undefined;
    for (const field in onInsert) doc[field] = copyJson(onInsert[field]);
  }
  const unset = update.$unset as Record<string, unknown> | undefined;
  for (const field in unset) delete doc[field];
  for (const field in inc) doc[field] = ((doc[field] as number | undefined) ?? 0) + inc[field]!;
  return doc;
}

/** mingo's updater, on a copy: a failing update leaves the stored document untouched. */
function applyByMingo(doc: Doc, update: Update, inserting: boolean): Doc {
  const { $setOnInsert, ...rest } = update;
  const modifier = inserting && $setOnInsert ? { ...rest, $set: { ...(rest.$set as object), ...($setOnInsert as object) } } : rest;
  const next = copyJson(doc);
  try {
    mingoUpdate(next, copyJson(modifier), undefined, undefined, { cloneMode: 'none' });
  } catch (error) {
    throw new InvalidUpdateError(error instanceof Error ? error.message : String(error));
  }
  return next;
}

/**
 * Applies `update` to `doc` and returns the updated document: `doc` itself, changed in place, or a new
 * object. `inserting` applies `$setOnInsert` (an upsert creating the doc) and allows setting `id`.
 * Values are copied in, so later changes to the caller's objects do not reach the store. A failing
 * update changes nothing.
 */
export function applyUpdate(doc: Doc, update: Update, inserting: boolean): Doc {
  const { direct, touchesId } = classify(update);
  if (touchesId && !inserting) {
    const next = applyByMingo(doc, update, true);
    if (next.id !== doc.id) throw new InvalidUpdateError('a document id cannot change');
    return next;
  }
  return direct ? applyDirect(doc, update, inserting) : applyByMingo(doc, update, inserting);
}

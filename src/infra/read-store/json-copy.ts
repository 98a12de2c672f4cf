// Deep copies of the JSON values a read store holds, so that neither the documents a caller passes in
// nor the ones it gets back are shared with the store. Hand-written because structuredClone is several
// times slower on small documents, and a store copies on every write and every read.

export function copyJson<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    // Copied whole first: arrays of ids or words (most of them) then need no call per element.
    const out = value.slice();
    for (let i = 0; i < out.length; i++) {
      const item = out[i];
      if (typeof item === 'object' && item !== null) out[i] = copyJson(item);
    }
    return out as T;
  }
  if (value instanceof Date) return new Date(value.getTime()) as T;
  const out: Record<string, unknown> = {};
  for (const key in value) {
    const item = (value as Record<string, unknown>)[key];
    out[key] = typeof item === 'object' && item !== null ? copyJson(item) : item;
  }
  return out as T;
}

/** A copy of `doc` for a find: whole, or only `id` and the top-level `fields` it holds (FindOptions.fields). */
export function copyFound<T extends { id: number }>(doc: T, fields: readonly string[] | undefined): T {
  if (fields === undefined) return copyJson(doc);
  const out: Record<string, unknown> = { id: doc.id };
  for (const field of fields) {
    const value = (doc as Record<string, unknown>)[field];
    if (value !== undefined) out[field] = copyJson(value);
  }
  return out as T;
}

/** The value at a dotted path; undefined when a step is missing or not an object. */
export function valueAtPath(doc: Record<string, unknown>, path: string): unknown {
  if (!path.includes('.')) return doc[path];
  let current: unknown = doc;
  for (const step of path.split('.')) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[step];
  }
  return current;
}

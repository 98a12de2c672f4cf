// The one serializer: renders read-model documents of a resource type through a parsed `fields` selection.
// - `id` is always returned; `kind` only when selected (by name or by the type's defaults).
// - Null / absent scalars are omitted; arrays and nested structures are kept.
// - Datetimes (stored as integer ms) become ISO 8601 UTC with second precision (`2017-05-03T23:29:39Z`),
//   or stay integer ms with `date_format=millis`.
// - Associations are loaded in batch: one loader call per association per nesting path per response.
// - Names a type does not know are ignored (clients may ask for attributes other versions have).

import type { Doc } from '../ports/read-store.js';
import { DEFAULT_SELECTION, type FieldSelection } from './fields-selection.js';
import { isDatetime, type Association, type ComputedAttribute, type LoadContext, type ResourceType, type ResourceTypeRegistry } from './resource-type.js';

export interface SerializeOptions {
  /** The request as loaders see it; `ctx.millis` also decides how datetimes are rendered. */
  ctx: LoadContext;
}

type Output = Record<string, unknown>;

type PlanEntry =
  | { name: string; source: 'kind'; value: string }
  | { name: string; source: 'attribute' | 'datetime' }
  | { name: string; source: 'nested'; association: Association; selection: FieldSelection }
  | { name: string; source: 'loaded_ids'; association: Association }
  | { name: string; source: 'computed'; compute: ComputedAttribute; datetime: boolean };

export class Serializer {
  /** Plans per type and parsed selection, owned by this serializer (selections of repeated queries are reused). */
  private readonly plans = new WeakMap<ResourceType, WeakMap<FieldSelection, PlanEntry[]>>();

  constructor(private readonly registry: ResourceTypeRegistry) {}

  async render(typeName: string, value: Doc | Doc[], selection: FieldSelection, options: SerializeOptions): Promise<unknown> {
    const docs = Array.isArray(value) ? value : [value];
    const rendered = await this.renderMany(typeName, docs, selection, options);
    return Array.isArray(value) ? rendered : rendered[0];
  }

  private planFor(type: ResourceType, selection: FieldSelection): PlanEntry[] {
    let byType = this.plans.get(type);
    if (!byType) this.plans.set(type, (byType = new WeakMap()));
    let plan = byType.get(selection);
    if (!plan) byType.set(selection, (plan = buildPlan(type, selection)));
    return plan;
  }

  private async renderMany(typeName: string, docs: readonly Doc[], selection: FieldSelection, options: SerializeOptions): Promise<Output[]> {
    const type = this.registry.get(typeName);
    if (!type) throw new Error(`unknown resource type ${typeName}`);
    const plan = this.planFor(type, selection);
    const outputs: Output[] = docs.map(() => ({}));
    const filled = new Map<string, unknown[]>();
    const loaded = plan.filter((entry) => entry.source === 'nested' || entry.source === 'computed' || entry.source === 'loaded_ids');
    if (loaded.length > 0 && docs.length > 0) {
      await Promise.all(loaded.map(async (entry) => {
        const values = await this.batchValues(entry, docs, options);
        if (values) filled.set(entry.name, values);
      }));
    }
    // Keys are written in plan order so responses read the same way every time.
    for (const entry of plan) {
      const values = filled.get(entry.name);
      for (let i = 0; i < docs.length; i++) {
        const doc = docs[i]!;
        const out = outputs[i]!;
        let value: unknown;
        switch (entry.source) {
          case 'kind': value = entry.value; break;
          case 'attribute': value = doc[entry.name]; break;
          case 'datetime': value = renderDatetime(doc[entry.name], options.ctx.millis); break;
          case 'computed': value = entry.datetime ? renderDatetime(values?.[i], options.ctx.millis) : values?.[i]; break;
          default: value = values?.[i];
        }
        if (value !== null && value !== undefined) out[entry.name] = value;
      }
    }
    return outputs;
  }

  /** Values of a batch-loaded plan entry aligned with `docs`, or null for plain attributes. */
  private async batchValues(entry: PlanEntry, docs: readonly Doc[], options: SerializeOptions): Promise<unknown[] | null> {
    switch (entry.source) {
      case 'computed':
        return [...(await entry.compute(docs, options.ctx))];
      case 'loaded_ids': {
        const loaded = await entry.association.load(docs, options.ctx);
        return loaded.map((value) => idsOf(value, entry.association.many === true));
      }
      case 'nested':
        return this.renderNested(entry.association, entry.selection, docs, options);
      default:
        return null;
    }
  }

  /** Loads an association for all docs and renders every loaded value in one pass. */
  private async renderNested(association: Association, selection: FieldSelection, docs: readonly Doc[], options: SerializeOptions): Promise<unknown[]> {
    const loaded = await association.load(docs, options.ctx);
    const flat: Doc[] = [];
    for (const value of loaded) {
      if (Array.isArray(value)) flat.push(...value);
      else if (value) flat.push(value as Doc);
    }
    const rendered = await this.renderMany(association.type, flat, selection, options);
    let next = 0;
    return loaded.map((value) => {
      if (Array.isArray(value)) return value.map(() => rendered[next++]);
      if (value) return rendered[next++];
      return association.many ? [] : null;
    });
  }
}

function idsOf(value: Doc | null | readonly Doc[] | undefined, many: boolean): unknown {
  if (Array.isArray(value)) return value.map((doc: Doc) => doc.id);
  if (value) return (value as Doc).id;
  return many ? [] : null;
}

export function renderDatetime(value: unknown, millis: boolean): unknown {
  if (typeof value !== 'number' || millis) return value;
  const iso = new Date(value).toISOString();
  return `${iso.slice(0, 19)}Z`;
}

/** Which names a selection yields for a type, in output order, resolved to their sources. */
export function buildPlan(type: ResourceType, selection: FieldSelection): PlanEntry[] {
  const explicit = selection.names;
  const wanted = new Map<string, FieldSelection | null>();
  if (selection.defaults) for (const name of type.defaults) wanted.set(name, null);
  for (const [name, nested] of explicit) wanted.set(name, nested);
  dropAlternatives(type, explicit, wanted);
  wanted.delete('id');

  const plan: PlanEntry[] = [];
  if (wanted.has('kind')) {
    // A fixed kind for the type, or (activities: one type, many kinds) the document's own `kind`.
    if (type.kind !== undefined) plan.push({ name: 'kind', source: 'kind', value: type.kind });
    else if (Object.hasOwn(type.attributes, 'kind')) plan.push({ name: 'kind', source: 'attribute' });
  }
  wanted.delete('kind');
  plan.push({ name: 'id', source: 'attribute' });

  const idsAssociations = idsAttributeIndex(type);
  for (const [name, nested] of wanted) {
    // Names come from the client: only the type's own entries count, never Object.prototype's.
    const association = ownEntry(type.associations, name);
    const compute = ownEntry(type.computed, name);
    const byIds = idsAssociations.get(name);
    if (association) {
      plan.push({ name, source: 'nested', association, selection: nested ?? DEFAULT_SELECTION });
    } else if (compute) {
      plan.push({ name, source: 'computed', compute, datetime: isDatetime(type, name) });
    } else if (byIds?.idsFromLoad) {
      plan.push({ name, source: 'loaded_ids', association: byIds });
    } else if (Object.hasOwn(type.attributes, name)) {
      plan.push({ name, source: isDatetime(type, name) ? 'datetime' : 'attribute' });
    }
  }
  return plan;
}

/** `record[name]` when `record` itself holds it (`constructor`, `__proto__`, `toString` never match). */
function ownEntry<T>(record: Readonly<Record<string, T>> | undefined, name: string): T | undefined {
  return record !== undefined && Object.hasOwn(record, name) ? record[name] : undefined;
}

function idsAttributeIndex(type: ResourceType): Map<string, Association> {
  const index = new Map<string, Association>();
  for (const association of Object.values(type.associations ?? {})) {
    if (association.ids) index.set(association.ids, association);
  }
  return index;
}

/**
 * For associations marked `alternative`, naming the nested form removes its ids attribute unless that is
 * named too (recorded: `owned_by` comes instead of `owned_by_id`); naming the ids never removes a default
 * nested form (recorded: an epic's `:default,label_id` adds `label_id` beside `label`).
 */
function dropAlternatives(type: ResourceType, explicit: ReadonlyMap<string, unknown>, wanted: Map<string, unknown>): void {
  for (const [name, association] of Object.entries(type.associations ?? {})) {
    if (!association.alternative || !association.ids) continue;
    if (explicit.has(name) && !explicit.has(association.ids)) wanted.delete(association.ids);
  }
}

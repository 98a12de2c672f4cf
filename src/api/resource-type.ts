// How a resource type tells the one serializer (api/serializer.ts) what it can render: its attributes with
// their JSON types (`datetime`: stored as integer ms, rendered ISO 8601 or ms; the OpenAPI document states
// the types, src/api/openapi/), its default field list, and its associations with batch loaders (one
// call per association per response, never per document).
//
// Example (abridged from the story type, src/api/resources/story-type.ts):
//
//   const storyType: ResourceType = {
//     name: 'story',
//     kind: 'story',
//     attributes: { id: 'integer', project_id: 'integer', name: 'string', current_state: STATE_ENUM,
//                   owner_ids: 'integer[]', label_ids: 'integer[]', owned_by_id: 'integer',
//                   accepted_at: 'datetime', created_at: 'datetime', updated_at: 'datetime' },
//     defaults: ['kind', 'id', 'project_id', 'name', 'current_state', 'owned_by_id', 'owner_ids', 'labels',
//                'created_at', 'updated_at', 'url'],
//     associations: {
//       labels: labelsAssociation(deps.labels),
//       owned_by: personAssociation(deps, 'owned_by_id', (doc) => idList(doc.owner_ids)[0]),
//       tasks: { type: 'task', many: true, ids: 'task_ids', idsFromLoad: true,
//                async load(docs) { ...one find for every story of the response... } },
//     },
//     computed: { owned_by_id: async (docs) => docs.map((doc) => idList(doc.owner_ids)[0] ?? null) },
//   };

import type { SchemaObject } from 'ajv';
import type { Doc } from '../ports/read-store.js';
import type { RenderScope } from './render-scope.js';
import type { Actor, ProjectAccess } from './route-table.js';

/** What loaders may need to know about the request (email visibility, today's iterations...). */
export interface LoadContext {
  actor: Actor | null;
  project: ProjectAccess | null;
  now: number;
  query: Readonly<Record<string, string>>;
  /** Datetimes are rendered as integer ms (`date_format=millis`, or a route fixed to ms). */
  millis: boolean;
  /** Values the loaders of this one response share (see render-scope.ts). */
  scope: RenderScope;
}

/** An association of a type rendering documents `D` (the documents it loads for are of that type). */
export interface Association<D extends Doc = Doc> {
  /** Resource type of the nested values. */
  type: string;
  /** A list (`labels`) rather than one value (`owned_by`). */
  many?: boolean;
  /** The attribute holding the ids (`owned_by_id`, `label_ids`), when the association has one. */
  ids?: string;
  /**
   * The nested form replaces the ids attribute: naming it explicitly drops the ids unless they are named
   * too (`:default,owned_by` gives `owned_by` without `owned_by_id`). Naming the ids never drops a nested
   * default (`:default,label_id` gives an epic's `label_id` beside its `label`, as recorded).
   */
  alternative?: boolean;
  /** The ids attribute is not stored on the document: `X_ids` is taken from the loaded values' ids. */
  idsFromLoad?: boolean;
  /**
   * Values for each document, aligned with `docs`: a Doc or null (one), a Doc[] (many).
   * Called once per response with every document that needs the association.
   */
  load(docs: readonly D[], ctx: LoadContext): Promise<ReadonlyArray<Doc | null | readonly Doc[]>>;
}

/**
 * An attribute computed in batch only when selected; values aligned with `docs`, emitted as they are
 * (as datetimes when its type in `attributes` is `datetime`).
 */
export type ComputedAttribute<D extends Doc = Doc> = {
  // Declared as a method so that a type's computed attributes (of its own documents) stand among every
  // type's in the registry, as its associations' `load` does.
  compute(docs: readonly D[], ctx: LoadContext): Promise<readonly unknown[]>;
}['compute'];

/**
 * The JSON type of a rendered attribute (never null: nulls are omitted). `datetime`: stored as integer
 * ms, rendered ISO 8601 with second precision (`2017-05-03T23:29:39Z`), or ms with `date_format=millis`.
 * A schema for anything else (an enumeration, an object).
 */
export type AttributeType = 'integer' | 'number' | 'string' | 'boolean' | 'datetime' | 'integer[]' | 'string[]' | SchemaObject;

/** The rendering of documents `D`: its associations and computed attributes read them typed. */
export interface ResourceType<D extends Doc = Doc> {
  /** Registry key, used as `ApiResult.type` and `Association.type`. */
  name: string;
  /** Value of `kind` in responses; absent for kind-less containers. */
  kind?: string;
  /**
   * Every attribute it renders, with its type: read from the document as it is (nulls omitted; `id` is
   * always returned), unless `computed` computes it or it is the ids of an association loaded with them.
   */
  attributes: Readonly<Record<string, AttributeType>>;
  /** Names returned for `:default` or no `fields`: attributes, `kind`, associations. */
  defaults: readonly string[];
  associations?: Readonly<Record<string, Association<D>>>;
  /** Attributes computed when selected; each is typed in `attributes`. */
  computed?: Readonly<Record<string, ComputedAttribute<D>>>;
  /**
   * Names (never defaults) whose values move with the clock rather than with the project version (a
   * story's `cycle_time_details` counts open intervals up to now): a GET naming one anywhere in its
   * `fields` is never byte-cached.
   */
  movesWithClock?: readonly string[];
}

export interface ResourceTypeRegistry {
  get(name: string): ResourceType | undefined;
  /** Every type, in registration order. */
  readonly all: readonly ResourceType[];
  /** Every type's `movesWithClock` names. */
  readonly namesMovingWithClock: ReadonlySet<string>;
}

/**
 * A registry over a fixed list of types. Programming errors refused here: a name registered twice, an
 * association to a type not registered, a computed or loaded-ids attribute without a type, a default
 * that names nothing the type renders.
 */
export function resourceTypeRegistry(types: readonly ResourceType[]): ResourceTypeRegistry {
  const byName = new Map<string, ResourceType>();
  for (const type of types) {
    if (byName.has(type.name)) throw new Error(`resource type ${type.name} registered twice`);
    byName.set(type.name, type);
  }
  for (const type of types) assertWellFormed(type, byName);
  const namesMovingWithClock = new Set(types.flatMap((type) => type.movesWithClock ?? []));
  return { get: (name) => byName.get(name), all: types, namesMovingWithClock };
}

function assertWellFormed(type: ResourceType, registered: ReadonlyMap<string, ResourceType>): void {
  const fail = (problem: string) => new Error(`resource type ${type.name}: ${problem}`);
  const typed = (name: string) => Object.hasOwn(type.attributes, name);
  for (const [name, association] of Object.entries(type.associations ?? {})) {
    if (!registered.has(association.type)) throw fail(`association ${name} names the unregistered type ${association.type}`);
    if (association.idsFromLoad && association.ids && !typed(association.ids)) throw fail(`${association.ids} has no type in attributes`);
  }
  for (const name of Object.keys(type.computed ?? {})) if (!typed(name)) throw fail(`computed ${name} has no type in attributes`);
  for (const name of type.defaults) {
    if (name !== 'kind' && !typed(name) && !Object.hasOwn(type.associations ?? {}, name)) throw fail(`default ${name} is neither an attribute nor an association`);
  }
}

/** Whether an attribute of this type is a datetime. */
export function isDatetime(type: ResourceType, name: string): boolean {
  return Object.hasOwn(type.attributes, name) && type.attributes[name] === 'datetime';
}

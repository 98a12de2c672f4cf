// How a resource type tells the one serializer (api/serializer.ts) what it can render: its attributes,
// which of them are datetimes (stored as integer ms, rendered ISO 8601 or ms), its default field list,
// and its associations with batch loaders (one call per association per response, never per document).
//
// Example (abridged from the story type, src/api/resources/story-type.ts):
//
//   const storyType: ResourceType = {
//     name: 'story',
//     kind: 'story',
//     attributes: ['id', 'project_id', 'name', 'current_state', 'owner_ids', 'label_ids', 'created_at', 'updated_at'],
//     datetimes: ['accepted_at', 'deadline', 'created_at', 'updated_at'],
//     defaults: ['kind', 'id', 'project_id', 'name', 'current_state', 'owned_by_id', 'owner_ids', 'labels',
//                'created_at', 'updated_at', 'url'],
//     associations: {
//       labels: labelsAssociation(deps.labels),
//       owned_by: personAssociation(deps, 'owned_by_id', (doc) => idList(doc['owner_ids'])[0]),
//       tasks: { type: 'task', many: true, ids: 'task_ids', idsFromLoad: true,
//                async load(docs) { ...one find for every story of the response... } },
//     },
//     computed: { owned_by_id: async (docs) => docs.map((doc) => idList(doc['owner_ids'])[0] ?? null) },
//   };

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

export interface Association {
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
  load(docs: readonly Doc[], ctx: LoadContext): Promise<ReadonlyArray<Doc | null | readonly Doc[]>>;
}

/**
 * An attribute computed in batch only when selected; values aligned with `docs`, emitted as they are
 * (as datetimes when the type lists the name in `datetimes`).
 */
export type ComputedAttribute = (docs: readonly Doc[], ctx: LoadContext) => Promise<readonly unknown[]>;

export interface ResourceType {
  /** Registry key, used as `ApiResult.type` and `Association.type`. */
  name: string;
  /** Value of `kind` in responses; absent for kind-less containers. */
  kind?: string;
  /** Attributes read from the document as they are (nulls omitted; `id` is always returned). */
  attributes: readonly string[];
  /** Attributes stored as integer ms, rendered ISO 8601 (second precision, `Z`) or ms. */
  datetimes?: readonly string[];
  /** Names returned for `:default` or no `fields`: attributes, `kind`, associations, computed. */
  defaults: readonly string[];
  associations?: Readonly<Record<string, Association>>;
  computed?: Readonly<Record<string, ComputedAttribute>>;
  /**
   * Names (never defaults) whose values move with the clock rather than with the project version (a
   * story's `cycle_time_details` counts open intervals up to now): a GET naming one anywhere in its
   * `fields` is never byte-cached.
   */
  movesWithClock?: readonly string[];
}

export interface ResourceTypeRegistry {
  get(name: string): ResourceType | undefined;
  /** Every type's `movesWithClock` names. */
  readonly namesMovingWithClock: ReadonlySet<string>;
}

/** A registry over a fixed list of types; duplicate names are a programming error. */
export function resourceTypeRegistry(types: readonly ResourceType[]): ResourceTypeRegistry {
  const byName = new Map<string, ResourceType>();
  for (const type of types) {
    if (byName.has(type.name)) throw new Error(`resource type ${type.name} registered twice`);
    byName.set(type.name, type);
  }
  const namesMovingWithClock = new Set(types.flatMap((type) => type.movesWithClock ?? []));
  return { get: (name) => byName.get(name), namesMovingWithClock };
}

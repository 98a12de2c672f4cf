// The read model behind iterations: one slim document per story with what iteration membership,
// planning and velocity need (state, type, estimate, acceptance time, creation time, priority rank),
// keyed for the reads iterations make. Iteration boundaries are NOT projected: they depend on settings
// that can change later (start date, week start day, length, overrides, time zone, a back-dated
// acceptance moving the start), so the projection keeps per-story facts and the queries compute
// membership from the settings of the moment. A settings change therefore never needs a rebuild.
//
// `plan_key` (indexed) groups the stories the way iterations read them, so a read touches only the
// stories it needs, whatever the size of the project:
//   `<project>:o`         scheduled and not accepted (Current and Backlog planning)
//   `<project>:u`         unscheduled (the Icebox; never in an iteration)
//   `<project>:a:<week>`  accepted, by UTC week of accepted_at (weeks since the epoch): done iterations
//                         and velocity read the weeks their span covers.
// `acceptance_key` (indexed, accepted stories only) is `<project>:<accepted_at, 15 digits>`: the project's
// start moves back to its earliest acceptance, the first key of the project's range below the start (one
// index entry, whatever the number of acceptances). `accepted_at` is indexed too (ranges of done weeks).
// A story leaves `accepted` exactly when its accepted_at is cleared (story-rules.ts), so every change
// that moves a story between groups carries current_state or accepted_at.
import { projectIdOfStream, type RecordedEvent, type ResourceChange, type Values } from '../../domain/events.js';
import type { Doc, WriteOp } from '../../ports/read-store.js';
import type { ProjectedWrite, Projection } from '../projection.js';

export const ITERATION_STORIES = 'iteration_stories';

const WEEK_MS = 7 * 86_400_000;

/** The story attributes this model keeps. */
const KEPT = ['current_state', 'story_type', 'estimate', 'accepted_at', 'created_at'] as const;

/** Digits of an acceptance time in `acceptance_key` (ms up to the year 33658). */
const ACCEPTANCE_DIGITS = 15;

/**
 * The key of an acceptance at `at` (ms) in project `projectId`: within one project, keys sort as the
 * times do, and a project's keys are one range (`acceptanceKey(p, from)` to `acceptanceKey(p, to)`).
 */
export function acceptanceKey(projectId: number, at: number): string {
  const clamped = Math.min(Math.max(0, Math.floor(at)), 10 ** ACCEPTANCE_DIGITS - 1);
  return `${projectId}:${String(clamped).padStart(ACCEPTANCE_DIGITS, '0')}`;
}

/** UTC week of an instant (weeks since 1970-01-01). */
export function utcWeekOf(at: number): number {
  return Math.floor(at / WEEK_MS);
}

export function openPlanKey(projectId: number): string {
  return `${projectId}:o`;
}

export function acceptedPlanKey(projectId: number, week: number): string {
  return `${projectId}:a:${week}`;
}

/** The keys of the accepted stories whose accepted_at may lie in [from, to). */
export function acceptedPlanKeys(projectId: number, from: number, to: number): string[] {
  const keys: string[] = [];
  for (let week = utcWeekOf(from); week <= utcWeekOf(to - 1); week++) keys.push(acceptedPlanKey(projectId, week));
  return keys;
}

/** The group of a change's new values, or undefined when the change does not move the story between groups. */
function planKeyOf(projectId: number, values: Values): string | undefined {
  if (typeof values['accepted_at'] === 'number') return acceptedPlanKey(projectId, utcWeekOf(values['accepted_at']));
  const state = values['current_state'];
  if (typeof state !== 'string' || state === 'accepted') return undefined;
  return state === 'unscheduled' ? `${projectId}:u` : openPlanKey(projectId);
}

type Pending = { type: 'create'; doc: Doc } | { type: 'update'; set: Values; unset: Set<string> } | { type: 'delete' };

function keptValues(values: Values | undefined): { set: Values; unset: string[] } {
  const set: Values = {};
  const unset: string[] = [];
  for (const key of KEPT) {
    if (!values || !(key in values)) continue;
    if (values[key] === null || values[key] === undefined) unset.push(key);
    else set[key] = values[key];
  }
  return { set, unset };
}

function writeOf(change: ResourceChange, projectId: number, earlier: Pending | undefined): Pending {
  if (change.change_type === 'delete') return { type: 'delete' };
  const { set, unset } = keptValues(change.new_values);
  if (change.rank !== undefined) set['rank'] = change.rank;
  const planKey = planKeyOf(projectId, change.new_values ?? {});
  if (planKey !== undefined) set['plan_key'] = planKey;
  if (typeof set['accepted_at'] === 'number') set['acceptance_key'] = acceptanceKey(projectId, set['accepted_at']);
  if (unset.includes('accepted_at')) unset.push('acceptance_key');
  if (change.change_type === 'create') return { type: 'create', doc: { ...set, id: change.id, project_id: projectId } };
  if (earlier?.type === 'create') {
    const doc: Doc = { ...earlier.doc, ...set };
    for (const key of unset) delete doc[key];
    return { type: 'create', doc };
  }
  if (earlier?.type === 'update') {
    for (const key of Object.keys(set)) earlier.unset.delete(key);
    for (const key of unset) delete earlier.set[key];
    return { type: 'update', set: { ...earlier.set, ...set }, unset: new Set([...earlier.unset, ...unset]) };
  }
  return earlier?.type === 'delete' ? earlier : { type: 'update', set, unset: new Set(unset) };
}

function opOf(id: number, projectId: number, pending: Pending): WriteOp | null {
  if (pending.type === 'create') return { op: 'replace', filter: { id }, doc: pending.doc, upsert: true };
  if (pending.type === 'delete') return { op: 'delete', filter: { id, project_id: projectId } };
  const update: Record<string, unknown> = {};
  if (Object.keys(pending.set).length > 0) update['$set'] = pending.set;
  if (pending.unset.size > 0) update['$unset'] = Object.fromEntries([...pending.unset].map((key) => [key, '']));
  return Object.keys(update).length > 0 ? { op: 'update', filter: { id, project_id: projectId }, update } : null;
}

function apply(event: RecordedEvent): ProjectedWrite[] {
  const projectId = projectIdOfStream(event.stream);
  if (projectId === null) return [];
  const pendings = new Map<number, Pending>();
  for (const change of event.data.changes) {
    if (change.kind !== 'story') continue;
    pendings.set(change.id, writeOf(change, projectId, pendings.get(change.id)));
  }
  const ops: WriteOp[] = [];
  for (const [id, pending] of pendings) {
    const op = opOf(id, projectId, pending);
    if (op) ops.push(op);
  }
  return ops.length > 0 ? [{ collection: ITERATION_STORIES, ops }] : [];
}

export const iterationStoriesProjection: Projection = {
  name: 'iterations',
  version: 3, // 2: whole-second datetimes (event schema 2); 3: acceptance_key
  collections: [
    { name: ITERATION_STORIES, indexes: [{ field: 'plan_key' }, { field: 'project_id' }, { field: 'accepted_at' }, { field: 'acceptance_key' }] },
  ],
  apply,
};

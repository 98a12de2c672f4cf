// The keywords of the search grammar (facts §5.2), each spelling mapped to the term it reads, plus the
// keywords the grammar names but this server refuses (with why). Values of flags and enumerations are
// listed here so the parser, the printer and the error texts share them.
import type { DateField, DateMode, StoryFlag, ValueField } from './search-ast.js';

export type KeywordReading =
  | { read: 'words'; field: 'name' | 'description' }
  | { read: 'values'; field: ValueField }
  | { read: 'numbers'; field: 'id' | 'estimate' }
  | { read: 'flags'; field: 'has' | 'no' | 'is' }
  | { read: 'date'; field: DateField; mode: DateMode }
  | { read: 'includedone' }
  | { read: 'refused'; reason: string };

const dateKeywords = (field: DateField, spellings: Record<DateMode, string[]>): Array<[string, KeywordReading]> =>
  (Object.keys(spellings) as DateMode[]).flatMap((mode) => spellings[mode].map((spelling): [string, KeywordReading] => [spelling, { read: 'date', field, mode }]));

const NO_INTEGRATIONS = 'integrations are not kept by this server';

/** Lower-case keyword (without the colon) -> what it reads. */
export const KEYWORDS: ReadonlyMap<string, KeywordReading> = new Map<string, KeywordReading>([
  ['name', { read: 'words', field: 'name' }],
  ['description', { read: 'words', field: 'description' }],
  ['state', { read: 'values', field: 'state' }],
  ['type', { read: 'values', field: 'type' }],
  ['label', { read: 'values', field: 'label' }],
  ['epic', { read: 'values', field: 'epic' }],
  ['epics', { read: 'values', field: 'epic' }],
  ['owner', { read: 'values', field: 'owner' }],
  ['owned_by', { read: 'values', field: 'owner' }],
  ['requester', { read: 'values', field: 'requester' }],
  ['requested_by', { read: 'values', field: 'requester' }],
  ['mywork', { read: 'values', field: 'mywork' }],
  ['external_id', { read: 'values', field: 'external_id' }],
  ['id', { read: 'numbers', field: 'id' }],
  ['estimate', { read: 'numbers', field: 'estimate' }],
  ['has', { read: 'flags', field: 'has' }],
  ['no', { read: 'flags', field: 'no' }],
  ['is', { read: 'flags', field: 'is' }],
  ['includedone', { read: 'includedone' }],
  ...dateKeywords('created', { on: ['created', 'created_on'], since: ['created_since', 'created_after'], before: ['created_before'] }),
  ...dateKeywords('updated', {
    on: ['updated', 'updated_on'],
    since: ['updated_since', 'modified_since', 'updated_after'],
    before: ['updated_before'],
  }),
  ...dateKeywords('accepted', { on: ['accepted', 'accepted_on'], since: ['accepted_since', 'accepted_after'], before: ['accepted_before'] }),
  ['review', { read: 'values', field: 'review' }],
  ['review_status', { read: 'values', field: 'review_status' }],
  ['reviewer', { read: 'values', field: 'reviewer' }],
  ['integration', { read: 'refused', reason: NO_INTEGRATIONS }],
]);

export const STORY_STATES: readonly string[] = ['unscheduled', 'unstarted', 'planned', 'started', 'finished', 'delivered', 'accepted', 'rejected'];
export const STORY_TYPES: readonly string[] = ['feature', 'bug', 'chore', 'release'];

/** Accepted spellings of each flag, per keyword. */
const BLOCKED = ['blocked', 'blocker', 'blockers'];
const PRESENCE_FLAGS: ReadonlyMap<string, StoryFlag> = new Map<string, StoryFlag>([
  ...BLOCKED.map((spelling): [string, StoryFlag] => [spelling, 'blocked']),
  ['blocking', 'blocking'],
  ['label', 'label'],
  ['labels', 'label'],
  ['owner', 'owner'],
  ['owners', 'owner'],
  ['attachment', 'attachment'],
  ['attachments', 'attachment'],
  ['external_id', 'external_id'],
  ['epic', 'epic'],
  ['epics', 'epic'],
]);
export const FLAG_SPELLINGS: Readonly<Record<'has' | 'no' | 'is', ReadonlyMap<string, StoryFlag>>> = {
  has: PRESENCE_FLAGS,
  no: PRESENCE_FLAGS,
  is: new Map<string, StoryFlag>([...BLOCKED.map((spelling): [string, StoryFlag] => [spelling, 'blocked']), ['blocking', 'blocking'], ['following', 'following']]),
};

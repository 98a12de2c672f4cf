// The abstract syntax of a search query (facts §5): what the parser produces, the printer prints and the
// compiler turns into a read-store filter. Values are canonical (lower-case states and types, alias
// keywords folded to one name, flags in their singular form), so two spellings of one query give one AST.

/** `a AND b`, `a b` (and) and `a OR b` (or), evaluated left to right with equal precedence (facts §5.3). */
export interface BinaryNode {
  kind: 'and' | 'or';
  left: SearchNode;
  right: SearchNode;
}

/** A leading `-`: on a term, or on a parenthesised group. */
export interface NotNode {
  kind: 'not';
  operand: SearchNode;
}

export type SearchNode = BinaryNode | NotNode | SearchTerm;

/** A word or quoted phrase; `prefix` is a bare word's trailing `*` (the star itself not in `text`). */
export interface TextWord {
  text: string;
  prefix: boolean;
}

/** Free text: matches a story's name or description. */
export interface FreeTextTerm {
  kind: 'text';
  word: TextWord;
}

/** `name:` / `description:` with comma alternatives. */
export interface WordsTerm {
  kind: 'words';
  field: 'name' | 'description';
  words: TextWord[];
}

export type ValueField =
  | 'state'
  | 'type'
  | 'label'
  | 'epic'
  | 'owner'
  | 'requester'
  | 'mywork'
  | 'external_id'
  /** A review of the type named, with that status, by that reviewer (facts §5). */
  | 'review'
  | 'review_status'
  | 'reviewer';

/** A keyword whose comma alternatives are names (labels, epics, people) or enumerated values. */
export interface ValuesTerm {
  kind: 'values';
  field: ValueField;
  /** `""` names the absence (`label:""` = no label, `owner:""` = unowned). */
  values: string[];
}

/** `id:` (story ids) and `estimate:` (points; `-1` = unestimated). */
export interface NumbersTerm {
  kind: 'numbers';
  field: 'id' | 'estimate';
  numbers: number[];
}

export type StoryFlag = 'blocked' | 'blocking' | 'following' | 'label' | 'owner' | 'attachment' | 'external_id' | 'epic';

/** `has:`, `no:` (the absence) and `is:`. */
export interface FlagsTerm {
  kind: 'flags';
  field: 'has' | 'no' | 'is';
  flags: StoryFlag[];
}

export type DateField = 'created' | 'updated' | 'accepted';

/** `created:` / `created_on:` (on), `created_since:` / `created_after:` (since), `created_before:` (before). */
export type DateMode = 'on' | 'since' | 'before';

export type DateUnit = 'hour' | 'day' | 'week' | 'month' | 'year';

export type DateValue =
  | { kind: 'day'; date: string } // YYYY-MM-DD
  | { kind: 'today' }
  | { kind: 'yesterday' }
  | { kind: 'ago'; amount: number; unit: DateUnit }; // -2w, -3days

/** One date, or a range `a..b` whose sides may be left open (`a..`, `..b`). */
export type DateSpan = { kind: 'single'; at: DateValue } | { kind: 'range'; from: DateValue | null; to: DateValue | null };

export interface DateTerm {
  kind: 'date';
  field: DateField;
  mode: DateMode;
  span: DateSpan;
}

/** `includedone:true|false`: a switch of the whole query, not a condition on a story. */
export interface IncludeDoneTerm {
  kind: 'includedone';
  value: boolean;
}

export type SearchTerm = FreeTextTerm | WordsTerm | ValuesTerm | NumbersTerm | FlagsTerm | DateTerm | IncludeDoneTerm;

/** A parsed query; null for a query with no terms (blank). */
export type SearchQuery = SearchNode | null;

// Bounds of one search query, by the names the engine uses; the numbers live in the one table of request
// limits (SEARCH_LIMITS, src/domain/input-limits.ts).
import { SEARCH_LIMITS } from '../input-limits.js';

/** Longest query accepted, in UTF-16 code units (what `string.length` counts). */
export const MAX_QUERY_LENGTH = SEARCH_LIMITS.query_length;

/** Most terms (keyword terms and free-text words) in one query: each becomes a clause of the filter. */
export const MAX_QUERY_TERMS = SEARCH_LIMITS.terms;

/** Deepest nesting of parentheses: the parser recurses once per level. */
export const MAX_QUERY_DEPTH = SEARCH_LIMITS.depth;

/** Most stories one /search answer lists. */
export const MAX_SEARCH_STORIES = SEARCH_LIMITS.listed_stories;

/** Most work one search may do in the read store (ReadBudget units), beyond which it is refused as too costly. */
export const MAX_SEARCH_WORK = SEARCH_LIMITS.work;

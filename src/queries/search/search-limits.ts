// Bounds of one search query (the `query` of /search, the `filter` of the stories and epics lists, a
// saved search). They keep parsing linear and shallow and the compiled read-store filter small. The
// harden-api branch adds its own filter limits in api/; the lead unifies both on merge.

/** Longest query accepted, in UTF-16 code units (what `string.length` counts). */
export const MAX_QUERY_LENGTH = 20_000;

/** Most terms (keyword terms and free-text words) in one query: each becomes a clause of the filter. */
export const MAX_QUERY_TERMS = 200;

/** Deepest nesting of parentheses: the parser recurses once per level. */
export const MAX_QUERY_DEPTH = 32;

/** Most stories one /search answer lists (the real service's UI showed at most 500 per project). */
export const MAX_SEARCH_STORIES = 500;

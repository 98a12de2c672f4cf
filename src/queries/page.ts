// One page of a paginated list (facts §3): `limit` items from `offset`, and the four numbers the
// pagination headers carry. Every paginated GET takes its page from api/page-params.ts.

export const DEFAULT_PAGE_LIMIT = 100;
/** Larger limits are reduced to this, not refused (facts §3: clients asking 10000 got 500). */
export const MAX_PAGE_LIMIT = 500;

export interface Page {
  limit: number;
  offset: number;
}

export interface Pagination {
  total: number;
  limit: number;
  offset: number;
  returned: number;
}

export interface Paged<T> {
  value: T[];
  pagination: Pagination;
}

/** The page of `items` (all of the list, in order). */
export function paginate<T>(items: readonly T[], page: Page): Paged<T> {
  const value = page.limit === 0 ? [] : items.slice(page.offset, page.offset + page.limit);
  return { value, pagination: paginationOf(items.length, page, value.length) };
}

export function paginationOf(total: number, page: Page, returned: number): Pagination {
  return { total, limit: page.limit, offset: page.offset, returned };
}

// The candidates of a filter in the memory read store: the ids its narrowing (memory-filter.ts) admits,
// found through `id` and the collection's hash indexes before any document is evaluated. A conjunction
// walks its smallest part and keeps the ids every other part holds (intersection; a part holding half
// the collection or more is left to the filter, it would cost more to ask than it removes); a disjunction
// narrows only when each branch does (union). Candidates are a superset of the matches: the filter
// still decides on each.
import type { Narrowing } from './memory-filter.js';
import type { HashIndex } from './memory-index.js';

export interface CandidatePlan {
  /** An upper bound of how many ids `ids()` yields. */
  size: number;
  ids(): Iterable<number>;
  has(id: number): boolean;
}

/** The plan of a narrowing over a collection of `total` documents with these indexes, or null (scan). */
export function candidatePlan(narrowing: Narrowing, indexes: ReadonlyMap<string, HashIndex>, total: number): CandidatePlan | null {
  const planOf = (part: Narrowing) => candidatePlan(part, indexes, total);
  switch (narrowing.kind) {
    case 'keys':
      return narrowing.field === 'id' ? idPlan(narrowing.values) : indexPlan(indexes.get(narrowing.field), narrowing.values);
    case 'range': {
      const index = indexes.get(narrowing.field);
      return index ? indexPlan(index, index.keysWithin(narrowing.low, narrowing.high)) : null;
    }
    case 'all':
      return intersection(narrowing.parts.map(planOf).filter((plan): plan is CandidatePlan => plan !== null), total);
    case 'any': {
      const branches = narrowing.parts.map(planOf);
      return branches.every((branch) => branch !== null) ? union(branches as CandidatePlan[]) : null;
    }
  }
}

function idPlan(values: readonly unknown[]): CandidatePlan {
  const ids = new Set(values.filter((value): value is number => typeof value === 'number'));
  return { size: ids.size, ids: () => ids, has: (id) => ids.has(id) };
}

function indexPlan(index: HashIndex | undefined, values: readonly unknown[]): CandidatePlan | null {
  if (!index) return null;
  return { size: index.estimate(values), ids: () => index.candidates(values), has: (id) => index.holds(values, id) };
}

function intersection(plans: CandidatePlan[], total: number): CandidatePlan | null {
  if (plans.length <= 1) return plans[0] ?? null;
  const [smallest, ...rest] = [...plans].sort((a, b) => a.size - b.size);
  const others = rest.filter((plan) => plan.size < total / 2);
  return {
    size: smallest!.size,
    *ids() {
      for (const id of smallest!.ids()) if (others.every((other) => other.has(id))) yield id;
    },
    has: (id) => plans.every((plan) => plan.has(id)),
  };
}

function union(branches: CandidatePlan[]): CandidatePlan {
  return {
    size: branches.reduce((sum, branch) => sum + branch.size, 0),
    ids() {
      const ids = new Set<number>();
      for (const branch of branches) for (const id of branch.ids()) ids.add(id);
      return ids;
    },
    has: (id) => branches.some((branch) => branch.has(id)),
  };
}

// A query with every repeated operand of an AND or OR chain removed, so that a query costs what its
// distinct terms cost (`bug bug bug ...` is `bug`). A chain is a run of one operator however it was
// grouped (`a b (c d)` is one AND chain of four: AND and OR are associative), and a repeat is an operand
// printed the same (the printer's canonical spelling). Each distinct operand keeps the place of its
// LAST occurrence: AND and OR do not depend on the order of their operands, except that the last
// `includedone:` term of the top-level AND chain decides (search-compiler.ts), and keeping the last
// occurrences keeps that one last. Iterative over chains, recursive only into operands that are groups
// (parentheses and negations, as deep as the parser allows).
import type { SearchNode, SearchQuery } from './search-ast.js';
import { printSearchQuery } from './search-printer.js';

export function withoutRepeats(query: SearchQuery): SearchQuery {
  return query === null ? null : nodeWithoutRepeats(query);
}

function nodeWithoutRepeats(node: SearchNode): SearchNode {
  if (node.kind === 'not') return { kind: 'not', operand: nodeWithoutRepeats(node.operand) };
  if (node.kind !== 'and' && node.kind !== 'or') return node;
  const operands = chainOperands(node).map(nodeWithoutRepeats);
  const lastAt = new Map<string, number>();
  const printed = operands.map((operand) => printSearchQuery(operand));
  printed.forEach((text, at) => lastAt.set(text, at));
  const kept = operands.filter((_, at) => lastAt.get(printed[at]!) === at);
  return kept.reduce((left, right) => ({ kind: node.kind as 'and' | 'or', left, right }));
}

/** The operands of the chain of `node`'s operator, left to right. */
export function chainOperands(node: SearchNode & { kind: 'and' | 'or' }): SearchNode[] {
  const operands: SearchNode[] = [];
  const pending: SearchNode[] = [node];
  while (pending.length > 0) {
    const next = pending.pop()!;
    if (next.kind === node.kind) pending.push(next.right, next.left);
    else operands.push(next);
  }
  return operands;
}

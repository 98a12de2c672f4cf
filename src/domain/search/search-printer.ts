// Prints an AST back as query text in canonical spelling: explicit AND / OR, parentheses only around a
// right operand that is itself an AND / OR (the grammar reads left to right), quotes only where a value
// needs them. parseSearchQuery(printSearchQuery(ast)) gives back the same AST (a property test pins it).
import type { SearchNode, SearchQuery, SearchTerm, TextWord } from './search-ast.js';
import { printDateSpan } from './search-dates.js';

const DATE_SUFFIX = { on: '', since: '_since', before: '_before' } as const;

export function printSearchQuery(query: SearchQuery): string {
  return query === null ? '' : printNode(query);
}

function printNode(node: SearchNode): string {
  switch (node.kind) {
    case 'and':
    case 'or': {
      const right = node.right.kind === 'and' || node.right.kind === 'or' ? `(${printNode(node.right)})` : printNode(node.right);
      return `${printNode(node.left)} ${node.kind.toUpperCase()} ${right}`;
    }
    case 'not': {
      const operand = node.operand;
      const grouped = operand.kind === 'and' || operand.kind === 'or' || operand.kind === 'not';
      return grouped ? `-(${printNode(operand)})` : `-${printNode(operand)}`;
    }
    default:
      return printTerm(node);
  }
}

function printTerm(term: SearchTerm): string {
  switch (term.kind) {
    case 'text':
      return printWord(term.word, freeTextIsBare);
    case 'words':
      return `${term.field}:${term.words.map((word) => printWord(word, valueIsBare)).join(',')}`;
    case 'values':
      return `${term.field}:${term.values.map((value) => (valueIsBare(value) ? value : `"${value}"`)).join(',')}`;
    case 'numbers':
      return `${term.field}:${term.numbers.map(String).join(',')}`;
    case 'flags':
      return `${term.field}:${term.flags.join(',')}`;
    case 'date':
      return `${term.field}${DATE_SUFFIX[term.mode]}:${printDateSpan(term.span)}`;
    case 'includedone':
      return `includedone:${term.value}`;
  }
}

function printWord(word: TextWord, isBare: (text: string) => boolean): string {
  if (word.prefix) return `${word.text}*`;
  return isBare(word.text) && !word.text.endsWith('*') ? word.text : `"${word.text}"`;
}

const UNSAFE_IN_VALUE = /[\s()",]/;

function valueIsBare(text: string): boolean {
  return text !== '' && !UNSAFE_IN_VALUE.test(text);
}

function freeTextIsBare(text: string): boolean {
  return (
    text !== '' &&
    !/[\s()"]/.test(text) &&
    !text.startsWith('-') &&
    text !== 'AND' &&
    text !== 'OR' &&
    !/^[A-Za-z_]+:/.test(text)
  );
}

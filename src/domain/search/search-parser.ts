// The search grammar's parser: hand-written recursive descent over the lexer's tokens, producing the
// AST of search-ast.ts. Grammar (facts §5.3):
//   query   := expr? EOF
//   expr    := unary ( ('AND' | 'OR')? unary )*      left to right, equal precedence; no operator = AND
//   unary   := '-'? primary                          date terms cannot be negated
//   primary := '(' expr ')' | term
// It recurses only into parentheses, at most MAX_QUERY_DEPTH deep, and reads every token once, so it is
// linear in the query length. Every problem is a 400 `invalid_parameter` on the caller's parameter
// (`query` or `filter`) saying what is wrong and at which character (1-based).
import { invalidField, type DomainError } from '../errors.js';
import type { SearchNode, SearchQuery } from './search-ast.js';
import { lex, type Token } from './search-lexer.js';
import { MAX_QUERY_DEPTH, MAX_QUERY_LENGTH } from './search-limits.js';
import { QuerySyntaxError } from './search-terms.js';

/** Characters no store can match on (MongoDB refuses NUL in a regex; BSON needs valid UTF-8). */
const UNREADABLE = /[\u0000-\u0008\u000e-\u001f\u007f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** A parsed subtree and where its first `includedone:` term is (null when it has none). */
interface Parsed {
  node: SearchNode;
  includeDoneAt: number | null;
}

export function parseSearchQuery(text: string, parameter: string): SearchQuery {
  try {
    if (text.length > MAX_QUERY_LENGTH) throw new QuerySyntaxError(`a query is at most ${MAX_QUERY_LENGTH} characters long`, MAX_QUERY_LENGTH);
    const unreadable = UNREADABLE.exec(text);
    if (unreadable) throw new QuerySyntaxError('a control character or a broken UTF-16 surrogate cannot be searched for', unreadable.index);
    return new Parser(lex(text), text.length).query();
  } catch (error) {
    if (error instanceof QuerySyntaxError) throw syntaxProblem(parameter, error);
    throw error;
  }
}

function syntaxProblem(parameter: string, error: QuerySyntaxError): DomainError {
  return invalidField(parameter, `Invalid search: ${error.problem} (at character ${error.at + 1}).`);
}

class Parser {
  private next = 0;

  constructor(
    private readonly tokens: readonly Token[],
    private readonly length: number,
  ) {}

  query(): SearchQuery {
    if (this.tokens.length === 0) return null;
    const parsed = this.expression(0);
    const extra = this.peek();
    if (extra) throw new QuerySyntaxError("this ')' closes no '('", extra.at);
    return parsed.node;
  }

  private peek(): Token | undefined {
    return this.tokens[this.next];
  }

  private expression(depth: number): Parsed {
    let left = this.unary(depth);
    for (let token = this.peek(); token && token.kind !== 'close'; token = this.peek()) {
      let op: 'and' | 'or' = 'and';
      if (token.kind === 'op') {
        op = token.op;
        this.next++;
        const operand = this.peek();
        if (!operand || operand.kind === 'close' || operand.kind === 'op') {
          throw new QuerySyntaxError(`${op.toUpperCase()} has nothing on its right`, token.at);
        }
      }
      const right = this.unary(depth);
      if (op === 'or') {
        const includeDoneAt = left.includeDoneAt ?? right.includeDoneAt;
        if (includeDoneAt !== null) throw new QuerySyntaxError('includedone: applies to the whole query; it cannot be an alternative of OR', includeDoneAt);
      }
      left = { node: { kind: op, left: left.node, right: right.node }, includeDoneAt: left.includeDoneAt ?? right.includeDoneAt };
    }
    return left;
  }

  private unary(depth: number): Parsed {
    const token = this.peek();
    if (token?.kind !== 'not') return this.primary(depth);
    this.next++;
    const operand = this.primary(depth);
    if (operand.node.kind === 'date') throw new QuerySyntaxError('date terms cannot be negated', token.at);
    if (operand.includeDoneAt !== null) throw new QuerySyntaxError('includedone: applies to the whole query; it cannot be negated', operand.includeDoneAt);
    return { node: { kind: 'not', operand: operand.node }, includeDoneAt: null };
  }

  private primary(depth: number): Parsed {
    const token = this.peek();
    if (!token) throw new QuerySyntaxError('the query ends where a term was expected', this.length);
    this.next++;
    switch (token.kind) {
      case 'term':
        return { node: token.term, includeDoneAt: token.term.kind === 'includedone' ? token.at : null };
      case 'open': {
        if (depth >= MAX_QUERY_DEPTH) throw new QuerySyntaxError(`parentheses nest at most ${MAX_QUERY_DEPTH} deep`, token.at);
        if (this.peek()?.kind === 'close') throw new QuerySyntaxError('empty parentheses', token.at);
        const inner = this.expression(depth + 1);
        if (this.peek()?.kind !== 'close') throw new QuerySyntaxError("this '(' is never closed", token.at);
        this.next++;
        return inner;
      }
      case 'close':
        throw new QuerySyntaxError("this ')' closes no '('", token.at);
      case 'op':
        throw new QuerySyntaxError(`${token.op.toUpperCase()} has nothing on its left`, token.at);
      case 'not':
        throw new QuerySyntaxError("a '-' must be followed directly by a term or a '('", token.at);
    }
  }
}

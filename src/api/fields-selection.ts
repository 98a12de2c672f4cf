// The `fields` query parameter grammar:
//
//   list  := item (',' item)*
//   item  := ':default' | name | name '(' list ')'
//   name  := [A-Za-z0-9_]+
//
// Spaces around items are tolerated. Anything else (empty items, unbalanced parentheses, unknown
// `:keywords`, a nested list after `:default`) is malformed and answers 400 `invalid_parameter`.

import { invalidField } from '../domain/errors.js';

export interface FieldSelection {
  /** `:default` was named at this level (or no `fields` at all). */
  defaults: boolean;
  /** Names in the order given; the value is the nested selection, or null when none was given. */
  names: Map<string, FieldSelection | null>;
}

/** The selection used when `fields` is absent, and for nested values named without a sub-list. */
export const DEFAULT_SELECTION: FieldSelection = Object.freeze({ defaults: true, names: new Map() });

const NAME_CHAR = /[A-Za-z0-9_]/;

const MEMO_LIMIT = 1000;
const memo = new Map<string, FieldSelection>();

/**
 * The parsed selection (shared between requests asking the same string, so treat it as read-only:
 * the serializer caches its plans per selection object). Throws `invalid_parameter` when malformed.
 */
export function parseFields(text: string | undefined): FieldSelection {
  if (text === undefined || text.trim() === '') return DEFAULT_SELECTION;
  const known = memo.get(text);
  if (known) return known;
  const parser = new FieldsParser(text);
  const selection = parser.list();
  parser.end();
  if (memo.size >= MEMO_LIMIT) memo.clear();
  memo.set(text, selection);
  return selection;
}

class FieldsParser {
  private at = 0;
  private depth = 0;

  constructor(private readonly text: string) {}

  list(): FieldSelection {
    const selection: FieldSelection = { defaults: false, names: new Map() };
    do {
      this.item(selection);
    } while (this.consume(','));
    return selection;
  }

  end(): void {
    this.skipSpaces();
    if (this.at < this.text.length) this.fail(`unexpected '${this.text[this.at]}'`);
  }

  private item(into: FieldSelection): void {
    this.skipSpaces();
    if (this.text.startsWith(':default', this.at)) {
      this.at += ':default'.length;
      if (this.peekNameChar()) this.fail('unknown keyword');
      into.defaults = true;
      this.skipSpaces();
      return;
    }
    const start = this.at;
    while (this.peekNameChar()) this.at++;
    if (this.at === start) this.fail('a field name was expected');
    const name = this.text.slice(start, this.at);
    let nested: FieldSelection | null = null;
    if (this.consume('(')) {
      if (++this.depth > 8) this.fail('nested too deeply');
      nested = this.list();
      if (!this.consume(')')) this.fail("')' was expected");
      this.depth--;
    }
    this.skipSpaces();
    into.names.set(name, mergeSelections(into.names.get(name) ?? null, nested));
  }

  private consume(char: string): boolean {
    this.skipSpaces();
    if (this.text[this.at] !== char) return false;
    this.at++;
    return true;
  }

  private peekNameChar(): boolean {
    const char = this.text[this.at];
    return char !== undefined && NAME_CHAR.test(char);
  }

  private skipSpaces(): void {
    while (this.text[this.at] === ' ') this.at++;
  }

  private fail(reason: string): never {
    throw invalidField('fields', `The fields parameter is malformed at character ${this.at + 1}: ${reason}.`);
  }
}

/** A name given twice (`owned_by,owned_by(name)`) selects the union of both sub-lists. */
function mergeSelections(a: FieldSelection | null, b: FieldSelection | null): FieldSelection | null {
  if (a === null) return b;
  if (b === null) return a;
  const names = new Map(a.names);
  for (const [name, nested] of b.names) names.set(name, mergeSelections(names.get(name) ?? null, nested));
  return { defaults: a.defaults || b.defaults, names };
}

/** Whether the selection names one of `names` explicitly, at any depth. */
export function namesAnyOf(selection: FieldSelection, names: ReadonlySet<string>): boolean {
  if (names.size === 0) return false;
  const pending: FieldSelection[] = [selection];
  while (pending.length > 0) {
    for (const [name, nested] of pending.pop()!.names) {
      if (names.has(name)) return true;
      if (nested) pending.push(nested);
    }
  }
  return false;
}

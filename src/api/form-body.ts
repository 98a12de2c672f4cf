// Form-encoded request bodies (`application/x-www-form-urlencoded`), which Tracker accepted as it
// accepted JSON: scripts post `name=Fix&story_type=bug&estimate=1`. The body becomes the object a JSON
// body would be, every value a string (`"1"`, `"true"`), so the one request schema reads it as it reads
// string-typed JSON values; arrays come as `label_ids[]=1&label_ids[]=2` or `labels[0][name]=ops`, and
// Rails' `labels[][name]=a&labels[][name]=b` (a new element when a key comes back, as Rack reads it) is
// rewritten to indexes before qs parses the bracket syntax. Nothing is dropped on the way: a key qs
// would skip (`__proto__`), brackets nested deeper than the bound, more values than the bounds, and
// a `[]` inside an element of a `[]` list are refused with 400 `invalid_parameter` naming the key.
import { parse } from 'qs';
import { invalidField } from '../domain/errors.js';

/** Bracket levels a key may have (`tasks[0][description]` has two). */
const MAX_DEPTH = 5;
/** Pairs in one body; the body size limit bounds it too. */
const MAX_PAIRS = 10_000;
/** Elements of one list; above every list limit of the schemas, which then name the key. */
const MAX_LIST_ELEMENTS = 1_000;

export function parseFormBody(text: string): Record<string, unknown> {
  const pairs = [...new URLSearchParams(text)];
  if (pairs.length > MAX_PAIRS) throw invalidField('body', `A form body may hold at most ${MAX_PAIRS} values.`);
  for (const [key] of pairs) assertKeyKept(key);
  const indexed = indexRailsListElements(pairs);
  const encoded = indexed.map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`).join('&');
  try {
    return parse(encoded, {
      depth: MAX_DEPTH,
      strictDepth: true,
      parameterLimit: MAX_PAIRS,
      arrayLimit: MAX_LIST_ELEMENTS,
      throwOnLimitExceeded: true,
      allowPrototypes: true,
      allowDots: false,
      parseArrays: true,
    }) as Record<string, unknown>;
  } catch (error) {
    throw invalidField('body', `The form body could not be read: ${(error as Error).message}`);
  }
}

/** The key's name before any bracket (`labels` of `labels[0][name]`). */
function baseName(key: string): string {
  const bracket = key.indexOf('[');
  return bracket <= 0 ? key : key.slice(0, bracket);
}

/** Refuses what qs would drop or garble without a word. */
function assertKeyKept(key: string): void {
  const segments = key.split(/[[\]]+/).filter((segment) => segment !== '');
  if (segments.includes('__proto__')) throw invalidField(baseName(key), `'${key}' is not a parameter of this endpoint`);
}

/**
 * Rack's reading of `list[][key]`: the pair goes into the list's last element unless that element
 * already has `key` (then a new element starts). Rewritten as `list[i][key]` for qs, which would merge
 * every such pair into one element. A second `[]` deeper in the same key is refused.
 */
function indexRailsListElements(pairs: readonly [string, string][]): [string, string][] {
  const lists = new Map<string, { index: number; keys: Set<string> }>();
  return pairs.map(([key, value]) => {
    const at = key.indexOf('[][');
    if (at === -1) return [key, value];
    const list = key.slice(0, at);
    const rest = key.slice(at + 2);
    if (rest.includes('[]')) throw invalidField(baseName(key), `'${key}' nests a list in a list element: name the elements by index.`);
    let element = lists.get(list);
    if (!element) lists.set(list, (element = { index: 0, keys: new Set() }));
    else if (element.keys.has(rest)) element = { index: element.index + 1, keys: new Set() };
    lists.set(list, element);
    element.keys.add(rest);
    return [`${list}[${element.index}]${rest}`, value];
  });
}

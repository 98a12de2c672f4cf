// Fractional order keys: strings that sort (by plain code-unit comparison, which is also MongoDB's
// binary string order for ASCII) in the order of the items they rank. Between any two keys there is
// always another key, so moving one item rewrites only that item's key.
//
// The keys are those of the `fractional-indexing` package (base 62, an integer part whose first
// character encodes its length, an optional fraction that never ends in '0'); keyBetween is its
// generateKeyBetween. keyAfter, for runs of insertions below a fixed item, is this module's own.

import { generateKeyBetween } from 'fractional-indexing';

const DIGITS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const ZERO = DIGITS[0]!;

/** The first key handed out when a list is empty. */
export const FIRST_KEY = 'a' + ZERO;

/**
 * A key strictly between `above` and `below` (null = open end). `above` must sort before `below`.
 * Both must be well-formed keys.
 */
export function keyBetween(above: string | null, below: string | null): string {
  if (above !== null && below !== null && above >= below) {
    throw new Error(`rank keys out of order: ${above} >= ${below}`);
  }
  return generateKeyBetween(above, below);
}

/** How many times keyAfter doubles the length it steps at before it settles for keyBetween. */
const MAX_DOUBLINGS = 40;

/**
 * A key strictly between `above` and `below` chosen just after `above`, leaving the rest of the gap to
 * the keys that will follow it: for a run of insertions each directly below the previous one, above a
 * fixed item (stories moving up below the last one in progress), where keyBetween halves the gap each
 * time and so grows by a character per six insertions. The fraction of `above` steps up by one unit of
 * its own length, or of twice, four times... that length when that step reaches `below`: n insertions
 * in a row make keys of O(log n) characters.
 */
export function keyAfter(above: string, below: string): string {
  const between = keyBetween(above, below);
  const integer = integerPart(above);
  if (integer !== integerPart(below)) {
    // Past `above`'s integer part: the next integer when it still sorts before `below`.
    const higher = generateKeyBetween(above, null);
    if (higher < below) return higher;
  }
  const fraction = above.slice(integer.length);
  for (let length = Math.max(fraction.length, 1), doublings = 0; doublings <= MAX_DOUBLINGS; length *= 2, doublings++) {
    const next = incrementedFraction(fraction, length);
    if (next !== null && integer + next < below) return integer + next;
  }
  return between;
}

/**
 * The next fraction of `length` digits after `fraction` that does not end in ZERO (the fraction plus one
 * unit of its `length`-th digit, plus one more when a carry left a ZERO there); null when none is left.
 */
function incrementedFraction(fraction: string, length: number): string | null {
  const digits = fraction.padEnd(length, ZERO).split('');
  for (let i = length - 1; i >= 0; i--) {
    const next = DIGITS.indexOf(digits[i]!) + 1;
    if (next < DIGITS.length) {
      digits[i] = DIGITS[next]!;
      if (digits[length - 1] === ZERO) digits[length - 1] = DIGITS[1]!;
      return digits.join('');
    }
    digits[i] = ZERO;
  }
  return null;
}

/** Whether a string is a well-formed key (one the library accepts as a bound). */
export function isKey(key: string): boolean {
  try {
    generateKeyBetween(key, null);
    return true;
  } catch {
    return false;
  }
}

/** Compares two keys in list order (for Array.prototype.sort). */
export function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The integer part of a well-formed key: 'a'..'z' head for 2..27 characters, 'Z'..'A' for 2..27. */
function integerPart(key: string): string {
  const head = key.charCodeAt(0);
  const a = 'a'.charCodeAt(0);
  const length = head >= a ? head - a + 2 : 'Z'.charCodeAt(0) - head + 2;
  return key.slice(0, length);
}

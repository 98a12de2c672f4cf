// Fractional order keys: strings that sort (by plain code-unit comparison, which is also MongoDB's
// binary string order for ASCII) in the order of the items they rank. Between any two keys there is
// always another key, so moving one item rewrites only that item's key.
//
// Layout (the well-known "fractional indexing" scheme): an integer part whose first character encodes
// its length ('a'..'z' for 2..27 characters growing upwards, 'Z'..'A' for 2..27 characters growing
// downwards), followed by an optional fraction in base 62 that never ends in '0'. Appending after the
// last key or prepending before the first one bumps the integer part, so keys of a list built by
// repeated appends (or prepends) grow logarithmically, not linearly.

const DIGITS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const ZERO = DIGITS[0]!;
const LAST_DIGIT = DIGITS[DIGITS.length - 1]!;
/** The smallest integer part; a key must not be exactly this (nothing could precede it). */
const SMALLEST_INTEGER = 'A' + ZERO.repeat(26);

/** The first key handed out when a list is empty. */
export const FIRST_KEY = 'a' + ZERO;

/**
 * A key strictly between `above` and `below` (null = open end). `above` must sort before `below`.
 * Both must be keys this module produced.
 */
export function keyBetween(above: string | null, below: string | null): string {
  if (above !== null) assertKey(above);
  if (below !== null) assertKey(below);
  if (above !== null && below !== null && above >= below) {
    throw new Error(`rank keys out of order: ${above} >= ${below}`);
  }
  if (above === null) {
    if (below === null) return FIRST_KEY;
    const integer = integerPart(below);
    const fraction = below.slice(integer.length);
    if (integer === SMALLEST_INTEGER) return integer + midpoint('', fraction);
    if (integer < below) return integer;
    const lower = decrementInteger(integer);
    if (lower === null) throw new Error('rank key space exhausted below');
    return lower;
  }
  const integerAbove = integerPart(above);
  const fractionAbove = above.slice(integerAbove.length);
  if (below === null) {
    const higher = incrementInteger(integerAbove);
    return higher === null ? integerAbove + midpoint(fractionAbove, null) : higher;
  }
  const integerBelow = integerPart(below);
  if (integerAbove === integerBelow) {
    return integerAbove + midpoint(fractionAbove, below.slice(integerBelow.length));
  }
  const higher = incrementInteger(integerAbove);
  if (higher === null) throw new Error('rank key space exhausted above');
  if (higher < below) return higher;
  return integerAbove + midpoint(fractionAbove, null);
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
  assertKey(above);
  assertKey(below);
  if (above >= below) throw new Error(`rank keys out of order: ${above} >= ${below}`);
  const integer = integerPart(above);
  if (integer !== integerPart(below)) {
    const higher = incrementInteger(integer);
    if (higher !== null && higher < below) return higher;
  }
  const fraction = above.slice(integer.length);
  for (let length = Math.max(fraction.length, 1), doublings = 0; doublings <= MAX_DOUBLINGS; length *= 2, doublings++) {
    const next = incrementedFraction(fraction, length);
    if (next !== null && integer + next < below) return integer + next;
  }
  return keyBetween(above, below);
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

/** Whether a string is a well-formed key. */
export function isKey(key: string): boolean {
  try {
    assertKey(key);
    return true;
  } catch {
    return false;
  }
}

/** Compares two keys in list order (for Array.prototype.sort). */
export function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function assertKey(key: string): void {
  if (key === SMALLEST_INTEGER) throw new Error(`invalid rank key ${key}`);
  const integer = integerPart(key);
  for (const char of key) if (!DIGITS.includes(char)) throw new Error(`invalid rank key ${key}`);
  if (key.length > integer.length && key.endsWith(ZERO)) throw new Error(`invalid rank key ${key}`);
}

function integerLength(head: string): number {
  if (head >= 'a' && head <= 'z') return head.charCodeAt(0) - 'a'.charCodeAt(0) + 2;
  if (head >= 'A' && head <= 'Z') return 'Z'.charCodeAt(0) - head.charCodeAt(0) + 2;
  throw new Error(`invalid rank key head ${head}`);
}

function integerPart(key: string): string {
  const length = integerLength(key[0] ?? '');
  if (length > key.length) throw new Error(`invalid rank key ${key}`);
  return key.slice(0, length);
}

/** A fraction strictly between two fractions (`below` null = 1). Neither ends in ZERO. */
function midpoint(above: string, below: string | null): string {
  if (below !== null) {
    let common = 0;
    while ((above[common] ?? ZERO) === below[common]) common++;
    if (common > 0) return below.slice(0, common) + midpoint(above.slice(common), below.slice(common));
  }
  const digitAbove = above ? DIGITS.indexOf(above[0]!) : 0;
  const digitBelow = below !== null ? DIGITS.indexOf(below[0]!) : DIGITS.length;
  if (digitBelow - digitAbove > 1) return DIGITS[Math.round((digitAbove + digitBelow) / 2)]!;
  if (below !== null && below.length > 1) return below.slice(0, 1);
  return DIGITS[digitAbove]! + midpoint(above.slice(1), null);
}

function incrementInteger(integer: string): string | null {
  const head = integer[0]!;
  const digits = integer.slice(1).split('');
  let carry = true;
  for (let i = digits.length - 1; carry && i >= 0; i--) {
    const next = DIGITS.indexOf(digits[i]!) + 1;
    if (next === DIGITS.length) digits[i] = ZERO;
    else {
      digits[i] = DIGITS[next]!;
      carry = false;
    }
  }
  if (!carry) return head + digits.join('');
  if (head === 'Z') return 'a' + ZERO;
  if (head === 'z') return null;
  const nextHead = String.fromCharCode(head.charCodeAt(0) + 1);
  if (nextHead > 'a') digits.push(ZERO);
  else digits.pop();
  return nextHead + digits.join('');
}

function decrementInteger(integer: string): string | null {
  const head = integer[0]!;
  const digits = integer.slice(1).split('');
  let borrow = true;
  for (let i = digits.length - 1; borrow && i >= 0; i--) {
    const next = DIGITS.indexOf(digits[i]!) - 1;
    if (next === -1) digits[i] = LAST_DIGIT;
    else {
      digits[i] = DIGITS[next]!;
      borrow = false;
    }
  }
  if (!borrow) return head + digits.join('');
  if (head === 'a') return 'Z' + LAST_DIGIT;
  if (head === 'A') return null;
  const nextHead = String.fromCharCode(head.charCodeAt(0) - 1);
  if (nextHead < 'Z') digits.push(LAST_DIGIT);
  else digits.pop();
  return nextHead + digits.join('');
}

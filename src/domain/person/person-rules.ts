// Decisions on a person stream (`person-<id>`): create and update a person's profile. No password or
// token ever appears here: secrets live in the credential store.
//
// Email and username are unique across people; both are stored lower-cased so that uniqueness and
// sign-in by either are exact look-ups. One stream cannot see the others, so
// the caller reads the `people` read model and passes what is taken; two concurrent creations with the
// same email could both pass (accepted race: people are created rarely, by an operator or an invite, and
// the command module serialises creations made by one process).
// What its deciders (create-person.ts, update-person.ts, remember-people.ts) share.
import { type ValidationError } from '../errors.js';

export const NAME_MAX_LENGTH = 100;
export const INITIALS_MAX_LENGTH = 6;
export const USERNAME_PATTERN = /^[A-Za-z0-9_.-]{1,40}$/;
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export const EMAIL_TAKEN = 'Email has already been taken.';
export const USERNAME_TAKEN = 'Username has already been taken.';

/** What is already used by other people, lower-cased. */
export interface TakenIdentities {
  emails: ReadonlySet<string>;
  usernames: ReadonlySet<string>;
}

/** "Ada Lovelace" -> "AL"; "ada" -> "A". */
export function initialsOf(name: string): string {
  const letters = name
    .split(/\s+/)
    .filter(Boolean)
    .map((word) => [...word][0]!.toUpperCase());
  return letters.slice(0, 3).join('') || '?';
}

/** The email's local part (or a plain base), made a valid username, numbered when taken: `ada`, `ada2`, ... */
export function freeUsername(email: string, taken: ReadonlySet<string>): string {
  const base = (email.split('@')[0] ?? '').replace(/[^A-Za-z0-9_.-]/g, '').slice(0, 36).toLowerCase() || 'user';
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    if (!taken.has(`${base}${n}`)) return `${base}${n}`;
  }
}

export function validEmail(value: unknown, taken: TakenIdentities, problems: ValidationError[]): string | undefined {
  if (typeof value !== 'string' || !EMAIL_PATTERN.test(value.trim()) || value.length > 255) {
    problems.push({ field: 'email', problem: 'Email is not a valid email address.' });
    return undefined;
  }
  const email = value.trim().toLowerCase();
  if (taken.emails.has(email)) problems.push({ field: 'email', problem: EMAIL_TAKEN });
  return email;
}

export function validName(value: unknown, problems: ValidationError[]): string | undefined {
  if (typeof value !== 'string' || value.trim() === '') {
    problems.push({ field: 'name', problem: "Name can't be blank" });
    return undefined;
  }
  if ([...value.trim()].length > NAME_MAX_LENGTH) {
    problems.push({ field: 'name', problem: `'name' parameter must be ${NAME_MAX_LENGTH} characters or less.` });
    return undefined;
  }
  return value.trim();
}

export function validInitials(value: unknown, problems: ValidationError[]): string | undefined {
  if (typeof value !== 'string' || value.trim() === '' || [...value.trim()].length > INITIALS_MAX_LENGTH) {
    problems.push({ field: 'initials', problem: `Initials must be 1 to ${INITIALS_MAX_LENGTH} characters.` });
    return undefined;
  }
  return value.trim();
}

export function validUsername(value: unknown, taken: TakenIdentities, problems: ValidationError[]): string | undefined {
  if (typeof value !== 'string' || !USERNAME_PATTERN.test(value)) {
    problems.push({ field: 'username', problem: 'Username must be 1 to 40 letters, digits, dots, dashes or underscores.' });
    return undefined;
  }
  const username = value.toLowerCase();
  if (taken.usernames.has(username)) problems.push({ field: 'username', problem: USERNAME_TAKEN });
  return username;
}

// Decisions on a person stream (`person-<id>`): create and update a person's profile. No password or
// token ever appears here: secrets live in the credential store.
//
// Email and username are unique across people; both are stored lower-cased so that uniqueness and
// sign-in by either are exact look-ups. One stream cannot see the others, so
// the caller reads the `people` read model and passes what is taken; two concurrent creations with the
// same email could both pass (accepted race: people are created rarely, by an operator or an invite, and
// the command module serialises creations made by one process).
import type { PersonState } from './person-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import { DomainError, invalidParameter, type ValidationError } from '../errors.js';
import type { ChangeValues } from '../events.js';
import { isKnownTimeZone, requestedTimeZoneName, timeZoneAt } from '../project/time-zone.js';

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

export interface CreatePerson {
  /** Allocated by the caller: it names the stream. */
  personId: number;
  email: unknown;
  name?: unknown;
  initials?: unknown;
  username?: unknown;
  /** Where a username is made from when none is given: this text, else the email's local part. */
  usernameBase?: string;
  taken: TakenIdentities;
}

export interface UpdatePerson {
  request: Record<string, unknown>;
  /** What OTHER people use (this person's own email and username excluded). */
  taken: TakenIdentities;
}

export function decideCreatePerson(command: CreatePerson, state: PersonState, context: DecisionContext): Decision {
  if (state.version > 0) throw new DomainError('duplicate_entry', { general_problem: 'The person already exists.' });
  const problems: ValidationError[] = [];
  const email = validEmail(command.email, command.taken, problems);
  const name = command.name === undefined || command.name === null ? nameFromEmail(email ?? '') : validName(command.name, problems);
  const initials =
    command.initials === undefined || command.initials === null ? initialsOf(name ?? '') : validInitials(command.initials, problems);
  const username =
    command.username === undefined || command.username === null
      ? freeUsername(command.usernameBase ?? email ?? '', command.taken.usernames)
      : validUsername(command.username, command.taken, problems);
  if (problems.length > 0) throw invalidParameter(problems);
  const person: ChangeValues<'person'> = {
    id: command.personId,
    name,
    initials,
    username,
    email,
    receives_in_app_notifications: true,
    has_ext_identity: false,
    twofactor_auth_enabled: false,
    created_at: context.now,
    updated_at: context.now,
  };
  return {
    type: 'person_create',
    data: {
      changes: [{ kind: 'person', change_type: 'create', id: command.personId, name: String(name), new_values: person }],
      primary_resources: [{ kind: 'person', id: command.personId, name: String(name) }],
    },
    subject: { kind: 'person', id: command.personId },
  };
}

export function decideUpdatePerson(command: UpdatePerson, state: PersonState, context: DecisionContext): Decision {
  const person = state.person();
  const request = command.request;
  const problems: ValidationError[] = [];
  const next: ChangeValues<'person'> = {};
  if ('name' in request) next['name'] = validName(request['name'], problems);
  if ('initials' in request) next['initials'] = validInitials(request['initials'], problems);
  if ('email' in request) next['email'] = validEmail(request['email'], command.taken, problems);
  if ('username' in request) next['username'] = validUsername(request['username'], command.taken, problems);
  if ('receives_in_app_notifications' in request) {
    if (typeof request['receives_in_app_notifications'] === 'boolean') {
      next['receives_in_app_notifications'] = request['receives_in_app_notifications'];
    } else problems.push({ field: 'receives_in_app_notifications', problem: "'receives_in_app_notifications' must be a boolean value" });
  }
  if ('time_zone' in request) {
    const zone = requestedTimeZoneName(request['time_zone']);
    if (zone !== undefined && isKnownTimeZone(zone)) next['time_zone'] = timeZoneAt(zone, context.now);
    else problems.push({ field: 'time_zone', problem: 'time_zone must name a known time zone, such as America/Los_Angeles.' });
  }
  if (problems.length > 0) throw invalidParameter(problems);
  const original: ChangeValues<'person'> = { updated_at: person['updated_at'] ?? null };
  const changed: ChangeValues<'person'> = { updated_at: context.now };
  for (const [key, value] of Object.entries(next)) {
    if (JSON.stringify(person[key] ?? null) === JSON.stringify(value)) continue;
    original[key] = person[key] ?? null;
    changed[key] = value;
  }
  const name = String(changed['name'] ?? person['name']);
  return {
    type: 'person_update',
    data: {
      changes: [{ kind: 'person', change_type: 'update', id: person.id, name, original_values: original, new_values: changed }],
      primary_resources: [{ kind: 'person', id: person.id, name }],
    },
    subject: { kind: 'person', id: person.id },
  };
}

export interface RememberPeople {
  /** People the person added to their known people (`POST /my/people`). */
  personIds: readonly number[];
}

/** Adds people to the person's known people (kept as `known_person_ids`, never rendered as such). */
export function decideRememberPeople(command: RememberPeople, state: PersonState, context: DecisionContext): Decision {
  const person = state.person();
  const known = Array.isArray(person['known_person_ids']) ? (person['known_person_ids'] as number[]) : [];
  const added = command.personIds.filter((id) => id !== person.id && !known.includes(id));
  const next = [...known, ...added].sort((a, b) => a - b);
  return {
    type: 'person_update',
    data: {
      changes: [
        {
          kind: 'person',
          change_type: 'update',
          id: person.id,
          name: String(person['name']),
          original_values: { known_person_ids: known, updated_at: person['updated_at'] ?? null },
          new_values: { known_person_ids: next, updated_at: context.now },
        },
      ],
      primary_resources: [{ kind: 'person', id: person.id, name: String(person['name']) }],
    },
    subject: { kind: 'person', id: person.id },
  };
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

function nameFromEmail(email: string): string {
  return email.split('@')[0] ?? email;
}

function validEmail(value: unknown, taken: TakenIdentities, problems: ValidationError[]): string | undefined {
  if (typeof value !== 'string' || !EMAIL_PATTERN.test(value.trim()) || value.length > 255) {
    problems.push({ field: 'email', problem: 'Email is not a valid email address.' });
    return undefined;
  }
  const email = value.trim().toLowerCase();
  if (taken.emails.has(email)) problems.push({ field: 'email', problem: EMAIL_TAKEN });
  return email;
}

function validName(value: unknown, problems: ValidationError[]): string | undefined {
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

function validInitials(value: unknown, problems: ValidationError[]): string | undefined {
  if (typeof value !== 'string' || value.trim() === '' || [...value.trim()].length > INITIALS_MAX_LENGTH) {
    problems.push({ field: 'initials', problem: `Initials must be 1 to ${INITIALS_MAX_LENGTH} characters.` });
    return undefined;
  }
  return value.trim();
}

function validUsername(value: unknown, taken: TakenIdentities, problems: ValidationError[]): string | undefined {
  if (typeof value !== 'string' || !USERNAME_PATTERN.test(value)) {
    problems.push({ field: 'username', problem: 'Username must be 1 to 40 letters, digits, dots, dashes or underscores.' });
    return undefined;
  }
  const username = value.toLowerCase();
  if (taken.usernames.has(username)) problems.push({ field: 'username', problem: USERNAME_TAKEN });
  return username;
}

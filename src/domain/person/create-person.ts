// Creating a person: email, name, initials and username checked, the username made when none is given.
import type { PersonState } from './person-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import { DomainError, invalidParameter, type ValidationError } from '../errors.js';
import type { ChangeValues } from '../events.js';
import { type TakenIdentities, initialsOf, freeUsername, validEmail, validName, validInitials, validUsername } from './person-rules.js';

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

function nameFromEmail(email: string): string {
  return email.split('@')[0] ?? email;
}

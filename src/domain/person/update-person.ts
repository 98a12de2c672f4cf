// Changing a person's profile; the change records only what differs.
import type { PersonState } from './person-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import { invalidParameter, type ValidationError } from '../errors.js';
import type { ChangeValues } from '../events.js';
import { isKnownTimeZone, requestedTimeZoneName, timeZoneAt } from '../project/time-zone.js';
import { type TakenIdentities, validEmail, validName, validInitials, validUsername } from './person-rules.js';

export interface UpdatePerson {
  request: Record<string, unknown>;
  /** What OTHER people use (this person's own email and username excluded). */
  taken: TakenIdentities;
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

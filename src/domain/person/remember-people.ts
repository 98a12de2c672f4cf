// Remembering the people a person has worked with (known_person_ids), for the people they may see.
import type { PersonState } from './person-state.js';
import type { Decision, DecisionContext } from '../decision.js';

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

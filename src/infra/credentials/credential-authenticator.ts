// The API's Authenticator over the credential store and the `people` read model: a token is looked up
// by its digest; a password is checked against the person found by username or email (both stored
// lower-cased). Unknown and wrong credentials give the same answer (null), after the same hashing work
// (one scrypt verification in every case), so timing does not reveal which logins exist or have a password.
// A token's person is remembered until the people read model next changes (queries/read-model-memo.ts):
// every request authenticates, and the person document rarely changes.
import type { Actor, Authenticator } from '../../ports/authenticator.js';
import type { PersonSecretsPort } from '../../ports/credentials.js';
import type { ReadModelChanges } from '../../ports/read-model-changes.js';
import type { Doc, ReadCollection } from '../../ports/read-store.js';
import { ReadModelMemo } from '../../queries/read-model-memo.js';
import { API_TOKEN_PATTERN } from './api-token.js';

/** The read model `people` stands for (what a remembered actor depends on). */
const PEOPLE = 'people';

export interface AuthenticatorDeps {
  /** The `people` read model. */
  people: Pick<ReadCollection, 'findOne'>;
  secrets: PersonSecretsPort;
  changes: ReadModelChanges;
}

export function credentialAuthenticator(deps: AuthenticatorDeps): Authenticator {
  const actors = new ReadModelMemo<number, Actor | null>(deps.changes, { dependsOn: [PEOPLE] });
  return {
    async byToken(token) {
      if (!API_TOKEN_PATTERN.test(token)) return null;
      const personId = await deps.secrets.personIdForToken(token);
      if (personId === null) return null;
      return actors.get(personId, async () => asActor(await deps.people.findOne({ id: personId })));
    },
    async byPassword(login, password) {
      const key = login.trim().toLowerCase();
      const person = (await deps.people.findOne({ username: key })) ?? (await deps.people.findOne({ email: key }));
      // One scrypt verification whatever the login: unknown, without password, or with a wrong one.
      const matches = await deps.secrets.checkPassword(person?.id ?? null, password);
      return person && matches ? asActor(person) : null;
    },
  };
}

function asActor(person: Doc | null): Actor | null {
  if (!person) return null;
  return {
    ...person,
    name: String(person['name'] ?? ''),
    email: String(person['email'] ?? ''),
    username: String(person['username'] ?? ''),
    initials: String(person['initials'] ?? ''),
  };
}

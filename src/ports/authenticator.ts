// Who calls: the API authenticates every request through this port; the composition root plugs in the
// adapter over the credential store and the `people` read model (infra/credentials/credential-authenticator.ts).
import type { Doc } from './read-store.js';

/** The authenticated person (a person read-model document). */
export type Actor = Doc & { name: string; email: string; username: string; initials: string };

export interface Authenticator {
  /** The person owning this API token, or null when the token is unknown or revoked. */
  byToken(token: string): Promise<Actor | null>;
  /** The person with this username or email and password, or null. */
  byPassword(login: string, password: string): Promise<Actor | null>;
}

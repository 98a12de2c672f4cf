// The state of a person's stream (`person-<id>`): the person's profile and workspaces, typed, as the
// person and workspace deciders read it.
import { unfound } from '../errors.js';
import { StreamState, type ResourceDoc } from '../resource-state.js';
import type { WorkspaceDoc } from '../workspace/workspace-rules.js';

/** A person's profile as stored (secrets live in the credential store, never here). */
export interface PersonDoc extends ResourceDoc {
  name: string;
  email: string;
  username: string;
  initials: string;
  known_person_ids?: number[];
}

export class PersonState extends StreamState {
  readonly people = this.collection<PersonDoc>('person');
  readonly workspaces = this.collection<WorkspaceDoc>('workspace');

  /** The id the stream is named by. */
  get personId(): number {
    return Number(this.stream.slice('person-'.length));
  }

  /** The person of the stream (its one person document); unfound before it was created. */
  person(): PersonDoc {
    const [person] = this.people;
    if (!person) throw unfound();
    return person;
  }
}

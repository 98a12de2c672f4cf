// Which class of state a stream's deciders read, by the stream's name: a ProjectState for a project
// stream, a PersonState for a person's, an AccountState for an account's, a plain StreamState for any
// other (id blocks). Every state is made here, empty or from a decision-state snapshot.
import { AccountState } from './account/account-state.js';
import type { StreamName } from './events.js';
import { PersonState } from './person/person-state.js';
import { ProjectState } from './project-state.js';
import { StreamState, type DecisionStateSnapshot } from './resource-state.js';

type StateClass = new (stream: string, from?: DecisionStateSnapshot) => StreamState;

function stateClassOf(stream: string): StateClass {
  if (stream.startsWith('project-')) return ProjectState;
  if (stream.startsWith('person-')) return PersonState;
  if (stream.startsWith('account-')) return AccountState;
  return StreamState;
}

/** The state of a stream that has no event yet (the start of every fold without a snapshot). */
export function emptyState<S extends StreamState>(stream: StreamName<S>): S {
  return new (stateClassOf(stream))(stream) as S;
}

/** The state a snapshot of the current format describes; indexes are built again on use. */
export function decisionStateOfSnapshot(snapshot: DecisionStateSnapshot): StreamState {
  return new (stateClassOf(snapshot.stream))(snapshot.stream, snapshot);
}

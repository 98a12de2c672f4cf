// The people on a story: its requester, its owners (the first one is `owned_by_id`) and its followers.
// People newly put on a story must be members of the project; people already on it stay even after
// they left the project, so an unrelated edit never fails because of them. A person who becomes the
// requester or an owner also starts following the story, as on the real service.
import type { ProjectState } from '../project-state.js';
import type { ValidationError } from '../errors.js';

/** The owner list a request asks for: `owner_ids` replaces the list, `owned_by_id` sets its head. */
export function requestedOwners(
  current: readonly number[],
  ownerIds: readonly number[] | undefined,
  ownedById: number | null | undefined,
): number[] {
  let owners = unique(ownerIds ?? current);
  if (ownedById === null && ownerIds === undefined) owners = owners.slice(1);
  if (typeof ownedById === 'number') owners = [ownedById, ...owners.filter((id) => id !== ownedById)];
  return owners;
}

/** Followers after a write: the requested list plus the people a comment of the write made followers. */
export function followersAfter(
  followers: readonly number[],
  newcomers: readonly number[],
): number[] {
  return unique([...followers, ...newcomers]);
}

/** One validation error for people in `ids` (not in `previous`) who are not project members. */
export function nonMemberProblems(
  state: ProjectState,
  field: string,
  ids: readonly number[],
  previous: readonly number[] = [],
): ValidationError[] {
  const strangers = ids.filter((id) => !previous.includes(id) && !state.isMember(id));
  if (strangers.length === 0) return [];
  return [{ field, problem: `Person ${strangers.join(', ')} is not a member of this project.` }];
}

export function unique(ids: readonly number[]): number[] {
  return [...new Set(ids)];
}

// The flags of an account membership and their defaults (Tracker's recorded memberships): the account's
// creator is its owner, a project creator and its timekeeper, and an admin only once made one; a member
// added later holds what the request gives, `timekeeper` defaulting to its `owner` flag and every other
// flag to false. Events of schema 2 recorded the creator as an admin (our old default, never a choice
// of anyone's) and had no time flags: `membershipFlagsOfSchema2` reads them under these rules.
import type { EventData, ResourceChange, Values } from '../events.js';

export const ACCOUNT_MEMBERSHIP_FLAGS = ['owner', 'admin', 'project_creator', 'timekeeper', 'time_enterer'] as const;
export type AccountMembershipFlag = (typeof ACCOUNT_MEMBERSHIP_FLAGS)[number];
export type AccountMembershipFlags = Record<AccountMembershipFlag, boolean>;

export const ACCOUNT_CREATOR_FLAGS: Readonly<AccountMembershipFlags> = {
  owner: true,
  admin: false,
  project_creator: true,
  timekeeper: true,
  time_enterer: false,
};

/** Every flag of a new membership: the requested ones, the defaults for the others. */
export function newMembershipFlags(requested: Partial<AccountMembershipFlags>): AccountMembershipFlags {
  const owner = requested.owner ?? false;
  return {
    owner,
    admin: requested.admin ?? false,
    project_creator: requested.project_creator ?? false,
    timekeeper: requested.timekeeper ?? owner,
    time_enterer: requested.time_enterer ?? false,
  };
}

/** A schema-2 event's data with its account membership creates under the rules above. */
export function membershipFlagsOfSchema2(type: string, data: EventData): EventData {
  if (type !== 'account_create' && type !== 'account_membership_create') return data;
  const changes = data.changes.map((change): ResourceChange => {
    if (change.kind !== 'account_membership' || change.change_type !== 'create' || !change.new_values) return change;
    const recorded = change.new_values;
    const flags: Values =
      type === 'account_create'
        ? { ...ACCOUNT_CREATOR_FLAGS }
        : { timekeeper: recorded['owner'] === true, time_enterer: false };
    return { ...change, new_values: { ...recorded, ...flags } };
  });
  return { ...data, changes };
}

// Project memberships: invite by `person_id` or by email (a person unknown by that email is created
// first, without a password, in its own stream; the membership event follows in the project stream).
import { decideAddMembership } from '../domain/project/add-membership.js';
import { decideChangeMembership } from '../domain/project/change-membership.js';
import { decideRemoveMembership } from '../domain/project/remove-membership.js';
import { type MemberName } from '../domain/project/membership-rules.js';
import type { ProjectRole } from '../domain/project-documents.js';
import { DomainError, invalidField } from '../domain/errors.js';
import { streams } from '../domain/events.js';
import type { Doc } from '../ports/read-store.js';
import type { CommandMeta } from './command-handler.js';
import type { ResourceWriter } from './resource-writer.js';
import type { PeopleCommands } from './people.js';
import type { ReadView } from './read-view.js';

export interface MembershipDeps {
  writer: ResourceWriter;
  memberships: ReadView;
  peopleRead: ReadView;
  people: PeopleCommands;
}

export interface MembershipOutcome {
  membership: Doc;
  version: number;
}

export class MembershipCommands {
  constructor(private readonly deps: MembershipDeps) {}

  async addMembership(projectId: number, request: Record<string, unknown>, meta: CommandMeta): Promise<MembershipOutcome> {
    const person = await this.personFor(request, meta);
    const role = (request['role'] ?? 'member') as ProjectRole;
    const color = request['project_color'];
    const command = {
      personId: person.id,
      personName: String(person['name']),
      role,
      ...(color === undefined ? {} : { projectColor: color as string }),
    };
    const { doc, version } = await this.deps.writer.onProject(projectId, decideAddMembership, command, { ...meta, commandId: `${meta.commandId}:membership` });
    return { membership: doc, version };
  }

  async changeMembership(
    projectId: number,
    membershipId: number,
    request: Record<string, unknown>,
    actorRole: ProjectRole | null,
    meta: CommandMeta,
  ): Promise<MembershipOutcome> {
    const command = { membershipId, request, actorRole, actorId: meta.actorId, ...(await this.memberName(projectId, membershipId)) };
    const { doc, version } = await this.deps.writer.onProject(projectId, decideChangeMembership, command, meta);
    return { membership: doc, version };
  }

  async removeMembership(projectId: number, membershipId: number, actorRole: ProjectRole | null, meta: CommandMeta): Promise<number> {
    const command = { membershipId, actorRole, actorId: meta.actorId, ...(await this.memberName(projectId, membershipId)) };
    return (await this.deps.writer.execute(streams.project(projectId), decideRemoveMembership, command, meta)).version;
  }

  /** The name of a membership's person, for the activity (a membership never changes its person). */
  private async memberName(projectId: number, membershipId: number): Promise<MemberName> {
    const membership = await this.deps.memberships.findOne({ project_id: projectId, id: membershipId });
    const person = membership ? await this.deps.peopleRead.findOne({ id: membership['person_id'] }) : null;
    return typeof person?.['name'] === 'string' ? { personName: person['name'] } : {};
  }

  private async personFor(request: Record<string, unknown>, meta: CommandMeta): Promise<Doc> {
    if (request['person_id'] !== undefined) {
      const person = await this.deps.peopleRead.findOne({ id: request['person_id'] });
      if (!person) throw invalidField('person_id', 'No person has this id.');
      return person;
    }
    if (request['email'] === undefined) {
      throw new DomainError('invalid_parameter', {
        general_problem: 'this endpoint requires one of the following parameters: email, person_id',
        validation_errors: [{ field: 'email', problem: "Email can't be blank" }],
      });
    }
    return this.deps.people.findOrInvite(
      { email: request['email'], name: request['name'], initials: request['initials'] },
      { ...meta, commandId: `${meta.commandId}:person` },
    );
  }
}

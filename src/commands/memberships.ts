// Project memberships: invite by `person_id` or by email (a person unknown by that email is created
// first, without a password, in its own stream; the membership event follows in the project stream).
import { addMembership, changeMembership, removeMembership, type MemberName } from '../domain/project/membership-decisions.js';
import type { ProjectRole } from '../domain/project-state.js';
import { DomainError, invalidField } from '../domain/errors.js';
import { streams } from '../domain/events.js';
import type { Doc } from '../ports/read-store.js';
import type { CommandHandler, CommandMeta } from './command-handler.js';
import type { PeopleCommands, ReadView } from './people.js';

export interface MembershipDeps {
  commands: CommandHandler;
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
    const outcome = await this.deps.commands.execute(
      streams.project(projectId),
      addMembership({
        personId: person.id,
        personName: String(person['name']),
        role,
        ...(color === undefined ? {} : { projectColor: color as string }),
      }),
      { ...meta, commandId: `${meta.commandId}:membership` },
    );
    return { membership: await this.membershipOf(projectId, { person_id: person.id }), version: outcome.version };
  }

  async changeMembership(
    projectId: number,
    membershipId: number,
    request: Record<string, unknown>,
    actorRole: ProjectRole | null,
    meta: CommandMeta,
  ): Promise<MembershipOutcome> {
    const outcome = await this.deps.commands.execute(
      streams.project(projectId),
      changeMembership({ membershipId, request, actorRole, actorId: meta.actorId, ...(await this.memberName(projectId, membershipId)) }),
      meta,
    );
    return { membership: await this.membershipOf(projectId, { id: membershipId }), version: outcome.version };
  }

  async removeMembership(projectId: number, membershipId: number, actorRole: ProjectRole | null, meta: CommandMeta): Promise<number> {
    const outcome = await this.deps.commands.execute(
      streams.project(projectId),
      removeMembership({ membershipId, actorRole, actorId: meta.actorId, ...(await this.memberName(projectId, membershipId)) }),
      meta,
    );
    return outcome.version;
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

  private async membershipOf(projectId: number, filter: Record<string, unknown>): Promise<Doc> {
    const membership = await this.deps.memberships.findOne({ project_id: projectId, ...filter });
    if (!membership) throw new DomainError('unfound_resource');
    return membership;
  }
}

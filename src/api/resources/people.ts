// People as the API shows them, and the caller's known people.
//
//   GET  /my/people     ?project_id   known_person[]: the members of that project (readable by the caller),
//                                     else everyone sharing a project with the caller plus the people the
//                                     caller added; never the caller. collaboration_factor = number of
//                                     projects shared with the caller. Sorted by name, then id.
//   POST /my/people     { emails }    invites unknown emails (people without a password), adds them all to
//                                     the caller's known people and answers their known_person entries.
//
// Email visibility: the one rule of src/queries/email-visibility.ts (the person themself, and callers who
// share a project or an account with them).
import { commandMeta } from '../command-meta.js';
import { invalidField } from '../../domain/errors.js';
import { LIST_LIMITS, TEXT_LIMITS } from '../../domain/input-limits.js';
import type { Doc } from '../../ports/read-store.js';
import type { Association, ResourceType } from '../resource-type.js';
import type { Actor, RouteDefinition } from '../route-table.js';
import { idParam } from '../project-authorization.js';
import { text } from '../request-schema.js';
import { bodyChecker } from './body-schema.js';
import type { ResourceDeps, ResourceModule } from './resource-module.js';

export const personType: ResourceType = {
  name: 'person',
  kind: 'person',
  attributes: { id: 'integer', name: 'string', email: 'string', initials: 'string', username: 'string' },
  defaults: ['kind', 'id', 'name', 'email', 'initials', 'username'],
};

/** People as a caller sees them outside one project's responses (the one email rule, src/queries/email-visibility.ts). */
export interface PersonDirectory {
  /** People by id as `actor` may see them (email removed where not visible); unknown ids are absent. */
  byIds(ids: readonly unknown[], actor: Actor | null): Promise<Map<number, Doc>>;
  /** The ids among `personIds` whose email `actor` may see. */
  emailVisibleTo(actor: Actor | null, personIds: readonly number[]): Promise<Set<number>>;
}

export function personDirectory(deps: Pick<ResourceDeps, 'queries'>): PersonDirectory {
  const seen = deps.queries.people;
  return {
    emailVisibleTo: (actor, personIds) => seen.emailVisible({ actorId: actor?.id ?? null }, personIds),
    byIds: (ids, actor) => seen.byIds({ actorId: actor?.id ?? null }, ids),
  };
}

/** An association loader for `person` from an id attribute of the documents `D` (`person_id`, `owned_by_id`, ...). */
export function personAssociation<D extends Doc>(directory: PersonDirectory, idAttribute: keyof D & string): Association<D> {
  return {
    type: 'person',
    ids: idAttribute,
    alternative: true,
    async load(docs, ctx) {
      const found = await directory.byIds(docs.map((doc) => doc[idAttribute]), ctx.actor);
      return docs.map((doc) => found.get(Number(doc[idAttribute])) ?? null);
    },
  };
}

export function peopleResources(deps: ResourceDeps): ResourceModule {
  const directory = personDirectory(deps);
  const people = deps.read('people');
  const memberships = deps.read('project_memberships');
  const checkPostBody = bodyChecker({ emails: { type: 'array', items: text(TEXT_LIMITS.email), maxItems: LIST_LIMITS.emails } });

  const knownPersonType: ResourceType = {
    name: 'known_person',
    kind: 'known_person',
    attributes: { id: 'integer', collaboration_factor: 'integer' },
    defaults: ['kind', 'person', 'collaboration_factor'],
    associations: { person: personAssociation(directory, 'person_id') },
  };

  /** known_person documents for `personIds`, with the number of projects each shares with the actor. */
  async function knownPeople(actor: Actor, personIds: readonly number[]): Promise<Doc[]> {
    const ids = [...new Set(personIds)].filter((id) => id !== actor.id);
    if (ids.length === 0) return [];
    const own = await memberships.find({ person_id: actor.id });
    const projectIds = own.map((membership) => membership.project_id);
    const shared = projectIds.length ? await memberships.find({ project_id: { $in: projectIds }, person_id: { $in: ids } }) : [];
    const factor = new Map<number, number>();
    for (const membership of shared) factor.set(Number(membership.person_id), (factor.get(Number(membership.person_id)) ?? 0) + 1);
    const docs = await people.find({ id: { $in: ids } });
    return docs
      .sort((a, b) => String(a.name).localeCompare(String(b.name)) || a.id - b.id)
      .map((person) => ({ id: person.id, person_id: person.id, collaboration_factor: factor.get(person.id) ?? 0 }));
  }

  const routes: RouteDefinition[] = [
    {
      method: 'GET',
      path: '/my/people',
      access: 'person',
      input: {
        query: { type: 'object', properties: { project_id: { type: 'integer', description: 'Only the members of this project (readable by the caller).' } } },
      },
      answers: { type: 'known_person', list: true },
      summary: 'The people the caller knows (sharing a project, or added)',
      async handle(req) {
        const actor = req.actor!;
        let ids: number[];
        let projectId: number | undefined;
        if (req.query['project_id'] !== undefined) {
          const project = await req.accessTo(idParam(req.query['project_id']), 'project:read');
          projectId = project.id;
          ids = (await memberships.find({ project_id: project.id })).map((membership) => Number(membership.person_id));
        } else {
          const own = await memberships.find({ person_id: actor.id });
          const projectIds = own.map((membership) => membership.project_id);
          const shared = projectIds.length ? await memberships.find({ project_id: { $in: projectIds } }) : [];
          const me = await people.findOne({ id: actor.id });
          const added = Array.isArray(me?.known_person_ids) ? (me.known_person_ids as number[]) : [];
          ids = [...shared.map((membership) => Number(membership.person_id)), ...added];
        }
        const value = await knownPeople(actor, ids);
        return { kind: 'resource', type: 'known_person', value, ...(projectId !== undefined ? { projectId } : {}) };
      },
    },
    {
      method: 'POST',
      path: '/my/people',
      access: 'person',
      input: { body: checkPostBody },
      answers: { type: 'known_person', list: true },
      summary: "Add people to the caller's known people by email (unknown emails are invited)",
      async handle(req) {
        const body = checkPostBody.read(req);
        const emails = body['emails'];
        if (!Array.isArray(emails) || emails.length === 0) throw invalidField('emails', "'emails' must be a non-empty array of email addresses");
        const meta = commandMeta(req);
        const ids: number[] = [];
        for (const [index, email] of emails.entries()) {
          const person = await deps.people.findOrInvite({ email }, { ...meta, commandId: `${req.commandId}:invite-${index}` });
          ids.push(person.id);
        }
        await deps.people.rememberPeople(req.actor!.id, ids, { ...meta, commandId: `${req.commandId}:remember` });
        return { kind: 'resource', type: 'known_person', value: await knownPeople(req.actor!, ids) };
      },
    },
  ];
  return { reference: { tag: 'People', description: "The people the caller knows, and inviting people by email." }, routes, types: [personType, knownPersonType] };
}

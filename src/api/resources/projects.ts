// Projects.
//
//   GET    /projects               the caller's projects (active memberships); `account_ids` (comma ints)
//   POST   /projects               any person; needs project creation permission in the account (creator,
//                                  admin or owner), or `new_account_name` to create an account first
//   GET    /projects/:project_id   members, or anyone when public; a member's GET is their view of it
//                                  (membership `last_viewed_at`)
//   PUT    /projects/:project_id   owners only; `version` increments
//   DELETE /projects/:project_id   owners only
//
// `time_zone` is rendered with its offset at the time of the request; `start_time`,
// `current_iteration_number` and `current_velocity` are the project's iteration facts at that time
// (queries/iterations: settings, overrides, back-dated acceptances, done iterations).
import { invalidField } from '../../domain/errors.js';
import { timeZoneAt } from '../../domain/project/time-zone.js';
import { analyticsReads } from '../../queries/analytics/analytics-query.js';
import { projectIterationFacts, type ProjectIterationFacts } from '../../queries/iterations/iterations-query.js';
import type { SchemaObject } from 'ajv';
import { DESCRIPTION_MAX_LENGTH, PROJECT_NAME_MAX_LENGTH, WEEKDAYS } from '../../domain/project/project-settings.js';
import type { AttributeType, LoadContext, ResourceType } from '../resource-type.js';
import type { RouteDefinition } from '../route-table.js';
import { commandMeta } from '../command-meta.js';
import { bodyChecker, type FieldType } from './body-schema.js';
import { orderedEpicDocs } from './epics.js';
import type { ResourceDeps, ResourceModule } from './resource-module.js';
import type { ProjectReadDoc } from '../../projections/documents.js';

/** A time zone as rendered (projects, people): its name and its offset at the time of the request. */
export const TIME_ZONE: SchemaObject = {
  type: 'object',
  properties: { kind: { const: 'time_zone' }, olson_name: { type: 'string' }, offset: { type: 'string', examples: ['-07:00'] } },
  additionalProperties: false,
};

const PROJECT_ATTRIBUTES = {
  id: 'integer', name: 'string', version: 'integer', iteration_length: 'integer', week_start_day: { enum: WEEKDAYS },
  point_scale: 'string', point_scale_is_custom: 'boolean', bugs_and_chores_are_estimatable: 'boolean', automatic_planning: 'boolean',
  enable_tasks: 'boolean', show_story_priority: 'boolean', show_priority_icon: 'boolean', show_priority_icon_in_all_panels: 'boolean',
  velocity_averaged_over: 'integer', number_of_done_iterations_to_show: 'integer', initial_velocity: 'integer',
  has_ext_domain: 'boolean', description: 'string', profile_content: 'string', enable_incoming_emails: 'boolean', public: 'boolean',
  atom_enabled: 'boolean', project_type: { enum: ['public', 'private'] }, start_date: { type: 'string', format: 'date' },
  created_at: 'datetime', updated_at: 'datetime', account_id: 'integer', enable_following: 'boolean', join_as: { enum: ['member', 'viewer'] },
} as const satisfies Record<string, AttributeType>;

/**
 * Fields of create and update bodies: the typed ones are coerced from strings and checked here; the
 * others (described only) are checked by the domain (domain/project/project-settings.ts), which owns
 * their rules and messages.
 */
const PROJECT_BODY: Record<string, FieldType | SchemaObject> = {
  name: { description: `The project's name, unique in its account (at most ${PROJECT_NAME_MAX_LENGTH} characters).` },
  new_account_name: { description: 'POST only: create the project in a new account of this name.' },
  week_start_day: { description: `One of ${WEEKDAYS.join(', ')}.` },
  point_scale: { description: 'Comma-separated estimates, such as 0,1,2,3 (a known scale or a custom one).' },
  time_zone: { description: 'An Olson time zone name (America/Los_Angeles), or a time_zone hash with olson_name.' },
  start_date: { description: "YYYY-MM-DD, falling on the project's week_start_day; null clears it." },
  description: { description: `At most ${DESCRIPTION_MAX_LENGTH} characters; null clears it.` },
  profile_content: { description: 'Free text; null clears it.' },
  join_as: { description: 'member or viewer: the role of people who join a public project.' },
  project_type: { description: 'public or private (the same as public: true or false).' },
  account_id: 'integer',
  no_owner: 'boolean',
  iteration_length: 'integer',
  velocity_averaged_over: 'integer',
  number_of_done_iterations_to_show: 'integer',
  initial_velocity: 'integer',
  bugs_and_chores_are_estimatable: 'boolean',
  automatic_planning: 'boolean',
  enable_tasks: 'boolean',
  show_story_priority: 'boolean',
  show_priority_icon: 'boolean',
  show_priority_icon_in_all_panels: 'boolean',
  enable_incoming_emails: 'boolean',
  public: 'boolean',
  atom_enabled: 'boolean',
};

export function projectResources(deps: ResourceDeps): ResourceModule {
  const projects = deps.read('projects');
  const accounts = deps.read('accounts');
  const memberships = deps.read('project_memberships');
  const labels = deps.read('labels');
  const epics = deps.read('epics');
  const commands = deps.projects;
  const checkBody = bodyChecker(PROJECT_BODY);
  const iterationReads = analyticsReads(deps.read, deps.readModelChanges);

  /** Each project's iteration facts, read once per response for the three attributes that show them. */
  const iterationFacts = (docs: readonly ProjectReadDoc[], ctx: LoadContext): Promise<ProjectIterationFacts[]> =>
    ctx.scope.memo(docs, 'project-iteration-facts', () => Promise.all(docs.map((doc) => projectIterationFacts(iterationReads, doc.id, ctx.now))));
  const iterationFact = (name: keyof ProjectIterationFacts) => async (docs: readonly ProjectReadDoc[], ctx: LoadContext) =>
    (await iterationFacts(docs, ctx)).map((facts) => facts[name]);

  const projectType: ResourceType<ProjectReadDoc> = {
    name: 'project',
    kind: 'project',
    attributes: {
      ...PROJECT_ATTRIBUTES, time_zone: TIME_ZONE, start_time: 'datetime', current_iteration_number: 'integer', current_velocity: 'integer',
      membership_ids: 'integer[]', label_ids: 'integer[]', epic_ids: 'integer[]',
    },
    defaults: [
      ...Object.keys(PROJECT_ATTRIBUTES).filter((name) => name !== 'join_as'),
      'kind', 'time_zone', 'start_time', 'current_iteration_number',
    ],
    associations: {
      account: {
        type: 'account_summary',
        ids: 'account_id',
        alternative: true,
        async load(docs) {
          const ids = [...new Set(docs.map((doc) => doc.account_id))];
          const found = new Map((await accounts.find({ id: { $in: ids } })).map((account) => [account.id, account]));
          return docs.map((doc) => found.get(doc.account_id) ?? null);
        },
      },
      memberships: {
        type: 'project_membership',
        many: true,
        ids: 'membership_ids',
        idsFromLoad: true,
        async load(docs) {
          const all = await memberships.find({ project_id: { $in: docs.map((doc) => doc.id) } }, { sort: { id: 1 } });
          return docs.map((doc) => all.filter((membership) => membership.project_id === doc.id));
        },
      },
      // On request only (recorded): `labels` and `label_ids` in name order, as GET .../labels lists them.
      labels: {
        type: 'label',
        many: true,
        ids: 'label_ids',
        idsFromLoad: true,
        async load(docs) {
          const all = await labels.find({ project_id: { $in: docs.map((doc) => doc.id) } }, { sort: { name: 1 } });
          return docs.map((doc) => all.filter((label) => label.project_id === doc.id));
        },
      },
      epics: {
        type: 'epic',
        many: true,
        ids: 'epic_ids',
        idsFromLoad: true,
        async load(docs) {
          const all = await orderedEpicDocs(epics, { project_id: { $in: docs.map((doc) => doc.id) } });
          return docs.map((doc) => all.filter((epic) => epic.project_id === doc.id));
        },
      },
    },
    computed: {
      time_zone: async (docs, ctx) =>
        docs.map((doc) => timeZoneAt(String((doc.time_zone as { olson_name?: string } | undefined)?.olson_name ?? 'Etc/UTC'), ctx.now)),
      start_time: iterationFact('start_time'),
      current_iteration_number: iterationFact('current_iteration_number'),
      current_velocity: iterationFact('current_velocity'),
    },
  };


  const routes: RouteDefinition[] = [
    {
      method: 'GET',
      path: '/projects',
      access: 'person',
      input: { query: { type: 'object', properties: { account_ids: { type: 'string', description: 'Comma-separated account ids: only the projects of these accounts.' } } } },
      answers: { type: 'project', list: true },
      summary: "The caller's projects",
      async handle(req) {
        const own = await memberships.find({ person_id: req.actor!.id, role: { $in: ['owner', 'member', 'viewer'] } });
        const filter: Record<string, unknown> = { id: { $in: own.map((membership) => membership.project_id) } };
        if (req.query['account_ids'] !== undefined) filter.account_id = { $in: accountIdsParam(req.query['account_ids']) };
        const value = await projects.find(filter, { sort: { id: 1 } });
        return { kind: 'resource', type: 'project', value };
      },
    },
    {
      method: 'POST',
      path: '/projects',
      access: 'person',
      input: { body: checkBody },
      answers: { type: 'project', created: true },
      summary: 'Create a project (in an account where the caller may create projects, or in a new account)',
      async handle(req) {
        const project = await commands.createProject(req.actor!.id, checkBody.read(req), commandMeta(req));
        return { kind: 'resource', type: 'project', value: project, created: true, projectId: project.id, projectVersion: Number(project.version) };
      },
    },
    {
      method: 'GET',
      path: '/projects/:project_id',
      access: 'project:read',
      countsAsView: true,
      answers: { type: 'project' },
      summary: 'A project',
      async handle(req) {
        return { kind: 'resource', type: 'project', value: req.project!.project };
      },
    },
    {
      method: 'PUT',
      path: '/projects/:project_id',
      access: 'project:owner',
      input: { body: checkBody },
      answers: { type: 'project' },
      summary: "Change a project's settings",
      async handle(req) {
        const { project, version } = await commands.updateProject(req.project!.id, checkBody.read(req), commandMeta(req));
        return { kind: 'resource', type: 'project', value: project, projectVersion: version };
      },
    },
    {
      method: 'DELETE',
      path: '/projects/:project_id',
      access: 'project:owner',
      answers: 'empty',
      summary: 'Delete a project',
      async handle(req) {
        const version = await commands.deleteProject(req.project!.id, commandMeta(req));
        return { kind: 'empty', projectVersion: version };
      },
    },
  ];
  return { reference: { tag: 'Projects', description: "Projects and their settings." }, routes, types: [projectType] };
}

function accountIdsParam(text: string): number[] {
  const parts = text.split(',').map((part) => part.trim());
  if (parts.some((part) => !/^[1-9][0-9]{0,15}$/.test(part))) {
    throw invalidField('account_ids', 'account_ids must be a comma-separated list of account ids.');
  }
  return parts.map(Number);
}


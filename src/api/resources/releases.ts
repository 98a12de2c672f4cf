// Releases: stories of type release, in the project's priority order.
//
//   GET /projects/:project_id/releases                      readers; `with_state`, date ranges, limit/offset
//                                                           (default 100, at most 500); paginated
//   GET /projects/:project_id/releases/:release_id          readers
//   GET /projects/:project_id/releases/:release_id/stories  readers; the stories between the previous
//                                                           release marker (or the top) and this one
//   GET /projects/:project_id/releases/:release_id/stories.csv   the same as CSV (release-csv.ts)
import type { Doc } from '../../ports/read-store.js';
import { apiError } from '../error-catalogue.js';
import { idParam } from '../project-authorization.js';
import { requestSchema } from '../request-schema.js';
import type { ApiRequest, RouteDefinition } from '../route-table.js';
import type { ResourceDeps, ResourceModule } from './resource-module.js';
import { releaseStoriesCsv } from './story-release-csv.js';
import { dateRangeFilter, DATE_RANGE_ATTRIBUTES, pageOf, paginate, type StoryListQuery } from './story-list-query.js';
import { orderedStories, peopleById, releaseResourceType } from './story-type.js';
import { STORY_STATES } from '../../domain/story/story-rules.js';

const checkReleaseQuery = requestSchema<StoryListQuery>({
  type: 'object',
  properties: {
    limit: { type: 'integer', minimum: 1 },
    offset: { type: 'integer', minimum: 0 },
    with_state: { enum: STORY_STATES },
    ...Object.fromEntries(
      DATE_RANGE_ATTRIBUTES.flatMap((attribute) => {
        const stem = attribute.replace(/_at$/, '');
        return [[`${stem}_before`, { type: 'string' }], [`${stem}_after`, { type: 'string' }]];
      }),
    ),
  },
});

export function releaseResources(deps: ResourceDeps): ResourceModule {
  const stories = deps.read('stories');
  const labels = deps.read('labels');
  const people = deps.read('people');
  const memberships = deps.read('project_memberships');

  async function pathRelease(req: ApiRequest): Promise<Doc> {
    const release = await stories.findOne({ id: idParam(req.params['release_id']), project_id: req.project!.id, story_type: 'release' });
    if (!release) throw apiError('unfound_resource');
    return release;
  }

  /** The stories of a release: below the previous release in the order, down to this one. */
  async function releaseStories(req: ApiRequest): Promise<Doc[]> {
    const release = await pathRelease(req);
    const ordered = await orderedStories(stories, { project_id: req.project!.id });
    const at = ordered.findIndex((doc) => doc.id === release.id);
    let start = at;
    while (start > 0 && ordered[start - 1]!['story_type'] !== 'release') start--;
    return ordered.slice(start, at);
  }

  const base = '/projects/:project_id/releases';
  const routes: RouteDefinition[] = [
    {
      method: 'GET',
      path: base,
      access: 'project:read',
      cacheable: true,
      async handle(req) {
        const query = checkReleaseQuery({ ...req.query });
        const filter: Record<string, unknown> = { project_id: req.project!.id, story_type: 'release', ...dateRangeFilter(query) };
        if (query.with_state !== undefined) filter['current_state'] = query.with_state;
        return { kind: 'resource', type: 'release', ...paginate(await orderedStories(stories, filter), pageOf(query)) };
      },
    },
    {
      method: 'GET',
      path: `${base}/:release_id`,
      access: 'project:read',
      cacheable: true,
      handle: async (req) => ({ kind: 'resource', type: 'release', value: await pathRelease(req) }),
    },
    {
      method: 'GET',
      path: `${base}/:release_id/stories`,
      access: 'project:read',
      cacheable: true,
      handle: async (req) => ({ kind: 'resource', type: 'story', value: await releaseStories(req) }),
    },
    {
      method: 'GET',
      path: `${base}/:release_id/stories.csv`,
      access: 'project:read',
      cacheable: true,
      async handle(req) {
        const release = await pathRelease(req);
        const list = await releaseStories(req);
        const [projectLabels, owners] = await Promise.all([
          labels.find({ project_id: req.project!.id }),
          peopleById({ people, memberships }, list.flatMap((doc) => (doc['owner_ids'] as number[] | undefined) ?? []), req),
        ]);
        const timeZone = String((req.project!.project['time_zone'] as { olson_name?: string } | undefined)?.olson_name ?? 'Etc/UTC');
        const csv = releaseStoriesCsv(list, {
          timeZone,
          labelName: new Map(projectLabels.map((label) => [label.id, String(label['name'])])),
          personName: new Map([...owners].map(([id, person]) => [id, String(person['name'])])),
        });
        return { kind: 'raw', contentType: 'text/csv; charset=utf-8', body: csv, filename: `release_${release.id}_stories.csv` };
      },
    },
  ];
  return { routes, types: [releaseResourceType({ labels, siteUrl: deps.settings.siteUrl })] };
}

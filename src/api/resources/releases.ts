// Releases: stories of type release, in the project's priority order.
//
//   GET /projects/:project_id/releases                      readers; `with_state`, date ranges, limit/offset
//                                                           (default 100, at most 500); paginated
//   GET /projects/:project_id/releases/:release_id          readers
//   GET /projects/:project_id/releases/:release_id/stories  readers; the stories between the previous
//                                                           release marker (or the top) and this one
//   GET /projects/:project_id/releases/:release_id/stories.csv   the same as CSV (release-csv.ts)
import type { StoryReadDoc } from '../../projections/documents.js';
import { apiError } from '../error-catalogue.js';
import { idParam } from '../project-authorization.js';
import type { ApiRequest, RouteDefinition } from '../route-table.js';
import type { ResourceDeps, ResourceModule } from './resource-module.js';
import { releaseStoriesCsv } from './story-release-csv.js';
import { RELEASE_LIST_PARAMETERS, releaseListQuery } from './story-list-query.js';
import { peopleById, releaseResourceType } from './story-type.js';
import { releaseList, releaseStories } from '../../queries/story-lists.js';

export function releaseResources(deps: ResourceDeps): ResourceModule {
  const stories = deps.read('stories');
  const labels = deps.read('labels');

  async function pathRelease(req: ApiRequest): Promise<StoryReadDoc> {
    const release = await stories.findOne({ id: idParam(req.params['release_id']), project_id: req.project!.id, story_type: 'release' });
    if (!release) throw apiError('unfound_resource');
    return release;
  }

  async function pathReleaseStories(req: ApiRequest): Promise<StoryReadDoc[]> {
    return releaseStories(stories, req.project!.id, (await pathRelease(req)).id);
  }

  const base = '/projects/:project_id/releases';
  const routes: RouteDefinition[] = [
    {
      method: 'GET',
      path: base,
      access: 'project:read',
      cacheable: true,
      input: { query: RELEASE_LIST_PARAMETERS },
      answers: { type: 'release', list: true, paginated: true },
      summary: "A project's releases, in priority order",
      async handle(req) {
        const { criteria, page } = releaseListQuery(req.query);
        return { kind: 'resource', type: 'release', ...(await releaseList(stories, req.project!.id, criteria, page)) };
      },
    },
    {
      method: 'GET',
      path: `${base}/:release_id`,
      access: 'project:read',
      cacheable: true,
      answers: { type: 'release' },
      summary: 'A release',
      handle: async (req) => ({ kind: 'resource', type: 'release', value: await pathRelease(req) }),
    },
    {
      method: 'GET',
      path: `${base}/:release_id/stories`,
      access: 'project:read',
      cacheable: true,
      answers: { type: 'story', list: true },
      summary: 'The stories of a release (between the previous release and it)',
      handle: async (req) => ({ kind: 'resource', type: 'story', value: await pathReleaseStories(req) }),
    },
    {
      method: 'GET',
      path: `${base}/:release_id/stories.csv`,
      access: 'project:read',
      cacheable: true,
      answers: { raw: 'text/csv' },
      summary: 'The stories of a release as CSV',
      async handle(req) {
        const release = await pathRelease(req);
        const list = await pathReleaseStories(req);
        const [projectLabels, owners] = await Promise.all([
          labels.find({ project_id: req.project!.id }),
          peopleById(deps.queries.people, list.flatMap((doc) => doc.owner_ids ?? []), req),
        ]);
        const timeZone = String((req.project!.project.time_zone as { olson_name?: string } | undefined)?.olson_name ?? 'Etc/UTC');
        const csv = releaseStoriesCsv(list, {
          timeZone,
          labelName: new Map(projectLabels.map((label) => [label.id, label.name])),
          personName: new Map([...owners].map(([id, person]) => [id, String(person.name)])),
        });
        return { kind: 'raw', contentType: 'text/csv; charset=utf-8', body: csv, filename: `release_${release.id}_stories.csv` };
      },
    },
  ];
  return { reference: { tag: 'Releases', description: "Releases (stories of type release) and the stories each one ships." }, routes, types: [releaseResourceType({ labels, siteUrl: deps.settings.siteUrl })] };
}

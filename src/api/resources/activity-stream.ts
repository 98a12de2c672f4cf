// A live stream of a project's activity (Server-Sent Events; the streams themselves: api/live-activity.ts).
//
//   GET /projects/:project_id/activity/stream     readers, as GET /projects/:project_id/activity
//
// Each project version with an activity is one event: `id: <version>`, `event: activity`, `data: <the
// activity item GET /projects/:id/activity shows for that version, on one line>`; `fields` and
// `date_format` shape it as they shape the feed. Where it starts:
// - `Last-Event-ID: N` (what EventSource sends when it reconnects), else `?since_version=N`: every
//   version after N first, then the live ones; never before the history window's start (as the feed);
// - neither: the versions after the one current when the stream opened.
// Choices: `token` is accepted in the query (EventSource cannot set headers) and, like everywhere,
// never logged; `envelope` does not apply (the body is a stream, not JSON); a Last-Event-ID that is
// not a whole number of 0 or more is 400 naming it; HEAD answers the headers only.
import { invalidField } from '../../domain/errors.js';
import type { LiveActivity } from '../live-activity.js';
import { EVENT_STREAM } from '../route-answer.js';
import { countParam } from '../page-params.js';
import type { ApiRequest, RouteDefinition } from '../route-table.js';
import type { Queries, ResourceModule } from './resource-module.js';

export function activityStreamResources(deps: { queries: Pick<Queries, 'activity'>; liveActivity: LiveActivity }): ResourceModule {
  const feeds = deps.queries.activity;

  async function startingAfter(req: ApiRequest): Promise<number> {
    const project = req.project!.project;
    const current = typeof project.version === 'number' ? project.version : 0;
    const asked = lastEventId(req) ?? sinceVersion(req);
    if (asked === null) return current;
    return Math.max(asked, (await feeds.firstVersionInWindow(project, req.now)) - 1);
  }

  const routes: RouteDefinition[] = [
    {
      method: 'GET',
      path: '/projects/:project_id/activity/stream',
      access: 'project:read',
      timeTravel: false,
      input: { query: STREAM_PARAMETERS },
      answers: { raw: EVENT_STREAM },
      summary: "The project's activity as it happens (Server-Sent Events), resumable with Last-Event-ID or since_version",
      async handle(req) {
        const projectId = req.project!.id;
        const after = await startingAfter(req);
        const reservation = deps.liveActivity.reserve(req.actor ? `person:${req.actor.id}` : `address:${req.clientAddress}`);
        const format = { millis: req.query['date_format'] === 'millis', ...(req.query['fields'] ? { fields: req.query['fields'] } : {}) };
        const stillAllowed = async () =>
          (await req.credentialsStillValid()) && (await req.accessTo(projectId, 'project:read').then(() => true, () => false));
        return {
          kind: 'stream',
          open: (sink) => reservation.open(sink, { projectId, after, format, stillAllowed }),
          cancel: () => reservation.release(),
        };
      },
    },
  ];
  return { routes, types: [], reference: { tag: 'Activity stream', description: "A project's activity as Server-Sent Events, one event per project version." } };
}

/** The stream's own query parameters (the `Last-Event-ID` header wins over `since_version`). */
const STREAM_PARAMETERS = {
  type: 'object',
  properties: {
    since_version: { type: 'integer', minimum: 0, description: 'Send every version after this one first, then the live ones (the Last-Event-ID header wins over it).' },
    fields: { type: 'string', description: 'The attributes of each activity item, as for the activity feed.' },
    date_format: { enum: ['millis'], description: 'Datetimes as integer milliseconds since the epoch rather than ISO 8601.' },
  },
} as const;

/** `Last-Event-ID`: a version (a whole number of 0 or more), null when absent or empty. */
function lastEventId(req: ApiRequest): number | null {
  const raw = req.header('last-event-id')?.trim();
  if (raw === undefined || raw === '') return null;
  if (!/^[0-9]{1,15}$/.test(raw)) throw invalidField('Last-Event-ID', "'Last-Event-ID' must be a project version: a whole number of 0 or more.");
  return Number(raw);
}

function sinceVersion(req: ApiRequest): number | null {
  const problems: Parameters<typeof countParam>[2] = [];
  const value = countParam(req.query, 'since_version', problems);
  if (problems.length > 0) throw invalidField('since_version', problems[0]!.problem);
  return value;
}

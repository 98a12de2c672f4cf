// A whole in-memory Storyline with one of every resource the route table reaches, for suites that walk
// every route (the fuzz suite, the `fields` prototype-name suite): an owner, a member, a viewer and an
// outsider, a project with stories, labels, tasks, a release, an epic, comments with an uploaded file and
// an ext attachment, a blocker, a review and its type, a saved search, the owner's workspace, an
// invitation of a member without a password, a webhook, and the real ids by path parameter (the
// invitation's secret as `secret`).
//
//   const world = await routeWorld();
//   for (const route of servedRoutes(world, 'GET')) await world.app.api('GET', fillPath(route.path, world.ids), { as: world.people[0] });
import { readsRawBody, type RouteDefinition } from '../../../src/api/route-table.js';
import { storylineApp, type PersonHandle, type StorylineApp } from './storyline-app.js';

export interface RouteWorld {
  app: StorylineApp;
  /** Owner, member, viewer, outsider. */
  people: PersonHandle[];
  /** Real ids by the path parameter they fit (`project_id`, `story_id`, ...). */
  ids: Record<string, string[]>;
}

export async function routeWorld(): Promise<RouteWorld> {
  // Webhooks on loopback (a closed port: deliveries fail at once and are retried behind the requests).
  const app = await storylineApp({ env: { STORYLINE_WEBHOOK_ALLOW_PRIVATE: '1' } });
  const [owner, member, viewer, outsider] = await Promise.all(['Owner', 'Member', 'Viewer', 'Outsider'].map((name) => app.person(name)));
  const project = (await app.api('POST', '/projects', { as: owner!, body: { name: 'Fuzzed', new_account_name: 'Fuzz Inc' } })).json;
  const ids: Record<string, string[]> = {
    project_id: [String(project.id)],
    account_id: [String(project.account_id)],
    person_id: [owner!, member!, viewer!, outsider!].map((person) => String(person.id)),
    membership_id: [],
    story_id: [],
    release_id: [],
    label_id: [],
    task_id: [],
    // iterations and overrides are numbered within the project; the world's first iteration is the current one
    number: ['1'],
    search_id: [],
    epic_id: [],
    comment_id: [],
    attachment_id: [],
    file_attachment_id: [],
    blocker_id: [],
    review_type_id: [],
    review_id: [],
    workspace_id: [],
    secret: [],
    webhook_id: [],
  };
  for (const [person, role] of [[member!, 'member'], [viewer!, 'viewer']] as const) {
    const membership = (await app.api('POST', `/projects/${project.id}/memberships`, { as: owner!, body: { person_id: person.id, role } })).json;
    ids['membership_id']!.push(String(membership.id));
  }
  const stories = [
    { name: 'first', labels: ['fuzz'], tasks: [{ description: 'a task' }, { description: 'another' }] },
    { name: 'second', story_type: 'bug', current_state: 'started' },
    { name: 'a release', story_type: 'release' },
  ];
  for (const story of stories) {
    const created = (await app.api('POST', `/projects/${project.id}/stories`, { as: owner!, body: story })).json;
    ids[story.story_type === 'release' ? 'release_id' : 'story_id']!.push(String(created.id));
    for (const label of created.labels ?? []) ids['label_id']!.push(String(label.id));
    const tasks = (await app.api('GET', `/projects/${project.id}/stories/${created.id}/tasks`, { as: owner! })).json;
    for (const task of Array.isArray(tasks) ? tasks : []) ids['task_id']!.push(String(task.id));
  }
  // a notification for the member (made owner by the owner), with its id and timestamp for the notification routes
  await app.api('POST', `/projects/${project.id}/stories`, { as: owner!, body: { name: 'owned', owner_ids: [member!.id] } });
  await app.storyline.reactions.waitFor(await app.storyline.eventStore.headPosition(), 'notifications');
  const notifications = (await app.api('GET', '/my/notifications', { as: member! })).json;
  ids['notification_id'] = notifications.map((notification: { id: number }) => String(notification.id));
  ids['timestamp'] = notifications.map((notification: { created_at: string }) => String(Date.parse(notification.created_at)));
  const saved = (await app.api('POST', `/projects/${project.id}/my/searches`, { as: owner!, body: { name: 'fuzzed', query: 'label:fuzz' } })).json;
  ids['search_id']!.push(String(saved.id));
  const storyId = ids['story_id']![0]!;
  const boundary = 'route-world';
  const upload = await app.api('POST', `/projects/${project.id}/uploads`, {
    as: owner!,
    headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` },
    rawBody: `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nbytes\r\n--${boundary}--\r\n`,
  });
  ids['file_attachment_id']!.push(String(upload.json.id));
  const comment = (await app.api('POST', `/projects/${project.id}/stories/${storyId}/comments?fields=id,attachment_ids`, {
    as: owner!,
    body: { text: 'hello', file_attachments: [upload.json], ext_attachments: [{ title: 'doc' }] },
  })).json;
  ids['comment_id']!.push(String(comment.id));
  ids['attachment_id']!.push(String(upload.json.id), ...(comment.attachment_ids ?? []).map(String));
  const epic = (await app.api('POST', `/projects/${project.id}/epics`, { as: owner!, body: { name: 'Fuzz epic', comments: [{ text: 'on the epic' }] } })).json;
  ids['epic_id']!.push(String(epic.id));
  const blocker = (await app.api('POST', `/projects/${project.id}/stories/${storyId}/blockers`, { as: owner!, body: { description: 'wait' } })).json;
  ids['blocker_id']!.push(String(blocker.id));
  const [reviewType] = (await app.api('GET', `/projects/${project.id}/review_types`, { as: owner! })).json;
  ids['review_type_id']!.push(String(reviewType.id));
  const review = (await app.api('POST', `/projects/${project.id}/stories/${storyId}/reviews`, { as: owner!, body: { review_type_id: reviewType.id, reviewer_id: member!.id } })).json;
  ids['review_id']!.push(String(review.id));
  const workspace = (await app.api('POST', '/my/workspaces', { as: owner!, body: { name: 'Fuzz space', project_ids: [project.id] } })).json;
  ids['workspace_id']!.push(String(workspace.id));
  const invited = (await app.api('POST', `/projects/${project.id}/memberships`, { as: owner!, body: { email: 'invited@example.com' } })).json;
  ids['membership_id']!.push(String(invited.id));
  const invitation = (await app.api('POST', `/projects/${project.id}/memberships/${invited.id}/invitation`, { as: owner! })).json;
  ids['secret']!.push(String(invitation.url).split('/').pop()!);
  const webhook = (await app.api('POST', `/projects/${project.id}/webhooks`, { as: owner!, body: { webhook_url: 'http://127.0.0.1:9/hook', secret: 's' } })).json;
  ids['webhook_id']!.push(String(webhook.id));
  return { app, people: [owner!, member!, viewer!, outsider!], ids };
}

/** The versioned JSON routes of the composition (optionally of one method). */
export function servedRoutes(world: RouteWorld, method?: RouteDefinition['method']): RouteDefinition[] {
  return world.app.storyline.routes.filter((route) => route.mount !== 'root' && !readsRawBody(route) && (method === undefined || route.method === method));
}

/** A route path with each `:param` replaced by the first real id of its kind (any id when none fits). */
export function fillPath(path: string, ids: Readonly<Record<string, string[]>>): string {
  return path.replace(/:([a-z_]+)/g, (_, name: string) => ids[name]?.[0] ?? Object.values(ids).flat()[0]!);
}

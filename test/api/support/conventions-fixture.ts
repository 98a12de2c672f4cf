// A small fake world for the conventions tests: people with tokens, a private and a public project,
// stories with owners, labels, tasks and comments, and routes that exercise every kind of result.
// Loader and handler calls are counted so tests can pin batching and caching.

import { createApp } from '../../../src/api/app.js';
import { defaultApiConfig, type ApiConfig, type AppDependencies } from '../../../src/api/app-dependencies.js';
import { resourceTypeRegistry, type ResourceType } from '../../../src/api/resource-type.js';
import type { Actor, ProjectRole, RouteDefinition } from '../../../src/api/route-table.js';
import { DomainError, invalidParameter, unfound } from '../../../src/domain/errors.js';
import type { Doc } from '../../../src/ports/read-store.js';

export const T0 = Date.UTC(2017, 4, 3, 23, 29, 39, 512);

export const people: Actor[] = [
  { id: 1, name: 'Alice Owner', email: 'alice@example.com', username: 'alice', initials: 'AO' },
  { id: 2, name: 'Bob Member', email: 'bob@example.com', username: 'bob', initials: 'BM' },
  { id: 3, name: 'Carol Viewer', email: 'carol@example.com', username: 'carol', initials: 'CV' },
  { id: 4, name: 'Dave Outsider', email: 'dave@example.com', username: 'dave', initials: 'DO' },
];
export const tokens = { alice: 'tok-alice', bob: 'tok-bob', carol: 'tok-carol', dave: 'tok-dave' };
const passwords: Record<number, string> = { 1: 'alice-password' };

export const PRIVATE = 10;
export const PUBLIC = 20;

export interface FakeWorld {
  deps: AppDependencies;
  versions: Map<number, number>;
  calls: Record<string, number>;
  logged: { message: string; details?: Record<string, unknown> }[];
  /** Runs once inside the next cacheable handler call (to simulate a concurrent write). */
  duringNextRender: (() => void) | null;
}

export function fakeWorld(config: Partial<ApiConfig> = {}): FakeWorld {
  const versions = new Map([[PRIVATE, 5], [PUBLIC, 1]]);
  const roles = new Map<string, ProjectRole>([
    [`${PRIVATE}:1`, 'owner'], [`${PRIVATE}:2`, 'member'], [`${PRIVATE}:3`, 'viewer'], [`${PUBLIC}:1`, 'owner'],
  ]);
  const projects = new Map<number, Doc>([
    [PRIVATE, { id: PRIVATE, name: 'Private', public: false, created_at: T0 }],
    [PUBLIC, { id: PUBLIC, name: 'Public', public: true, created_at: T0 }],
  ]);
  const labels: Doc[] = [
    { id: 100, project_id: PRIVATE, name: 'alpha', created_at: T0 },
    { id: 101, project_id: PRIVATE, name: 'beta', created_at: T0 },
  ];
  const stories: Doc[] = [
    { id: 500, project_id: PRIVATE, name: 'First', story_type: 'feature', estimate: 2, owned_by_id: 2, label_ids: [100, 101], created_at: T0, updated_at: T0 + 1000, description: null },
    { id: 501, project_id: PRIVATE, name: 'Second', story_type: 'bug', owned_by_id: 1, label_ids: [], created_at: T0, updated_at: T0 },
    { id: 502, project_id: PRIVATE, name: 'Third', story_type: 'chore', label_ids: [101], created_at: T0, updated_at: T0 },
  ];
  const tasks: Doc[] = [
    { id: 700, story_id: 500, description: 'one', complete: false },
    { id: 701, story_id: 500, description: 'two', complete: true },
  ];
  const comments: Doc[] = [
    { id: 800, story_id: 500, text: 'hello', person_id: 1, file_attachment_ids: [900] },
    { id: 801, story_id: 501, text: 'world', person_id: 2, file_attachment_ids: [901] },
  ];
  const attachments: Doc[] = [
    { id: 900, filename: 'a.png', uploader_id: 1, size: 10 },
    { id: 901, filename: 'b.png', uploader_id: 3, size: 20 },
  ];
  const epics: Doc[] = [{ id: 300, project_id: PRIVATE, name: 'Epic', label_id: 100 }];

  const calls: Record<string, number> = {};
  const count = (name: string) => { calls[name] = (calls[name] ?? 0) + 1; };
  const byId = (docs: Doc[], id: unknown) => docs.find((doc) => doc.id === id) ?? null;
  const bump = (projectId: number) => {
    const next = (versions.get(projectId) ?? 0) + 1;
    versions.set(projectId, next);
    return next;
  };
  const world: FakeWorld = {
    deps: undefined as unknown as AppDependencies,
    versions,
    calls,
    logged: [],
    duringNextRender: null,
  };

  const types: ResourceType[] = [
    {
      name: 'person', kind: 'person', attributes: { id: 'integer', name: 'string', email: 'string', initials: 'string', username: 'string' },
      defaults: ['kind', 'id', 'name', 'email', 'initials', 'username'],
    },
    {
      name: 'project', kind: 'project', attributes: { id: 'integer', name: 'string', public: 'boolean', created_at: 'datetime', version: 'integer' },
      defaults: ['kind', 'id', 'name', 'public', 'created_at'],
    },
    {
      name: 'label', kind: 'label', attributes: { id: 'integer', project_id: 'integer', name: 'string', created_at: 'datetime' },
      defaults: ['kind', 'id', 'project_id', 'name', 'created_at'],
    },
    { name: 'task', kind: 'task', attributes: { id: 'integer', story_id: 'integer', description: 'string', complete: 'boolean' }, defaults: ['kind', 'id', 'description', 'complete'] },
    {
      name: 'file_attachment', kind: 'file_attachment', attributes: { id: 'integer', filename: 'string', uploader_id: 'integer', size: 'integer' },
      defaults: ['kind', 'id', 'filename', 'uploader_id', 'size'],
      associations: {
        uploader: {
          type: 'person', ids: 'uploader_id', alternative: true,
          load: async (docs) => { count('load:uploader'); return docs.map((doc) => byId(people, doc.uploader_id)); },
        },
      },
    },
    {
      name: 'comment', kind: 'comment', attributes: { id: 'integer', story_id: 'integer', text: 'string', person_id: 'integer', file_attachment_ids: 'integer[]' },
      defaults: ['kind', 'id', 'story_id', 'text', 'person_id'],
      associations: {
        file_attachments: {
          type: 'file_attachment', many: true, ids: 'file_attachment_ids',
          load: async (docs) => {
            count('load:file_attachments');
            return docs.map((doc) => (doc.file_attachment_ids as number[]).map((id) => byId(attachments, id)!));
          },
        },
      },
    },
    {
      name: 'story', kind: 'story',
      attributes: {
        id: 'integer', project_id: 'integer', name: 'string', description: 'string', story_type: 'string', estimate: 'number', owned_by_id: 'integer',
        label_ids: 'integer[]', created_at: 'datetime', updated_at: 'datetime', accepted_at: 'datetime', task_ids: 'integer[]', comment_ids: 'integer[]',
        url: 'string',
      },
      defaults: ['kind', 'id', 'project_id', 'name', 'description', 'story_type', 'estimate', 'owned_by_id', 'labels', 'created_at', 'updated_at', 'accepted_at'],
      associations: {
        owned_by: {
          type: 'person', ids: 'owned_by_id', alternative: true,
          load: async (docs) => { count('load:owned_by'); return docs.map((doc) => byId(people, doc.owned_by_id)); },
        },
        labels: {
          type: 'label', many: true, ids: 'label_ids',
          load: async (docs) => { count('load:labels'); return docs.map((doc) => ((doc.label_ids as number[]) ?? []).map((id) => byId(labels, id)!)); },
        },
        tasks: {
          type: 'task', many: true, ids: 'task_ids', idsFromLoad: true,
          load: async (docs) => { count('load:tasks'); return docs.map((doc) => tasks.filter((task) => task.story_id === doc.id)); },
        },
        comments: {
          type: 'comment', many: true, ids: 'comment_ids', idsFromLoad: true,
          load: async (docs) => { count('load:comments'); return docs.map((doc) => comments.filter((c) => c.story_id === doc.id)); },
        },
      },
      computed: {
        url: async (docs) => { count('computed:url'); return docs.map((doc) => `http://example.test/story/show/${doc.id}`); },
      },
    },
    {
      name: 'epic', kind: 'epic', attributes: { id: 'integer', project_id: 'integer', name: 'string', label_id: 'integer' }, defaults: ['kind', 'id', 'project_id', 'name', 'label'],
      associations: {
        label: { type: 'label', ids: 'label_id', alternative: true, load: async (docs) => docs.map((doc) => byId(labels, doc.label_id)) },
      },
    },
    { name: 'echo', attributes: { id: 'integer', method: 'string', body: { type: 'object' }, query: { type: 'object' }, params: { type: 'object' } }, defaults: ['id', 'method', 'body', 'query', 'params'] },
    { name: 'notification', kind: 'notification', attributes: { id: 'integer', created_at: 'datetime' }, defaults: ['kind', 'id', 'created_at'] },
  ];

  const storyIn = (projectId: number, storyId: string) => {
    const story = stories.find((s) => s.id === Number(storyId) && s.project_id === projectId);
    if (!story) throw unfound();
    return story;
  };
  const echo = (req: Parameters<RouteDefinition['handle']>[0]): Doc => ({
    id: 1, method: req.method, body: req.body, query: req.query, params: req.params,
  });

  const routes: RouteDefinition[] = [
    { method: 'GET', path: '/me', access: 'person', basicAuth: true, answers: { type: 'person' }, summary: 'me', handle: async (req) => ({ kind: 'resource', type: 'person', value: req.actor! }) },
    {
      method: 'GET', path: '/projects/:project_id', access: 'project:read', cacheable: true, answers: { type: 'project' }, summary: 'project',
      handle: async (req) => {
        count('handler:project');
        world.duringNextRender?.();
        world.duringNextRender = null;
        return { kind: 'resource', type: 'project', value: req.project!.project };
      },
    },
    {
      method: 'PUT', path: '/projects/:project_id', access: 'project:owner', answers: { type: 'project' }, summary: 'project',
      handle: async (req) => ({ kind: 'resource', type: 'project', value: req.project!.project, projectVersion: bump(req.project!.id) }),
    },
    {
      method: 'GET', path: '/projects/:project_id/stories', access: 'project:read', answers: { type: 'story', list: true, paginated: true }, summary: 'stories',
      handle: async (req) => {
        const all = stories.filter((s) => s.project_id === req.project!.id);
        const limit = Number(req.query.limit ?? 100);
        const offset = Number(req.query.offset ?? 0);
        const page = all.slice(offset, offset + limit);
        return { kind: 'resource', type: 'story', value: page, pagination: { total: all.length, limit, offset, returned: page.length } };
      },
    },
    {
      method: 'POST', path: '/projects/:project_id/stories', access: 'project:write', answers: { type: 'story', created: true }, summary: 'story',
      handle: async (req) => {
        if (typeof req.body.name !== 'string') throw invalidParameter([{ field: 'name', problem: 'is required.' }, { field: 'name', problem: 'must be a string.' }]);
        const story = { id: 599, project_id: req.project!.id, name: req.body.name, label_ids: [], created_at: req.now, updated_at: req.now };
        return { kind: 'resource', type: 'story', value: story, created: true, projectVersion: bump(req.project!.id) };
      },
    },
    {
      method: 'GET', path: '/projects/:project_id/stories/:story_id', access: 'project:read', cacheable: true, answers: { type: 'story' }, summary: 'story',
      handle: async (req) => { count('handler:story'); return { kind: 'resource', type: 'story', value: storyIn(req.project!.id, req.params.story_id!) }; },
    },
    {
      method: 'PUT', path: '/projects/:project_id/stories/:story_id', access: 'project:write', answers: { type: 'echo' }, summary: 'echo',
      handle: async (req) => ({ kind: 'resource', type: 'echo', value: echo(req), projectVersion: bump(req.project!.id) }),
    },
    {
      method: 'DELETE', path: '/projects/:project_id/stories/:story_id', access: 'project:write', answers: 'empty', summary: 'delete',
      handle: async (req) => { storyIn(req.project!.id, req.params.story_id!); return { kind: 'empty', projectVersion: bump(req.project!.id) }; },
    },
    {
      method: 'GET', path: '/stories/:story_id', access: 'person', answers: { type: 'story' }, summary: 'story',
      project: {
        level: 'project:read',
        of: async (req) => {
          const story = stories.find((s) => s.id === Number(req.params.story_id));
          if (!story) throw unfound();
          return story.project_id as number;
        },
      },
      handle: async (req) => ({ kind: 'resource', type: 'story', value: stories.find((s) => s.id === Number(req.params.story_id))! }),
    },
    { method: 'GET', path: '/projects/:project_id/epics', access: 'project:read', answers: { type: 'epic', list: true }, summary: 'epics', handle: async () => ({ kind: 'resource', type: 'epic', value: epics }) },
    {
      method: 'GET', path: '/projects/:project_id/stories.csv', access: 'project:read', answers: { raw: 'text/csv' }, summary: 'csv',
      handle: async () => ({ kind: 'raw', contentType: 'text/csv; charset=utf-8', body: 'id,name\n500,First\n', filename: 'stories.csv' }),
    },
    {
      method: 'POST', path: '/projects/:project_id/uploads', access: 'project:write', input: { body: { raw: 'multipart/form-data', schema: {} } },
      answers: { type: 'echo', created: true }, summary: 'upload',
      handle: async (req) => ({ kind: 'resource', type: 'echo', value: { id: 1, method: req.method, body: { contentType: req.rawBody?.contentType, size: req.rawBody?.bytes.length } }, created: true }),
    },
    {
      method: 'GET', path: '/file_attachments/:id/download', access: 'public', mount: 'root', answers: { raw: 'image/png' }, summary: 'download',
      handle: async (req) => ({ kind: 'raw', contentType: 'image/png', body: Buffer.from([1, 2, 3]), filename: 'plan é.png', inline: req.query.inline === 'true' }),
    },
    { method: 'GET', path: '/echo', access: 'public', answers: { type: 'echo' }, summary: 'echo', handle: async (req) => ({ kind: 'resource', type: 'echo', value: echo(req) }) },
    { method: 'POST', path: '/echo', access: 'public', answers: { type: 'echo' }, summary: 'echo', handle: async (req) => ({ kind: 'resource', type: 'echo', value: echo(req) }) },
    { method: 'PUT', path: '/echo', access: 'public', answers: { type: 'echo' }, summary: 'echo', handle: async (req) => ({ kind: 'resource', type: 'echo', value: echo(req) }) },
    { method: 'DELETE', path: '/echo', access: 'public', answers: 'empty', summary: 'echo', handle: async () => ({ kind: 'empty' }) },
    {
      method: 'GET', path: '/my/notifications', access: 'person', answers: { type: 'notification', list: true }, summary: 'notifications',
      handle: async () => ({ kind: 'resource', type: 'notification', value: [{ id: 1, created_at: T0 }], serviceHeaders: { 'Last-Notification-Timestamp': String(T0) }, envelopeExtras: { last_notification_timestamp: T0 } }),
    },
    {
      method: 'GET', path: '/people/:person_id/notifications/since/:timestamp', access: 'person', alwaysEnvelope: true, alwaysMillis: true,
      answers: { type: 'notification', list: true }, summary: 'notifications',
      handle: async () => ({ kind: 'resource', type: 'notification', value: [{ id: 1, created_at: T0 }] }),
    },
    { method: 'GET', path: '/boom', access: 'public', answers: 'empty', summary: 'boom', handle: async () => { throw new Error('secret internals'); } },
    { method: 'GET', path: '/strange-error', access: 'public', answers: 'empty', summary: 'error', handle: async () => { throw new DomainError('no_such_code' as never); } },
  ];

  world.deps = {
    routes,
    resources: resourceTypeRegistry(types),
    auth: {
      byToken: async (token) => {
        const name = Object.entries(tokens).find(([, value]) => value === token)?.[0];
        return people.find((person) => person.username === name) ?? null;
      },
      byPassword: async (login, password) => {
        const person = people.find((p) => p.username === login || p.email === login);
        return person && passwords[person.id] === password ? person : null;
      },
    },
    projects: {
      resolve: async (projectId, actor) => {
        const project = projects.get(projectId);
        if (!project) return null;
        const role = actor ? roles.get(`${projectId}:${actor.id}`) ?? null : null;
        return { project, role, public: project.public === true };
      },
    },
    projectVersion: async (projectId) => versions.get(projectId) ?? null,
    config: { ...defaultApiConfig, maxBodyBytes: 4096, ...config },
    log: {
      error: (message, details) => world.logged.push({ message, details }),
      warn: (message, details) => world.logged.push({ message, details }),
      info: () => undefined,
    },
    clock: () => T0,
  };
  return world;
}

export function fakeApp(config: Partial<ApiConfig> = {}) {
  const world = fakeWorld(config);
  return { world, app: createApp(world.deps) };
}

// Property: the real server (every route of the composition root, real stores in memory) answers any
// request, by any caller, with any query and any body, without a 5xx and with JSON (CSV downloads and
// the files' own bytes aside). Requests are built from the route table itself, with real ids mixed with
// odd ones, so most runs reach a handler and its decider.
import { expect } from 'chai';
import fc from 'fast-check';
import { routeWorld, servedRoutes, type RouteWorld } from '../api/support/route-world.js';

const attributeNames = [
  'query', 'name', 'description', 'story_type', 'current_state', 'estimate', 'story_priority', 'labels', 'label_ids', 'owner_ids',
  'owned_by_id', 'follower_ids', 'requested_by_id', 'before_id', 'after_id', 'group', 'project_id', 'deadline', 'accepted_at',
  'created_at', 'tasks', 'comment', 'complete', 'position', 'id', 'role', 'email', 'emails', 'person_id', 'initials',
  'project_color', 'favorite', 'public', 'point_scale', 'review_type_id', 'reviewer_id', 'status', 'hidden', 'reviews', 'project_ids', 'iteration_length', 'length', 'team_strength', 'week_start_day', 'start_date', 'new_account_name',
  'account_id', 'no_owner', 'join_as', 'project_creator', 'admin', 'owner', 'enable_tasks', 'time_zone', 'text', 'external_id',
  'username', 'password', 'current_password', 'receives_in_app_notifications',
  'webhook_url', 'webhook_version', 'secret', 'source_commit', 'commit_id', 'message', 'url', 'author', 'commit_type',
  'constructor', 'toString', 'hasOwnProperty', '__proto__',
];
/** Names Object.prototype holds: they must be unknown names like any other, never a lookup into the prototype. */
const prototypeNames = Object.getOwnPropertyNames(Object.prototype);
const queryNames = [
  'fields', 'envelope', 'date_format', 'limit', 'offset', 'with_state', 'with_label', 'with_story_type', 'with_story_priority',
  'filter', 'since_version', 'occurred_before', 'occurred_after', 'created_after', 'updated_before', 'ids', 'sort_by',
  'account_ids', 'with_permission', 'project_id', 'after_story_id', 'before_story_id', '_method', 'constructor', '__proto__',
  'scope', 'label', 'query',
];

const oddIds = ['0', '-1', '999999', 'abc', '1.5', '%zz', '99999999999999999999', ''];

const scalar = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom('unstarted', 'started', 'accepted', 'rejected', 'unscheduled', 'feature', 'bug', 'release', 'owner', 'viewer',
    'member', 'p1', 'none', 'millis', 'in_review', 'pass', 'revise', 'true', 'false', ':default', 'name,owners(:default)', 'state:started label:x', '2024-02-30',
    '2017-05-03T23:29:39Z', 'x@example.com', 'scheduled', 'current', 'done', 'backlog', 'current_backlog', 'done_current', 'Monday', '0,1,2,3', '1,2', '-1'),
  fc.constantFrom('(state:started OR', 'owner:"o', 'includedone:true -label:""', 'created:-2w..today', 'fuz* AND -is:blocked',
    'estimate:1,-1 OR mywork:owner', `${'('.repeat(40)}x`, 'name:"a b" description:c* has:attachment', 'accepted_before:1899-12-31'),
  fc.constantFrom(...prototypeNames, ...prototypeNames.map((name) => `:default,${name}(${name})`)),
  fc.constantFrom('x'.repeat(300), 'y'.repeat(5001), `${'-z '.repeat(700)}`, Array.from({ length: 101 }, (_, i) => `l${i}`).join(',')),
  fc.integer({ min: -5, max: 40 }),
  fc.double({ noNaN: false }),
  fc.boolean(),
  fc.constant(null),
);
const value = fc.oneof(
  { arbitrary: scalar, weight: 5 },
  { arbitrary: fc.array(scalar, { maxLength: 3 }), weight: 2 },
  { arbitrary: fc.array(fc.integer({ min: 1, max: 200 }), { minLength: 99, maxLength: 102 }), weight: 1 },
  { arbitrary: fc.array(fc.dictionary(fc.constantFrom('id', 'name', 'description', 'text'), scalar), { maxLength: 2 }), weight: 1 },
  { arbitrary: fc.dictionary(fc.constantFrom('id', 'name', 'text', 'olson_name'), scalar), weight: 1 },
);
const body = fc.oneof(fc.dictionary(fc.constantFrom(...attributeNames), value, { maxKeys: 5 }), fc.constant(undefined));

/** Requests per run: 2,000 in `npm test`; `STORYLINE_FUZZ_RUNS=100000` for the long run. */
const FUZZ_RUNS = Number(process.env['STORYLINE_FUZZ_RUNS'] ?? 2000);

describe('the whole server under random requests', function () {
  this.timeout(Math.max(60_000, FUZZ_RUNS * 100));
  let world: RouteWorld;
  before(async () => {
    world = await routeWorld();
  });
  after(() => world?.app.close());

  it('never answers 5xx and always answers JSON (or CSV, or a downloaded file)', async () => {
    // Deleting the one project would turn every later request into a 404; its paths are tested elsewhere.
    const routes = servedRoutes(world).filter((route) => !(route.method === 'DELETE' && route.path === '/projects/:project_id'));
    const request = fc.record({
      route: fc.constantFrom(...routes),
      params: fc.array(fc.tuple(fc.nat(), fc.nat({ max: 9 })), { minLength: 4, maxLength: 4 }),
      caller: fc.option(fc.constantFrom(...world.people), { nil: undefined }),
      query: fc.dictionary(fc.constantFrom(...queryNames), scalar.map(String), { maxKeys: 3 }),
      body,
    });
    await fc.assert(
      fc.asyncProperty(request, async ({ route, params, caller, query, body: payload }) => {
        let used = 0;
        const path = route.path.replace(/:([a-z_]+)/g, (_, name: string) => {
          const [pick, oddness] = params[used++ % params.length]!;
          const pool = oddness === 0 ? oddIds : world.ids[name]?.length ? world.ids[name]! : Object.values(world.ids).flat();
          return encodeURIComponent(pool[pick % pool.length]!);
        });
        const { method } = route;
        const res = await world.app.api(method, path, {
          ...(caller ? { as: caller } : {}),
          query,
          ...(method === 'GET' || method === 'DELETE' ? {} : { body: payload ?? {} }),
        });
        const where = `${method} ${path} ${JSON.stringify(query)} ${JSON.stringify(payload)} -> ${res.status} ${res.text.slice(0, 300)}`;
        // A new token revokes the caller's (whether or not `fields` showed it): later requests as that person use it.
        if (caller && route.path === '/me/api_token') caller.token = (await world.app.storyline.deps.secrets.apiToken(caller.id)) ?? caller.token;
        expect(res.status, where).to.be.below(500);
        if (res.status === 204 || res.status === 304) return;
        const type = String(res.headers['content-type']);
        if (type.startsWith('text/csv')) return;
        // a file's download and renditions answer its own bytes and type when they exist
        if (res.status === 200 && route.path.startsWith('/file_attachments/')) return;
        // a live activity stream answers with its headers (the client does not wait for an end)
        if (res.status === 200 && type.startsWith('text/event-stream')) return;
        expect(type, where).to.match(/^application\/json/);
        expect(res.json, where).to.not.equal(undefined);
      }),
      { numRuns: FUZZ_RUNS, seed: Number(process.env['STORYLINE_FUZZ_SEED'] ?? 20261122), endOnFailure: true },
    );
  });
});

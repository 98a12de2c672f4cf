// A method a path does not serve: Tracker answered 404 `route_not_found` (not 405), so clients that
// probe with `PUT /projects` or `DELETE /projects/{id}/uploads` see what they saw there; OPTIONS still
// answers the CORS preflight on those paths.
import { expect } from 'chai';
import { storyWorld, type StoryWorld } from '../support/project-fixture.js';

describe('methods a path does not serve', () => {
  let world: StoryWorld;
  let project: number;

  before(async () => {
    world = await storyWorld();
    project = await world.project({ name: 'Methods' });
  });
  after(() => world.close());

  for (const [method, path] of [
    ['PUT', '/projects'],
    ['DELETE', '/projects'],
    ['DELETE', '/projects/:id/uploads'],
    ['PUT', '/projects/:id/uploads'],
    ['POST', '/projects/:id'],
    ['PATCH', '/projects/:id/memberships'],
  ] as const) {
    it(`answers ${method} ${path} 404 route_not_found and writes nothing`, async () => {
      const before = await world.api('GET', `/projects/${project}`, { as: world.owner });
      const res = await world.api(method, path.replace(':id', String(project)), { as: world.owner, ...(method === 'DELETE' ? {} : { body: { name: 'x' } }) });
      expect(res.status, res.text).to.equal(404);
      expect(res.json).to.deep.equal({ kind: 'error', code: 'route_not_found', error: 'The path you requested has no valid endpoint.' });
      const after = await world.api('GET', `/projects/${project}`, { as: world.owner });
      expect(after.json.version).to.equal(before.json.version);
    });
  }

  it('answers a method no route serves at all (TRACE) 405 http_method_not_supported', async () => {
    const res = await world.api('TRACE', '/projects', { as: world.owner });
    expect(res.status).to.equal(405);
    expect(res.json.code).to.equal('http_method_not_supported');
  });

  it('keeps the OPTIONS preflight on those paths', async () => {
    const res = await world.api('OPTIONS', `/projects/${project}/uploads`, { headers: { Origin: 'http://client.test', 'Access-Control-Request-Method': 'DELETE' } });
    expect(res.status).to.equal(204);
    expect(res.headers['access-control-allow-methods']).to.equal('GET, POST, PUT, DELETE, OPTIONS');
  });
});

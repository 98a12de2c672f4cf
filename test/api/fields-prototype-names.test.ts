// `fields` names are the client's: a name Object.prototype holds (`constructor`, `__proto__`, `toString`,
// `hasOwnProperty`, ...) is an unknown field like any other, on every GET route of the composition, at
// the top level and nested. (Before: 500 `unhandled_condition` on every resource.)
import { expect } from 'chai';
import { fillPath, routeWorld, servedRoutes, type RouteWorld } from './support/route-world.js';

const PROTOTYPE_NAMES = Object.getOwnPropertyNames(Object.prototype);

describe('API: fields naming Object.prototype properties', function () {
  this.timeout(60_000);
  let world: RouteWorld;
  before(async () => {
    world = await routeWorld();
  });
  after(() => world?.app.close());

  it('never answers 5xx on any GET route, whatever the name', async () => {
    const routes = servedRoutes(world, 'GET');
    expect(routes.length).to.be.greaterThan(20);
    const failures: string[] = [];
    for (const route of routes) {
      const path = fillPath(route.path, world.ids);
      for (const name of PROTOTYPE_NAMES) {
        for (const fields of [name, `:default,${name}`, `${name}(${name})`]) {
          const res = await world.app.api('GET', path, { as: world.people[0]!, query: { fields, [name]: '1' } });
          if (res.status >= 500) failures.push(`GET ${path}?fields=${fields} -> ${res.status}`);
        }
      }
    }
    expect(failures).to.deep.equal([]);
  });

  it('answers a resource with only its id for an unknown prototype name', async () => {
    const projectId = world.ids['project_id']![0]!;
    const res = await world.app.api('GET', `/projects/${projectId}`, { as: world.people[0]!, query: { fields: 'constructor,__proto__,toString' } });
    expect(res.status, res.text).to.equal(200);
    expect(res.json).to.deep.equal({ id: Number(projectId) });
  });
});

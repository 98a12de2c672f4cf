import { expect } from 'chai';
import { DEFAULT_SELECTION } from '../../../src/api/fields-selection.js';
import { loggedPath, RequestShapes, type RequestShape } from '../../../src/api/request-shape.js';
import type { RouteDefinition } from '../../../src/api/route-table.js';

const shape = (path: string): RequestShape => ({
  path,
  queryString: '',
  query: {},
  method: 'GET',
  route: { method: 'GET', path: '/me', access: 'person' } as unknown as RouteDefinition,
  params: {},
  prefix: '/services/v5',
  selection: DEFAULT_SELECTION,
  cacheKeyPart: `GET ${path}||`,
  loggedPath: path,
});

describe('RequestShapes', () => {
  it('remembers at most `entries` shapes, the least recently used going first', () => {
    const shapes = new RequestShapes({ entries: 2, urlLength: 100 });
    for (const url of ['/a', '/b']) shapes.remember('GET', url, shape(url));
    expect(shapes.get('GET', '/a')?.path).to.equal('/a');
    shapes.remember('GET', '/c', shape('/c'));
    expect(shapes.size).to.equal(2);
    expect(['/a', '/b', '/c'].map((url) => shapes.get('GET', url) !== undefined)).to.deep.equal([true, false, true]);
  });

  it('tells methods apart, remembers no URL longer than the bound and remembers none when entries is 0', () => {
    const shapes = new RequestShapes({ entries: 10, urlLength: 4 });
    shapes.remember('GET', '/abc', shape('/abc'));
    shapes.remember('GET', '/abcde', shape('/abcde'));
    expect(shapes.get('HEAD', '/abc')).to.equal(undefined);
    expect(shapes.get('GET', '/abcde')).to.equal(undefined);
    expect(shapes.size).to.equal(1);
    const none = new RequestShapes({ entries: 0, urlLength: 100 });
    none.remember('GET', '/a', shape('/a'));
    expect([none.get('GET', '/a'), none.size]).to.deep.equal([undefined, 0]);
  });

  it('freezes what every request of a shape shares', () => {
    const shapes = new RequestShapes();
    const remembered = { ...shape('/a'), query: { limit: '1' } };
    shapes.remember('GET', '/a?limit=1', remembered);
    expect(Object.isFrozen(shapes.get('GET', '/a?limit=1')!.query)).to.equal(true);
  });
});

describe('loggedPath', () => {
  it('leaves out the token and an invitation secret', () => {
    expect(loggedPath('/services/v5/me', 'token=abc&fields=id')).to.equal('/services/v5/me?fields=id');
    expect(loggedPath('/services/v5/me', 'token=abc')).to.equal('/services/v5/me');
    expect(loggedPath('/invitations/s3cret', '')).to.equal('/invitations/{secret}');
  });
});

// The address a sign-in is counted under: the socket's peer, or, behind a named reverse proxy, the client
// that proxy saw, read from the right of X-Forwarded-For so a client cannot choose it.
import { expect } from 'chai';
import { clientAddress, trustedProxies } from '../../../src/api/client-address.js';

describe('client address', () => {
  const proxies = trustedProxies(['127.0.0.1', '10.0.0.0/8', '::1']);

  it('is the socket peer when no proxy is named or the peer is not one, whatever X-Forwarded-For says', () => {
    expect(clientAddress('127.0.0.1', '203.0.113.9', null)).to.equal('127.0.0.1');
    expect(clientAddress('198.51.100.7', '203.0.113.9', proxies)).to.equal('198.51.100.7');
    expect(clientAddress('::ffff:198.51.100.7', undefined, proxies)).to.equal('198.51.100.7');
    expect(clientAddress(undefined, undefined, null)).to.equal('unknown');
  });

  it('behind named proxies, is the first address from the right that is no named proxy', () => {
    expect(clientAddress('127.0.0.1', '203.0.113.9', proxies)).to.equal('203.0.113.9');
    expect(clientAddress('::ffff:127.0.0.1', 'forged, 192.0.2.1 , 203.0.113.9, 10.1.2.3', proxies)).to.equal('203.0.113.9');
    expect(clientAddress('::1', '2001:db8::5', proxies)).to.equal('2001:db8::5');
  });

  it('stays the proxy when the header is missing, names only proxies, or holds no address where one is read', () => {
    expect(clientAddress('127.0.0.1', undefined, proxies)).to.equal('127.0.0.1');
    expect(clientAddress('127.0.0.1', '10.0.0.2, 10.0.0.3', proxies)).to.equal('10.0.0.2');
    expect(clientAddress('127.0.0.1', '203.0.113.9, garbage', proxies)).to.equal('127.0.0.1');
    expect(clientAddress('127.0.0.1', '', proxies)).to.equal('127.0.0.1');
  });

  it('refuses a list entry that is no address or subnet', () => {
    expect(() => trustedProxies(['proxy.example'])).to.throw(/proxy\.example/);
  });
});

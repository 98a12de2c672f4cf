import { expect } from 'chai';
import { pathWithoutSecrets } from '../../../src/api/secret-paths.js';

describe('paths as logged', () => {
  const secret = 'Zx9_-abcdefghijklmnopqrstuvwxyzABCDEFGHIJKL';

  it('replaces the segment after `invitations` by {secret}, under any prefix and at the root', () => {
    expect(pathWithoutSecrets(`/services/v5/invitations/${secret}`)).to.equal('/services/v5/invitations/{secret}');
    expect(pathWithoutSecrets(`/v5/invitations/${secret}/accept`)).to.equal('/v5/invitations/{secret}/accept');
    expect(pathWithoutSecrets(`/invitations/${secret}`)).to.equal('/invitations/{secret}');
    expect(pathWithoutSecrets(`/services/v5//invitations//${secret}`)).to.equal('/services/v5//invitations//{secret}');
  });

  it('sees through percent-encoding and case', () => {
    expect(pathWithoutSecrets(`/v5/%69nvitations/${secret}`)).to.equal('/v5/%69nvitations/{secret}');
    expect(pathWithoutSecrets(`/v5/INVITATIONS/${secret}`)).to.equal('/v5/INVITATIONS/{secret}');
    expect(pathWithoutSecrets(`/v5/invitations%2F${secret}/accept`)).to.equal('/v5/{secret}/accept');
  });

  it('leaves other paths as they are', () => {
    for (const path of ['/services/v5/projects/1/memberships/2/invitation', '/services/v5/invitations', '/', '/v5/%zz/invitations']) {
      expect(pathWithoutSecrets(path)).to.equal(path);
    }
  });
});

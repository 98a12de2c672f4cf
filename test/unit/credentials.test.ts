import Database from 'better-sqlite3';
import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API_TOKEN_PATTERN, deriveApiToken, tokenDigest } from '../../src/infra/credentials/api-token.js';
import { MemoryCredentialStore } from '../../src/infra/credentials/memory-credential-store.js';
import { hashPassword, verifyPassword } from '../../src/infra/credentials/password-hash.js';
import { PersonSecrets } from '../../src/infra/credentials/person-secrets.js';
import type { CredentialStore } from '../../src/ports/credentials.js';
import { SqliteCredentialStore } from '../../src/infra/credentials/sqlite-credential-store.js';

const CHEAP = { N: 1024, r: 8, p: 1 };

describe('password hashing', () => {
  it('verifies the right password only, with a fresh salt per hash', async () => {
    const first = await hashPassword('correct horse');
    const second = await hashPassword('correct horse');
    expect(first).to.match(/^scrypt\$16384\$8\$1\$/);
    expect(first).not.to.equal(second);
    expect(first).not.to.include('correct horse');
    expect(await verifyPassword('correct horse', first)).to.equal(true);
    expect(await verifyPassword('correct horsf', first)).to.equal(false);
  });

  it('rejects malformed hashes instead of throwing', async () => {
    for (const hash of ['', 'plain', 'scrypt$x$8$1$AAAA$AAAA', 'bcrypt$1$2$3$4$5', 'scrypt$1024$8$1$AAAA$', 'scrypt$1000$8$1$AAAA$AAAA', 'scrypt$67108864$8$1$AAAA$AAAA']) {
      expect(await verifyPassword('pw', hash)).to.equal(false);
    }
  });
});

describe('API tokens', () => {
  it('are 32 hex characters derived from secret, person and generation', () => {
    const secret = Buffer.alloc(32, 1);
    const token = deriveApiToken(secret, 5, 1);
    expect(token).to.match(API_TOKEN_PATTERN);
    expect(deriveApiToken(secret, 5, 1)).to.equal(token);
    expect(deriveApiToken(secret, 5, 2)).not.to.equal(token);
    expect(deriveApiToken(secret, 6, 1)).not.to.equal(token);
    expect(deriveApiToken(Buffer.alloc(32, 2), 5, 1)).not.to.equal(token);
    expect(tokenDigest(token)).to.match(/^[0-9a-f]{64}$/);
  });

  it('depend on the per-person salt, which the legacy form leaves out', () => {
    const secret = Buffer.alloc(32, 1);
    expect(deriveApiToken(secret, 5, 1, '')).to.equal(deriveApiToken(secret, 5, 1));
    expect(deriveApiToken(secret, 5, 1, 'aa')).not.to.equal(deriveApiToken(secret, 5, 1, 'bb'));
  });
});

function storeContract(name: string, open: () => CredentialStore) {
  describe(`credential store: ${name}`, () => {
    let store: CredentialStore;
    beforeEach(() => (store = open()));
    afterEach(() => store.close());

    it('stores, replaces and finds credentials by person and by token digest', async () => {
      expect(await store.get(1)).to.equal(null);
      await store.put({ personId: 1, passwordHash: 'h1', tokenGeneration: 1, tokenDigest: 'd1', tokenSalt: 's1' });
      await store.put({ personId: 2, passwordHash: null, tokenGeneration: 1, tokenDigest: 'd2', tokenSalt: '' });
      expect(await store.get(1)).to.deep.equal({ personId: 1, passwordHash: 'h1', tokenGeneration: 1, tokenDigest: 'd1', tokenSalt: 's1' });
      await store.put({ personId: 1, passwordHash: 'h1', tokenGeneration: 2, tokenDigest: 'd1b', tokenSalt: 's1b' });
      expect(await store.findByTokenDigest('d1')).to.equal(null);
      expect((await store.findByTokenDigest('d1b'))?.personId).to.equal(1);
      expect((await store.findByTokenDigest('d2'))?.passwordHash).to.equal(null);
    });

    it('keeps one invitation per person, found by digest and used up once together with the credentials', async () => {
      const invitation = { personId: 3, secretDigest: 'i1', projectId: 9, inviterId: 1, expiresAt: 1000 };
      await store.putInvitation(invitation);
      expect(await store.invitationByDigest('i1')).to.deep.equal(invitation);
      await store.putInvitation({ ...invitation, secretDigest: 'i2', expiresAt: 2000 });
      expect(await store.invitationByDigest('i1')).to.equal(null);
      const credentials = { personId: 3, passwordHash: 'h3', tokenGeneration: 1, tokenDigest: 'd3', tokenSalt: 's3' };
      expect(await store.consumeInvitation('i1', credentials)).to.equal(false);
      expect(await store.get(3)).to.equal(null);
      expect(await store.consumeInvitation('i2', credentials)).to.equal(true);
      expect(await store.get(3)).to.deep.equal(credentials);
      expect(await store.invitationByDigest('i2')).to.equal(null);
      expect(await store.consumeInvitation('i2', { ...credentials, passwordHash: 'other' })).to.equal(false);
      expect((await store.get(3))?.passwordHash).to.equal('h3');
    });

    it('keeps one server secret', async () => {
      const secret = await store.serverSecret();
      expect(secret.length).to.equal(32);
      expect((await store.serverSecret()).equals(secret)).to.equal(true);
    });
  });
}

storeContract('memory', () => new MemoryCredentialStore());
storeContract('sqlite', () => new SqliteCredentialStore({ path: ':memory:' }));

describe('sqlite credential store on disk', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'storyline-credentials-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps the secret across reopening and never holds a token or password in plaintext', async () => {
    const path = join(dir, 'credentials.sqlite');
    const first = new SqliteCredentialStore({ path });
    const secrets = new PersonSecrets(first, CHEAP);
    const token = await secrets.enrol(7, 'hunter2-password');
    const secret = await first.serverSecret();
    await first.close();

    const reopened = new SqliteCredentialStore({ path });
    expect((await reopened.serverSecret()).equals(secret)).to.equal(true);
    expect(await new PersonSecrets(reopened, CHEAP).personIdForToken(token)).to.equal(7);
    await reopened.close();
    const bytes = Buffer.concat(['credentials.sqlite', 'credentials.sqlite-wal'].flatMap((file) => {
      try {
        return [readFileSync(join(dir, file))];
      } catch {
        return [];
      }
    })).toString('latin1');
    expect(bytes).not.to.include(token);
    expect(bytes).not.to.include('hunter2-password');
  });
});

describe('person secrets', () => {
  it('makes invitation secrets that work until used, replaced or expired, and stores only their digest', async () => {
    const store = new MemoryCredentialStore();
    const secrets = new PersonSecrets(store, CHEAP);
    await secrets.enrol(4, null);
    const first = await secrets.invite({ personId: 4, projectId: 9, inviterId: 1, expiresAt: 5000 });
    expect(first).to.match(/^[A-Za-z0-9_-]{43}$/);
    expect(await store.invitationByDigest(first)).to.equal(null);
    expect(await store.invitationByDigest(tokenDigest(first))).to.deep.include({ personId: 4, projectId: 9, inviterId: 1 });
    expect(await secrets.invitation(first, 4999)).to.deep.include({ personId: 4, expiresAt: 5000 });
    expect(await secrets.invitation(first, 5000)).to.equal(null);
    expect(await secrets.invitation(`${first}x`, 0)).to.equal(null);
    const second = await secrets.invite({ personId: 4, projectId: 9, inviterId: 1, expiresAt: 5000 });
    expect(await secrets.invitation(first, 0)).to.equal(null);
    expect(await secrets.hasPassword(4)).to.equal(false);
    expect(await secrets.acceptInvitation(first, 'new password', 0)).to.equal(false);
    expect(await secrets.acceptInvitation(second, 'new password', 5000)).to.equal(false);
    expect(await secrets.acceptInvitation(second, 'new password', 0)).to.equal(true);
    expect(await secrets.hasPassword(4)).to.equal(true);
    expect(await secrets.checkPassword(4, 'new password')).to.equal(true);
    expect(await secrets.acceptInvitation(second, 'other password', 0)).to.equal(false);
  });

  it('does not remember a token a rotation revoked while its lookup was reading the store', async () => {
    const store = new MemoryCredentialStore();
    const secrets = new PersonSecrets(store, CHEAP);
    const token = await secrets.enrol(5, null);
    // The lookup has read the old credentials when the rotation lands; it answers as of its read, but
    // must not remember the revoked token for later requests.
    const read = store.findByTokenDigest.bind(store);
    let rotation: Promise<string> | null = null;
    store.findByTokenDigest = async (digest) => {
      const found = await read(digest);
      rotation ??= secrets.rotateToken(5);
      await rotation;
      return found;
    };
    expect(await secrets.personIdForToken(token)).to.equal(5);
    store.findByTokenDigest = read;
    expect(await secrets.personIdForToken(token)).to.equal(null);
  });

  it('enrols a person, checks the password, finds the person by token and revokes on rotation', async () => {
    const secrets = new PersonSecrets(new MemoryCredentialStore(), CHEAP);
    const token = await secrets.enrol(3, 'pw-one');
    expect(token).to.match(API_TOKEN_PATTERN);
    expect(await secrets.apiToken(3)).to.equal(token);
    expect(await secrets.personIdForToken(token)).to.equal(3);
    expect(await secrets.checkPassword(3, 'pw-one')).to.equal(true);
    expect(await secrets.checkPassword(3, 'pw-two')).to.equal(false);
    expect(await secrets.checkPassword(4, 'pw-one')).to.equal(false);

    const rotated = await secrets.rotateToken(3);
    expect(rotated).not.to.equal(token);
    expect(await secrets.personIdForToken(token)).to.equal(null);
    expect(await secrets.personIdForToken(rotated)).to.equal(3);
    expect(await secrets.checkPassword(3, 'pw-one')).to.equal(true);

    await secrets.setPassword(3, 'pw-two');
    expect(await secrets.checkPassword(3, 'pw-two')).to.equal(true);
    expect(await secrets.apiToken(3)).to.equal(rotated);
  });

  it('resets a token with a new random salt: the secret and the old salt no longer yield it', async () => {
    const store = new MemoryCredentialStore();
    const secrets = new PersonSecrets(store, CHEAP);
    const token = await secrets.enrol(3, null);
    const leaked = (await store.get(3))!;
    const rotated = await secrets.rotateToken(3);
    const after = (await store.get(3))!;
    expect(after.tokenSalt).to.match(/^[0-9a-f]{32}$/).and.not.equal(leaked.tokenSalt);
    const secret = await store.serverSecret();
    expect(deriveApiToken(secret, 3, after.tokenGeneration, leaked.tokenSalt)).not.to.equal(rotated);
    expect(deriveApiToken(secret, 3, leaked.tokenGeneration, leaked.tokenSalt)).to.equal(token);
  });

  it('keeps tokens issued before per-person salts valid in an older credentials file, until reset', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'storyline-legacy-'));
    const path = join(dir, 'credentials.sqlite');
    try {
      const secret = Buffer.alloc(32, 7);
      const legacyToken = deriveApiToken(secret, 12, 1);
      const legacy = new Database(path);
      legacy.exec(`CREATE TABLE person_credentials (person_id INTEGER PRIMARY KEY, password_hash TEXT,
        token_generation INTEGER NOT NULL, token_digest TEXT NOT NULL UNIQUE);
        CREATE TABLE server_secret (id INTEGER PRIMARY KEY CHECK (id = 1), secret BLOB NOT NULL);`);
      legacy.prepare('INSERT INTO server_secret VALUES (1, ?)').run(secret);
      legacy.prepare('INSERT INTO person_credentials VALUES (12, NULL, 1, ?)').run(tokenDigest(legacyToken));
      legacy.close();

      const store = new SqliteCredentialStore({ path });
      try {
        const secrets = new PersonSecrets(store, CHEAP);
        expect((await store.get(12))?.tokenSalt).to.equal('');
        expect(await secrets.personIdForToken(legacyToken)).to.equal(12);
        expect(await secrets.apiToken(12)).to.equal(legacyToken);
        const rotated = await secrets.rotateToken(12);
        expect(await secrets.personIdForToken(legacyToken)).to.equal(null);
        expect(await secrets.personIdForToken(rotated)).to.equal(12);
      } finally {
        await store.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a token another process reset (on the same credentials file) from the next event-loop turn', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'storyline-reset-'));
    const server = new SqliteCredentialStore({ path: join(dir, 'credentials.sqlite') });
    const cli = new SqliteCredentialStore({ path: join(dir, 'credentials.sqlite') });
    try {
      const serving = new PersonSecrets(server, CHEAP);
      const token = await serving.enrol(4, null);
      expect(await serving.personIdForToken(token)).to.equal(4); // now remembered
      const rotated = await new PersonSecrets(cli, CHEAP).rotateToken(4);
      await new Promise(setImmediate); // the next request: the store reads its revision once per turn
      expect(await serving.personIdForToken(token)).to.equal(null);
      expect(await serving.personIdForToken(rotated)).to.equal(4);
    } finally {
      await server.close();
      await cli.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('enrols without a password (invited people) and keeps the token on re-enrolment', async () => {
    const secrets = new PersonSecrets(new MemoryCredentialStore(), CHEAP);
    const token = await secrets.enrol(9, null);
    expect(await secrets.checkPassword(9, '')).to.equal(false);
    expect(await secrets.enrol(9, 'later')).to.equal(token);
    expect(await secrets.checkPassword(9, 'later')).to.equal(true);
  });

  it('runs exactly one scrypt verification, at the stored cost, for an unknown person, a person without password, a wrong and a right password', async () => {
    const costs: string[] = [];
    const countingVerify: typeof verifyPassword = async (password, hash) => {
      costs.push(hash.split('$').slice(0, 4).join('$'));
      return verifyPassword(password, hash);
    };
    const secrets = new PersonSecrets(new MemoryCredentialStore(), CHEAP, countingVerify);
    await secrets.enrol(1, 'right');
    await secrets.enrol(2, null);
    const outcomes = [
      await secrets.checkPassword(null, 'right'),
      await secrets.checkPassword(77, 'right'),
      await secrets.checkPassword(2, 'right'),
      await secrets.checkPassword(1, 'wrong'),
      await secrets.checkPassword(1, 'right'),
    ];
    expect(outcomes).to.deep.equal([false, false, false, false, true]);
    expect(costs).to.deep.equal(Array(5).fill('scrypt$1024$8$1'));
  });
});


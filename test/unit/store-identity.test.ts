// The install id tying events.sqlite to credentials.sqlite: a new install gets one id in both, a
// pre-identity install with both halves gets it written (upgrade), and a missing, emptied, foreign or
// malformed half is refused with a message saying what is wrong and how to recover.
import { mkdtempSync, rmSync, writeFileSync, unlinkSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { checkStoreIdentity, type StoreFiles } from '../../src/infra/store-identity.js';
import { OperatorError } from '../../src/infra/operator-error.js';

function installIdOf(path: string): string | undefined {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare<[], string>('SELECT install_id FROM storyline_identity').pluck().get();
  } finally {
    db.close();
  }
}

/** Data as the stores write it, without an identity (a data directory from before the identity). */
function writeLegacyData(files: StoreFiles): void {
  const events = new Database(files.events);
  events.exec("CREATE TABLE events (position INTEGER PRIMARY KEY, id TEXT); INSERT INTO events VALUES (1, 'e1')");
  events.close();
  const credentials = new Database(files.credentials);
  credentials.exec('CREATE TABLE server_secret (id INTEGER PRIMARY KEY, secret BLOB); INSERT INTO server_secret VALUES (1, x\'00\')');
  credentials.close();
}

function refusal(files: StoreFiles): string {
  try {
    checkStoreIdentity(files);
  } catch (error) {
    expect(error).to.be.instanceOf(OperatorError);
    return (error as Error).message;
  }
  throw new Error('expected the pair to be refused');
}

describe('store identity (events.sqlite <-> credentials.sqlite)', () => {
  let dir: string;
  let files: StoreFiles;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'storyline-identity-'));
    files = { events: join(dir, 'events.sqlite'), credentials: join(dir, 'credentials.sqlite') };
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes one new install id into both files of a new install, then matches it', () => {
    expect(checkStoreIdentity(files)).to.equal('created');
    expect(installIdOf(files.events)).to.be.a('string').and.equal(installIdOf(files.credentials));
    writeLegacyData(files);
    expect(checkStoreIdentity(files)).to.equal('matched');
  });

  it('upgrades a data directory from before the identity when both halves hold data', () => {
    writeLegacyData(files);
    expect(checkStoreIdentity(files)).to.equal('upgraded');
    expect(installIdOf(files.events)).to.equal(installIdOf(files.credentials));
  });

  it('refuses a zero-byte events.sqlite beside existing credentials, naming the file and the recovery', () => {
    checkStoreIdentity(files);
    writeLegacyData(files);
    writeFileSync(files.events, '');
    const message = refusal(files);
    expect(message).to.contain(files.events).and.contain('Restore events.sqlite');
  });

  it('refuses an event log whose credentials.sqlite is gone', () => {
    checkStoreIdentity(files);
    writeLegacyData(files);
    unlinkSync(files.credentials);
    expect(refusal(files)).to.contain(files.credentials).and.contain('Restore credentials.sqlite');
  });

  it('refuses the halves of two different installations', () => {
    const other = { events: join(dir, 'other-events.sqlite'), credentials: join(dir, 'other-credentials.sqlite') };
    checkStoreIdentity(files);
    checkStoreIdentity(other);
    copyFileSync(other.credentials, files.credentials);
    expect(refusal(files)).to.contain('different installations');
  });

  it('refuses a pre-identity half beside a half with an identity', () => {
    checkStoreIdentity(files);
    writeLegacyData(files);
    unlinkSync(files.credentials);
    const credentials = new Database(files.credentials);
    credentials.exec('CREATE TABLE server_secret (id INTEGER PRIMARY KEY, secret BLOB); INSERT INTO server_secret VALUES (1, x\'01\')');
    credentials.close();
    expect(refusal(files)).to.contain('not the install id');
  });

  it('refuses a file that is not a database', () => {
    writeFileSync(files.events, 'this is not a database, just some text that fills more than a header would');
    expect(refusal(files)).to.contain(files.events).and.contain('not a readable Storyline events.sqlite');
  });
});

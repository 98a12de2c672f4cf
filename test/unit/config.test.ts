import { availableParallelism } from 'node:os';
import { expect } from 'chai';
import { ConfigError, configFromEnv } from '../../src/infra/config.js';

describe('operator configuration', () => {
  it('defaults to port 3000, ./data, 200 on creates and six / twenty-five months of activity', () => {
    const config = configFromEnv({}, '/srv');
    expect(config).to.include({ port: 3000, dataDir: '/srv/data', createdStatus: 200, activityWindowMonths: 6, enterpriseActivityWindowMonths: 25 });
    expect(config).to.include({ kurrentUrl: null, mongoUrl: null, downtime: null, siteUrl: 'http://localhost:3000' });
  });

  it('reads the environment', () => {
    const config = configFromEnv(
      { PORT: '8080', STORYLINE_DATA: 'var/lib', STORYLINE_CREATED_STATUS: '201', STORYLINE_ACTIVITY_WINDOW_MONTHS: 'unlimited',
        STORYLINE_ENTERPRISE_ACTIVITY_WINDOW_MONTHS: '0', STORYLINE_SITE_URL: 'https://tracker.example.com/',
        STORYLINE_DOWNTIME_START: '2026-12-01T02:00:00Z', STORYLINE_DOWNTIME_FINISH: '2026-12-01T03:00:00Z' },
      '/srv',
    );
    expect(config).to.include({ port: 8080, dataDir: '/srv/var/lib', createdStatus: 201, activityWindowMonths: null, enterpriseActivityWindowMonths: null });
    expect(config.siteUrl).to.equal('https://tracker.example.com');
    expect(config.downtime).to.deep.equal({ start: '2026-12-01T02:00:00Z', finish: '2026-12-01T03:00:00Z' });
  });

  it('mails through STORYLINE_SMTP_URL when set, from STORYLINE_MAIL_FROM or the site\'s host, and refuses other URLs without repeating them', () => {
    expect(configFromEnv({})).to.include({ smtpUrl: null, mailFrom: 'Storyline <storyline@localhost>' });
    const config = configFromEnv({ STORYLINE_SMTP_URL: 'smtps://me:pw@mail.example.com:465', STORYLINE_SITE_URL: 'https://board.example.com' });
    expect(config).to.include({ smtpUrl: 'smtps://me:pw@mail.example.com:465', mailFrom: 'Storyline <storyline@board.example.com>' });
    expect(configFromEnv({ STORYLINE_MAIL_FROM: 'Board <b@example.com>' }).mailFrom).to.equal('Board <b@example.com>');
    for (const url of ['http://me:topsecret@mail.example.com', 'not a url topsecret', 'smtp://']) {
      expect(() => configFromEnv({ STORYLINE_SMTP_URL: url }), url).to.throw(ConfigError, /STORYLINE_SMTP_URL/).with.property('message').that.does.not.contain('topsecret');
    }
  });

  it('bounds the response cache in bytes: 32 MiB unless STORYLINE_RESPONSE_CACHE_BYTES says otherwise', () => {
    expect(configFromEnv({}).responseCacheBytes).to.equal(16 * 1024 * 1024);
    expect(configFromEnv({ STORYLINE_RESPONSE_CACHE_BYTES: '1048576' }).responseCacheBytes).to.equal(1048576);
    expect(() => configFromEnv({ STORYLINE_RESPONSE_CACHE_BYTES: 'lots' })).to.throw(ConfigError, /STORYLINE_RESPONSE_CACHE_BYTES/);
  });

  it('bounds the time-travel folds by entries and by bytes: 32 and 256 MiB unless told otherwise', () => {
    expect(configFromEnv({})).to.include({ timeTravelCacheEntries: 32, timeTravelCacheBytes: 256 * 1024 * 1024 });
    expect(configFromEnv({ STORYLINE_TIME_TRAVEL_CACHE_BYTES: '1000' }).timeTravelCacheBytes).to.equal(1000);
    expect(() => configFromEnv({ STORYLINE_TIME_TRAVEL_CACHE_BYTES: '0' })).to.throw(ConfigError, /STORYLINE_TIME_TRAVEL_CACHE_BYTES/);
  });

  it('sets webhook deliveries and live streams as documented, private receivers off unless switched on with 1', () => {
    expect(configFromEnv({}).webhooks).to.deep.equal({ allowPrivate: false, timeoutMs: 10_000, retryMs: 1000, retryMaxMs: 600_000, giveUpMs: 86_400_000, hostConcurrency: 64 });
    expect(configFromEnv({}).streams).to.deep.equal({ maxStreams: 2000, maxStreamsPerCaller: 10, heartbeatMs: 15_000, maxBufferedBytes: 1024 * 1024, flushMs: 100 });
    expect(configFromEnv({ STORYLINE_WEBHOOK_ALLOW_PRIVATE: '1' }).webhooks.allowPrivate).to.equal(true);
    expect(configFromEnv({ STORYLINE_WEBHOOK_ALLOW_PRIVATE: '0' }).webhooks.allowPrivate).to.equal(false);
    expect(() => configFromEnv({ STORYLINE_WEBHOOK_ALLOW_PRIVATE: 'yes' })).to.throw(ConfigError, /STORYLINE_WEBHOOK_ALLOW_PRIVATE/);
    expect(() => configFromEnv({ STORYLINE_WEBHOOK_HOST_CONCURRENCY: '0' })).to.throw(ConfigError, /STORYLINE_WEBHOOK_HOST_CONCURRENCY/);
    expect(configFromEnv({ STORYLINE_STREAMS_PER_PERSON: '3' }).streams.maxStreamsPerCaller).to.equal(3);
  });

  it('snapshots a project for time travel every 5,000 versions unless told otherwise', () => {
    expect(configFromEnv({}).timeTravelSnapshotEvery).to.equal(5000);
    expect(configFromEnv({ STORYLINE_TIME_TRAVEL_SNAPSHOT_EVERY: '3' }).timeTravelSnapshotEvery).to.equal(3);
    for (const value of ['0', '-5', 'often']) expect(() => configFromEnv({ STORYLINE_TIME_TRAVEL_SNAPSHOT_EVERY: value })).to.throw(ConfigError, /STORYLINE_TIME_TRAVEL_SNAPSHOT_EVERY/);
  });

  it('keeps the read models on disk unless told to keep them in memory, with a cache budget in bytes', () => {
    expect(configFromEnv({})).to.include({ readStore: 'sqlite', readCacheBytes: 16 * 1024 * 1024 });
    expect(configFromEnv({ STORYLINE_READ_STORE: 'memory', STORYLINE_READ_CACHE_BYTES: '1048576' })).to.include({ readStore: 'memory', readCacheBytes: 1048576 });
    expect(() => configFromEnv({ STORYLINE_READ_STORE: 'disk' })).to.throw(ConfigError, /STORYLINE_READ_STORE/);
    expect(() => configFromEnv({ STORYLINE_READ_CACHE_BYTES: 'lots' })).to.throw(ConfigError, /STORYLINE_READ_CACHE_BYTES/);
    expect(configFromEnv({ STORYLINE_STATE_CACHE_DOCUMENTS: '5000' })).to.include({ stateCacheDocuments: 5000 });
    expect(configFromEnv({})).to.include({ stateCacheDocuments: 100_000, stateSnapshotEvery: 1000 });
    expect(configFromEnv({ STORYLINE_STATE_SNAPSHOT_EVERY: '5' })).to.include({ stateSnapshotEvery: 5 });
    expect(() => configFromEnv({ STORYLINE_STATE_SNAPSHOT_EVERY: '0' })).to.throw(ConfigError, /STORYLINE_STATE_SNAPSHOT_EVERY/);
    expect(() => configFromEnv({ STORYLINE_STATE_CACHE_DOCUMENTS: '-1' })).to.throw(ConfigError, /STORYLINE_STATE_CACHE_DOCUMENTS/);
  });

  it('rebuilds in as many worker threads as the machine has cores unless STORYLINE_REBUILD_WORKERS says otherwise', () => {
    expect(configFromEnv({}).rebuildWorkers).to.equal(availableParallelism());
    expect(configFromEnv({ STORYLINE_REBUILD_WORKERS: '1' }).rebuildWorkers).to.equal(1);
    for (const value of ['0', '65', 'all']) expect(() => configFromEnv({ STORYLINE_REBUILD_WORKERS: value })).to.throw(ConfigError, /STORYLINE_REBUILD_WORKERS/);
  });

  it('lets the serving heap grow 50% past its last full collection unless STORYLINE_HEAP_GROWING_PERCENT says otherwise (0: V8\'s own)', () => {
    expect(configFromEnv({}).heapGrowingPercent).to.equal(50);
    expect(configFromEnv({ STORYLINE_HEAP_GROWING_PERCENT: '0' }).heapGrowingPercent).to.equal(0);
    expect(configFromEnv({ STORYLINE_HEAP_GROWING_PERCENT: '100' }).heapGrowingPercent).to.equal(100);
    for (const value of ['-1', '1001', 'half']) expect(() => configFromEnv({ STORYLINE_HEAP_GROWING_PERCENT: value })).to.throw(ConfigError, /STORYLINE_HEAP_GROWING_PERCENT/);
  });

  it('trusts no proxy unless STORYLINE_TRUSTED_PROXIES lists addresses or subnets', () => {
    expect(configFromEnv({}).trustedProxies).to.deep.equal([]);
    expect(configFromEnv({ STORYLINE_TRUSTED_PROXIES: ' 127.0.0.1, 10.0.0.0/8,,::1,fd00::/8 ' }).trustedProxies).to.deep.equal(['127.0.0.1', '10.0.0.0/8', '::1', 'fd00::/8']);
    for (const value of ['localhost', '10.0.0.0/33', '::1/129', '10.0.0.0/8/8', '1.2.3.4:80', '10.0.0.0/x']) {
      expect(() => configFromEnv({ STORYLINE_TRUSTED_PROXIES: `127.0.0.1,${value}` }), value).to.throw(ConfigError, /STORYLINE_TRUSTED_PROXIES.*got/);
    }
  });

  it('keeps :memory: as it is', () => {
    expect(configFromEnv({ STORYLINE_DATA: ':memory:' }).dataDir).to.equal(':memory:');
  });

  it('refuses values it cannot use, naming the variable', () => {
    expect(() => configFromEnv({ PORT: 'eighty' })).to.throw(ConfigError, /PORT/);
    expect(() => configFromEnv({ STORYLINE_MAX_BODY_BYTES: '-1' })).to.throw(ConfigError, /STORYLINE_MAX_BODY_BYTES/);
    expect(() => configFromEnv({ STORYLINE_DOWNTIME_START: '2026-12-01T02:00:00Z' })).to.throw(ConfigError, /DOWNTIME/);
  });
});

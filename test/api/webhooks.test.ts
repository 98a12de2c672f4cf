// Activity webhooks over HTTP on the real composition root, delivering to a receiver on loopback (the
// operator's STORYLINE_WEBHOOK_ALLOW_PRIVATE=1): the resource's routes and errors, owners only, each
// delivery's body the feed's activity item for its version, its headers and signature, version order,
// retries after failures, the pause after failing too long and the resume by an update, a dead receiver
// holding up no other webhook, and a secret that never shows.
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { storylineApp, type PersonHandle, type StorylineApp } from './support/storyline-app.js';
import { startReceiver, type Receiver } from './support/webhook-receiver.js';
import { waitUntil } from './support/wait-until.js';

type Json = Record<string, any>;

const FAST_RETRIES = { STORYLINE_WEBHOOK_ALLOW_PRIVATE: '1', STORYLINE_WEBHOOK_RETRY_MS: '20', STORYLINE_WEBHOOK_RETRY_MAX_MS: '40' };

describe('activity webhooks', () => {
  let app: StorylineApp;
  let owner: PersonHandle;
  let projectId: number;
  const receivers: Receiver[] = [];

  async function receiver(): Promise<Receiver> {
    const started = await startReceiver();
    receivers.push(started);
    return started;
  }

  async function start(env: Record<string, string> = FAST_RETRIES): Promise<void> {
    app = await storylineApp({ env });
    owner = await app.person('Wanda Webhook');
    projectId = (await app.api('POST', '/projects', { as: owner, body: { name: 'Hooked', new_account_name: 'Hooks Inc' } })).json.id;
  }

  afterEach(async () => {
    for (const started of receivers.splice(0)) await started.close();
    await app.close();
  });

  function hooks(path = '', options: { as?: PersonHandle; method?: string; body?: unknown } = {}) {
    const method = options.method ?? (options.body === undefined ? 'GET' : 'POST');
    return app.api(method, `/projects/${projectId}/webhooks${path}`, { as: options.as ?? owner, ...(options.body !== undefined ? { body: options.body } : {}) });
  }

  async function write(name: string): Promise<number> {
    const res = await app.api('POST', `/projects/${projectId}/stories`, { as: owner, body: { name } });
    expect(res.status, res.text).to.equal(200);
    return Number(res.headers['x-tracker-project-version']);
  }

  async function feedItem(version: number): Promise<Json> {
    const feed = (await app.api('GET', `/projects/${projectId}/activity?since_version=${version - 1}`, { as: owner })).json as Json[];
    return feed.find((item) => item['project_version'] === version)!;
  }

  describe('the resource', () => {
    beforeEach(() => start());

    it('is created, listed, read, changed and deleted by owners, with Tracker\'s attributes', async () => {
      const target = await receiver();
      const created = await hooks('', { body: { webhook_url: target.url } });
      expect(created.status, created.text).to.equal(200);
      expect(created.json).to.include({ kind: 'webhook', project_id: projectId, webhook_url: target.url, webhook_version: 'v5', failing: false });
      expect(created.json.created_at).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      expect(created.json).to.not.have.any.keys('secret', 'secret_ref');
      const id = created.json.id as number;

      expect((await hooks()).json.map((hook: Json) => hook['id'])).to.deep.equal([id]);
      expect((await hooks(`/${id}`)).json).to.include({ id, webhook_url: target.url });

      const other = await receiver();
      const changed = await hooks(`/${id}`, { method: 'PUT', body: { webhook_url: other.url, webhook_version: 'v5' } });
      expect(changed.status, changed.text).to.equal(200);
      expect(changed.json).to.include({ id, webhook_url: other.url });

      const deleted = await hooks(`/${id}`, { method: 'DELETE' });
      expect(deleted.status).to.equal(204);
      expect(deleted.text).to.equal('');
      expect((await hooks(`/${id}`)).status).to.equal(404);
      expect((await hooks()).json).to.deep.equal([]);
    });

    it('makes each write an event, an activity and a version, the URL shown by its origin only', async () => {
      const before = Number((await app.api('GET', `/projects/${projectId}`, { as: owner })).headers['x-tracker-project-version']);
      const created = await hooks('', { body: { webhook_url: 'http://127.0.0.1:9/secret-path/token123', secret: 'hush' } });
      expect(Number(created.headers['x-tracker-project-version'])).to.equal(before + 1);
      const [activity] = (await app.api('GET', `/projects/${projectId}/activity?limit=1`, { as: owner })).json;
      expect(activity).to.include({ kind: 'webhook_create_activity', message: 'Wanda Webhook added a webhook to http://127.0.0.1:9' });
      expect(JSON.stringify(activity)).to.not.include('token123').and.not.include('secret').and.not.include('hush');
      expect(activity.changes[0].new_values.webhook_url).to.equal('http://127.0.0.1:9');
    });

    it('answers 403 to members and viewers on every route, 401 without credentials', async () => {
      const created = (await hooks('', { body: { webhook_url: 'http://127.0.0.1:9/' } })).json;
      for (const role of ['member', 'viewer']) {
        const person = await app.person(`A ${role}`);
        await app.api('POST', `/projects/${projectId}/memberships`, { as: owner, body: { person_id: person.id, role } });
        for (const [method, path, body] of [
          ['GET', '', undefined],
          ['POST', '', { webhook_url: 'http://127.0.0.1:9/' }],
          ['GET', `/${created.id}`, undefined],
          ['PUT', `/${created.id}`, { webhook_url: 'http://127.0.0.1:9/' }],
          ['DELETE', `/${created.id}`, undefined],
        ] as const) {
          const res = await hooks(path, { as: person, method, ...(body ? { body } : {}) });
          expect(res.status, `${role} ${method} ${path}`).to.equal(403);
          expect(res.json).to.include({ kind: 'error', code: 'unauthorized_operation' });
        }
      }
      const anonymous = await app.api('GET', `/projects/${projectId}/webhooks`);
      expect(anonymous.status).to.equal(401);
      expect((await app.api('GET', `/projects/${projectId}/webhooks/999999`, { as: owner })).status).to.equal(404);
      expect((await app.api('GET', `/projects/${projectId}/webhooks/abc`, { as: owner })).status).to.equal(404);
    });

    it('refuses a webhook_url that is not an absolute http(s) URL, other versions and unknown keys, with 400 naming them', async () => {
      const refused = async (body: unknown, field: string, method = 'POST', path = '') => {
        const res = await hooks(path, { method, body });
        expect(res.status, JSON.stringify(body)).to.equal(400);
        expect(res.json).to.include({ kind: 'error', code: 'invalid_parameter' });
        expect(res.json.validation_errors.map((error: Json) => error.field), JSON.stringify(body)).to.deep.equal([field]);
      };
      for (const url of ['/relative/path', 'ftp://example.com/x', 'not a url', 'http://', 'javascript:alert(1)', `https://example.com/${'x'.repeat(2100)}`]) {
        await refused({ webhook_url: url }, 'webhook_url');
      }
      await refused({}, 'webhook_url');
      await refused({ webhook_url: 123 }, 'webhook_url');
      await refused({ webhook_url: 'http://127.0.0.1:9/', webhook_version: 'v3' }, 'webhook_version');
      await refused({ webhook_url: 'http://127.0.0.1:9/', colour: 'red' }, 'colour');
      await refused({ webhook_url: 'http://127.0.0.1:9/', secret: 'x'.repeat(256) }, 'secret');
      const id = (await hooks('', { body: { webhook_url: 'http://127.0.0.1:9/' } })).json.id;
      await refused({ webhook_url: 'gopher://x' }, 'webhook_url', 'PUT', `/${id}`);
      await refused({ webhook_version: 'v4' }, 'webhook_version', 'PUT', `/${id}`);
      expect((await hooks(`/${id}`)).json.webhook_url).to.equal('http://127.0.0.1:9/');
    });

    it('never shows, logs or records the secret: not in the answer, the activity or any event', async () => {
      const secret = 'a-very-private-signing-key';
      const created = await hooks('', { body: { webhook_url: 'http://127.0.0.1:9/', secret } });
      await hooks(`/${created.json.id}`, { method: 'PUT', body: { secret: `${secret}-2` } });
      const events = await app.storyline.eventStore.readAll();
      expect(JSON.stringify(events)).to.not.include(secret);
      expect(created.text).to.not.include(secret);
      const feed = await app.api('GET', `/projects/${projectId}/activity`, { as: owner });
      expect(feed.text).to.not.include(secret).and.not.include('secret_ref');
    });
  });

  describe('refusing private addresses', () => {
    beforeEach(() => start({}));

    it('refuses hosts that resolve to loopback, private, link-local or unique-local addresses unless the operator allows them', async () => {
      for (const url of ['http://127.0.0.1:8080/', 'http://localhost/', 'http://10.1.2.3/', 'http://192.168.0.10/', 'http://169.254.169.254/latest/meta-data',
        'http://[::1]/', 'http://[fd00::1]/', 'http://[fe80::1]/', 'http://0.0.0.0/', 'http://[::ffff:127.0.0.1]/', 'http://172.16.5.4/']) {
        const res = await hooks('', { body: { webhook_url: url } });
        expect(res.status, url).to.equal(400);
        expect(res.json.validation_errors[0].field, url).to.equal('webhook_url');
        expect(res.json.validation_errors[0].problem, url).to.include('STORYLINE_WEBHOOK_ALLOW_PRIVATE');
      }
      const unresolvable = await hooks('', { body: { webhook_url: 'http://no-such-host.invalid/' } });
      expect(unresolvable.status).to.equal(400);
      expect(unresolvable.json.validation_errors[0].problem).to.include('could not be resolved');
    });
  });

  describe('deliveries', () => {
    it('POSTs each later version\'s feed activity item, in order, with the delivery headers and no signature without a secret', async () => {
      await start();
      const target = await receiver();
      const hook = (await hooks('', { body: { webhook_url: target.url } })).json;
      const createdAt = Number((await app.api('GET', `/projects/${projectId}`, { as: owner })).headers['x-tracker-project-version']);
      const versions = [await write('one'), await write('two'), await write('three')];
      const received = await target.until(3);
      for (const [index, delivery] of received.entries()) {
        expect(delivery.json).to.deep.equal(await feedItem(versions[index]!));
        expect(delivery.headers['content-type']).to.equal('application/json');
        expect(delivery.headers['user-agent']).to.match(/^Storyline\/\d+\.\d+\.\d+ \(activity webhook\)$/);
        expect(delivery.headers['x-storyline-delivery']).to.equal(`${hook.id}-${versions[index]}`);
        expect(delivery.headers['x-storyline-signature']).to.equal(undefined);
        expect(delivery.path).to.equal('/hooks/storyline');
      }
      expect(versions[0]).to.equal(createdAt + 1); // its own creation is not delivered
      await app.storyline.webhooks.delivered(hook.id, versions[2]!);
      const shown = (await hooks(`/${hook.id}`)).json;
      expect(shown).to.include({ last_delivered_version: versions[2], last_delivery_status: 200, failing: false });
      expect(shown).to.not.have.any.keys('last_delivery_error', 'failing_since');
    });

    it('signs each delivery with HMAC-SHA256 of the exact body bytes when a secret is set', async () => {
      await start();
      const target = await receiver();
      const secret = 'shared-signing-secret';
      await hooks('', { body: { webhook_url: target.url, secret } });
      await write('signed');
      const [delivery] = await target.until(1);
      const expected = `sha256=${createHmac('sha256', secret).update(delivery!.body).digest('hex')}`;
      expect(delivery!.headers['x-storyline-signature']).to.equal(expected);
    });

    it('retries a failed delivery with the same delivery id, later versions waiting behind it, then goes on in order', async () => {
      await start();
      const target = await receiver();
      target.answer((_delivery, index) => (index < 3 ? 503 : 200));
      const hook = (await hooks('', { body: { webhook_url: target.url } })).json;
      const versions = [await write('a'), await write('b')];
      const received = await target.until(5);
      expect(received.map((delivery) => delivery.headers['x-storyline-delivery'])).to.deep.equal([
        ...Array(4).fill(`${hook.id}-${versions[0]}`),
        `${hook.id}-${versions[1]}`,
      ]);
      await app.storyline.webhooks.delivered(hook.id, versions[1]!);
      const shown = (await hooks(`/${hook.id}`)).json;
      expect(shown).to.include({ last_delivered_version: versions[1], last_delivery_status: 200 });
      expect(shown).to.not.have.any.keys('last_delivery_error');
    });

    it('shows a failing delivery\'s status and error, and does not follow redirects', async () => {
      await start();
      const target = await receiver();
      target.answer(() => ({ redirect: 'http://127.0.0.1:9/elsewhere' }));
      const hook = (await hooks('', { body: { webhook_url: target.url } })).json;
      await write('redirected');
      await target.until(2);
      const shown = (await hooks(`/${hook.id}`)).json;
      expect(shown).to.include({ last_delivery_status: 302, failing: false });
      expect(shown.last_delivery_error).to.include('redirects are not followed');
      expect(shown.failing_since).to.match(/Z$/);
    });

    it('pauses a webhook that keeps failing past the give-up period (failing), and resumes from where it stopped on an update', async () => {
      await start({ ...FAST_RETRIES, STORYLINE_WEBHOOK_GIVE_UP_MS: '500' });
      const target = await receiver();
      target.answer(() => 500);
      const hook = (await hooks('', { body: { webhook_url: target.url } })).json;
      const first = await write('stuck');
      await waitUntil(async () => (await hooks(`/${hook.id}`)).json.failing_since !== undefined);
      app.clock.now += 1000; // the deliveries' clock is the server's: failing for longer than the give-up period
      await waitUntil(async () => (await hooks(`/${hook.id}`)).json.failing === true);
      const attempts = target.received.length;
      const second = await write('queued behind');
      await app.storyline.reactions.waitFor(await app.storyline.eventStore.headPosition(), 'webhooks');
      expect(target.received.length).to.equal(attempts); // paused: nothing more is tried

      target.answer(() => 200);
      const resumed = await hooks(`/${hook.id}`, { method: 'PUT', body: {} });
      expect(resumed.status).to.equal(200);
      const versions = (await target.until(attempts + 3)).slice(attempts).map((delivery) => delivery.headers['x-storyline-delivery']);
      expect(versions).to.deep.equal([`${hook.id}-${first}`, `${hook.id}-${second}`, `${hook.id}-${second + 1}`]); // the update itself is delivered too
      expect((await hooks(`/${hook.id}`)).json.failing).to.equal(false);
    });

    it('lets a dead receiver hold up no other webhook and no request', async () => {
      await start({ ...FAST_RETRIES, STORYLINE_WEBHOOK_TIMEOUT_MS: '60000' });
      const dead = await receiver();
      dead.answer(() => 'hang');
      const alive = await receiver();
      await hooks('', { body: { webhook_url: dead.url } });
      await hooks('', { body: { webhook_url: alive.url } });
      const versions = [await write('one'), await write('two'), await write('three')];
      const received = await alive.until(3);
      expect(received.map((delivery) => delivery.json.project_version)).to.deep.equal(versions);
      expect(dead.received).to.have.length(1);
    });

    it('stops delivering once the webhook is deleted', async () => {
      await start();
      const target = await receiver();
      const hook = (await hooks('', { body: { webhook_url: target.url } })).json;
      const version = await write('before');
      await app.storyline.webhooks.delivered(hook.id, version);
      await hooks(`/${hook.id}`, { method: 'DELETE' });
      await write('after');
      await app.storyline.reactions.waitFor(await app.storyline.eventStore.headPosition(), 'webhooks');
      expect(app.storyline.webhooks.deliveryState(hook.id)).to.equal(null);
      expect(target.received.map((delivery) => delivery.json.project_version)).to.deep.equal([version]);
    });
  });
});

describe('activity webhooks across restarts', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'storyline-webhooks-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('resumes after a restart from its checkpoint; a register built from scratch (reactions.sqlite lost, an import) starts at the head', async () => {
    const env = { STORYLINE_WEBHOOK_ALLOW_PRIVATE: '1' };
    const target = await startReceiver();
    let app = await storylineApp({ dataDir, env });
    try {
      const owner = await app.person('Rhea Restart');
      const projectId = (await app.api('POST', '/projects', { as: owner, body: { name: 'Durable', new_account_name: 'Durables' } })).json.id;
      const hook = (await app.api('POST', `/projects/${projectId}/webhooks`, { as: owner, body: { webhook_url: target.url } })).json;
      const write = async (name: string) =>
        Number((await app.api('POST', `/projects/${projectId}/stories`, { as: owner, body: { name } })).headers['x-tracker-project-version']);
      const first = await write('before the restart');
      await app.storyline.webhooks.delivered(hook.id, first);
      await app.close();

      app = await storylineApp({ dataDir, env });
      const second = await write('after the restart');
      await app.storyline.webhooks.delivered(hook.id, second);
      await app.close();

      rmSync(join(dataDir, 'reactions.sqlite'));
      rmSync(join(dataDir, 'reactions.sqlite-wal'), { force: true });
      rmSync(join(dataDir, 'reactions.sqlite-shm'), { force: true });
      app = await storylineApp({ dataDir, env });
      const third = await write('after the register was lost');
      await target.until(3);
      await app.storyline.webhooks.delivered(hook.id, third);
      expect(target.received.map((delivery) => delivery.json.project_version)).to.deep.equal([first, second, third]);
    } finally {
      await app.close();
      await target.close();
    }
  });
});

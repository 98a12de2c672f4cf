// The webhook deliveries with their collaborators faked (a log of versions, a register store, a sender
// answering as scripted): the register keeps one worker per webhook whatever the runner replays, a
// paused webhook reads nothing more from the log whatever is written, and the address policy refuses
// every private range, IPv4-mapped IPv6 included; the webhooks of a project woken together read the log once.
import { expect } from 'chai';
import type { RecordedEvent } from '../../../src/domain/events.js';
import { isPrivateAddress, WebhookAddresses } from '../../../src/infra/webhooks/webhook-addresses.js';
import type { WebhookAnswer, WebhookDeliveryState, WebhookRequest } from '../../../src/ports/webhook-deliveries.js';
import { HostSlots } from '../../../src/reactions/host-slots.js';
import { webhooksReaction } from '../../../src/reactions/webhooks.js';

const PROJECT = 3;
const WEBHOOK = 40;

function event(version: number, type: RecordedEvent['type'], changes: RecordedEvent['data']['changes'] = []): RecordedEvent {
  return {
    id: `e${version}`,
    stream: `project-${PROJECT}`,
    version,
    position: version,
    type,
    data: { changes, primary_resources: [] },
    meta: { schema: 2, occurred_at: 0, performed_by: 1, command_id: `c${version}` },
  };
}

const created = event(2, 'webhook_create', [{ kind: 'webhook', change_type: 'create', id: WEBHOOK, new_values: { webhook_url: 'http://hooks.example/x' } }]);
const updated = event(4, 'webhook_update', [{ kind: 'webhook', change_type: 'update', id: WEBHOOK, new_values: {} }]);

/** Storage failures to inject: the next `n` reads of the webhook document, or writes of checkpoints, throw. */
interface Faults {
  documentReads: number;
  checkpointWrites: number;
}

function world(answer: (request: WebhookRequest) => WebhookAnswer, faults: Faults = { documentReads: 0, checkpointWrites: 0 }) {
  const log = { head: 2, reads: 0, readAfter: [] as number[] };
  const warnings: string[] = [];
  const rows = new Map<number, WebhookDeliveryState>();
  const sent: WebhookRequest[] = [];
  const reaction = webhooksReaction({
    items: {
      async after(_projectId, afterVersion, limit) {
        log.reads++;
        log.readAfter.push(afterVersion);
        const items = [];
        for (let version = afterVersion + 1; version <= log.head && items.length < limit; version++) items.push({ version, json: `{"v":${version}}` });
        return items;
      },
    },
    eventStore: { headPosition: async () => 0, readStream: async () => [] },
    webhooks: {
      name: 'webhooks',
      findOne: async () => {
        if (faults.documentReads > 0 && faults.documentReads--) throw new Error('SQLITE_BUSY: database is locked');
        return { id: WEBHOOK, webhook_url: 'http://hooks.example/x' };
      },
      find: async () => [],
      count: async () => 0,
      all: async () => [],
    },
    waitForPosition: async () => undefined,
    store: {
      all: async () => [...rows.values()].map((row) => ({ ...row })),
      save: async (states) => {
        if (faults.checkpointWrites > 0 && faults.checkpointWrites--) throw new Error('SQLITE_FULL: database or disk is full');
        states.forEach((state) => rows.set(state.webhookId, { ...state }));
      },
      remove: async (id) => void rows.delete(id),
      close: async () => undefined,
    },
    sender: {
      async post(request) {
        sent.push(request);
        return answer(request);
      },
      close() {},
    },
    secrets: { secret: async () => null },
    settings: { retryMs: 1, retryMaxMs: 2, giveUpMs: 0, hostConcurrency: 2 },
    userAgent: 'test',
    log: { info() {}, warn: (message) => void warnings.push(message) },
    clock: () => 1000,
  });
  return { log, rows, sent, reaction, warnings };
}

async function settle(): Promise<void> {
  for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
}

describe('webhook deliveries', () => {
  it('registers a webhook once however often the runner hands it its create, starting after the create', async () => {
    const { log, sent, reaction, rows } = world(() => ({ status: 200, error: null }));
    await reaction.start!();
    await reaction.handle([created]);
    await reaction.handle([created]);
    log.head = 3;
    await reaction.handle([event(3, 'story_create')]);
    await reaction.delivered(WEBHOOK, 3);
    expect(sent.map((request) => request.headers['X-Storyline-Delivery'])).to.deep.equal([`${WEBHOOK}-3`]);
    await reaction.stop!();
    expect(rows.get(WEBHOOK)).to.include({ deliveredVersion: 3, registeredAt: 2 });
  });

  it('pauses at once when the give-up period is over, reads nothing more from the log, and resumes on an update', async () => {
    let failing = true;
    const { log, sent, reaction } = world(() => (failing ? { status: 500, error: 'the receiver answered 500' } : { status: 204, error: null }));
    await reaction.start!();
    await reaction.handle([created]);
    log.head = 3;
    await reaction.handle([event(3, 'story_create')]);
    await settle();
    expect(reaction.deliveryState(WEBHOOK)).to.include({ paused: true, failures: 1, lastStatus: 500, deliveredVersion: 2 });
    const reads = log.reads;
    log.head = 5;
    await reaction.handle([event(5, 'story_create')]);
    await settle();
    expect(log.reads, 'a paused webhook reads nothing').to.equal(reads);
    expect(sent).to.have.length(1);

    await reaction.handle([updated]); // resumes: tried again at once, fails, paused again (give-up 0)
    await settle();
    expect(reaction.deliveryState(WEBHOOK)).to.include({ paused: true, registeredAt: 4 });
    expect(sent).to.have.length(2);
    await reaction.handle([updated]); // the runner handing the same update again (after a crash) changes nothing
    await settle();
    expect(reaction.deliveryState(WEBHOOK)).to.include({ paused: true });
    expect(sent).to.have.length(2);

    failing = false;
    log.head = 6;
    await reaction.handle([event(6, 'webhook_update', updated.data.changes)]);
    await reaction.delivered(WEBHOOK, 6);
    expect(sent.map((request) => request.headers['X-Storyline-Delivery'])).to.deep.equal([3, 3, 3, 4, 5, 6].map((version) => `${WEBHOOK}-${version}`));
    expect(reaction.deliveryState(WEBHOOK)).to.include({ paused: false, failures: 0, lastError: null, registeredAt: 6 });
    await reaction.stop!();
  });

  it('reads a version once for all the webhooks of a project woken together', async () => {
    const { log, sent, reaction } = world(() => ({ status: 204, error: null }));
    await reaction.start!();
    const ids = [WEBHOOK, WEBHOOK + 1, WEBHOOK + 2];
    await reaction.handle([event(2, 'webhook_create', ids.map((id) => ({ kind: 'webhook', change_type: 'create', id, new_values: { webhook_url: 'http://hooks.example/x' } })))]);
    await settle();
    const readsBefore = log.readAfter.length;
    log.head = 3;
    await reaction.handle([event(3, 'story_create')]);
    for (const id of ids) await reaction.delivered(id, 3);
    expect(log.readAfter.slice(readsBefore).filter((after) => after === 2), 'one read after version 2 for the three').to.have.length(1);
    expect(sent.map((request) => request.headers['X-Storyline-Delivery']).sort()).to.deep.equal(ids.map((id) => `${id}-3`));
    await reaction.stop!();
  });

  it('goes on through storage failures of its own: a document read or a checkpoint write that fails is tried again, shown as the reaction\'s failure, never counted against the receiver', async () => {
    const faults = { documentReads: Number.MAX_SAFE_INTEGER, checkpointWrites: 0 };
    const { log, rows, sent, reaction, warnings } = world(() => ({ status: 204, error: null }), faults);
    await reaction.start!();
    await reaction.handle([created]);
    log.head = 3;
    await reaction.handle([event(3, 'story_create')]);
    while ((reaction.ownFailure!()?.attempts ?? 0) < 3) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(reaction.ownFailure!()).to.include({ step: 'handle', since: 1000 });
    expect(reaction.ownFailure!()?.error).to.contain('SQLITE_BUSY');
    expect(sent).to.have.length(0);
    expect(warnings.filter((warning) => warning.includes('document or secret')), 'logged once per run of failures').to.have.length(1);
    faults.documentReads = 0;
    faults.checkpointWrites = 3; // the flushes after the delivery fail, then the store takes the state
    await reaction.delivered(WEBHOOK, 3);
    expect(sent.map((request) => request.headers['X-Storyline-Delivery'])).to.deep.equal([`${WEBHOOK}-3`]);
    expect(reaction.deliveryState(WEBHOOK)).to.include({ failures: 0, failingSince: null, paused: false });
    for (let i = 0; i < 100 && rows.get(WEBHOOK)?.deliveredVersion !== 3; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(rows.get(WEBHOOK)).to.include({ deliveredVersion: 3 });
    expect(warnings.some((warning) => warning.includes('checkpoint'))).to.equal(true);
    expect(reaction.ownFailure!(), 'nothing fails once the stores take it').to.equal(null);
    await reaction.stop!();
  });
});

describe('webhook address policy', () => {
  it('refuses loopback, private, shared, link-local, unique-local, unspecified, multicast and mapped addresses', () => {
    for (const address of ['127.0.0.1', '127.255.0.9', '10.0.0.1', '172.16.0.1', '172.31.255.255', '192.168.1.1', '100.64.0.1', '169.254.169.254',
      '0.0.0.0', '224.0.0.1', '255.255.255.255', '::1', '::', 'fe80::1', 'fc00::1', 'fd12:3456::1', 'ff02::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', 'not-an-ip']) {
      expect(isPrivateAddress(address), address).to.equal(true);
    }
    for (const address of ['93.184.215.14', '8.8.8.8', '172.32.0.1', '2606:4700::1111', '::ffff:8.8.8.8']) {
      expect(isPrivateAddress(address), address).to.equal(false);
    }
  });

  it('resolves literal addresses without DNS and lets private ones through only when allowed', async () => {
    expect(await new WebhookAddresses(false).resolve('[::1]')).to.include({ ok: false });
    expect(await new WebhookAddresses(true).resolve('[::1]')).to.deep.equal({ ok: true, address: { address: '::1', family: 6 } });
    expect(await new WebhookAddresses(false).resolve('93.184.215.14')).to.deep.equal({ ok: true, address: { address: '93.184.215.14', family: 4 } });
  });
});

describe('host slots', () => {
  it('runs at most the bound per key at once, the rest in arrival order, other keys unhindered', async () => {
    const slots = new HostSlots(2);
    const order: string[] = [];
    const gates: Array<() => void> = [];
    const task = (name: string) => () => {
      order.push(name);
      return new Promise<void>((resolve) => gates.push(resolve));
    };
    const all = ['a1', 'a2', 'a3', 'a4'].map((name) => slots.run('a', task(name)));
    const other = slots.run('b', task('b1'));
    await settle();
    expect(order).to.deep.equal(['a1', 'a2', 'b1']);
    gates.shift()!();
    await settle();
    expect(order).to.deep.equal(['a1', 'a2', 'b1', 'a3']);
    for (const open of gates.splice(0)) open();
    await settle();
    for (const open of gates.splice(0)) open();
    await Promise.all([...all, other]);
    expect(order).to.deep.equal(['a1', 'a2', 'b1', 'a3', 'a4']);
  });
});
